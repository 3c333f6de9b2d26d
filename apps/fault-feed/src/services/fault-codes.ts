/**
 * The structure of a fault code, read from the fault key the provider adapters build
 * (libs/providers: Samsara `samsara-stats.mapper.ts` faultCodesOf, Motive `motive-telemetry.mapper.ts`
 * faultKeyOf, Geotab `geotab.faults.ts` mapFault — those functions define the key grammars below):
 * - Samsara J1939 `j1939:<txId|na>:spn<spn>:fmi<fmi>` (txId = the transmitting ECU's source address),
 *   OBD-II `obdii:<txId|na>:<dtc>:<confirmed|pending|permanent>`, OEM `oem:<id>` (no structure);
 * - Motive J1939 `j1939:spn<spn>:fmi<fmi>`, OBD-II `obdii:<dtc>` (network `obdii`), other networks none;
 * - Geotab `<device>|<diagnostic>|<failure mode or NoFailureModeId>|<controller or ControllerNoneId>`.
 * A key outside these grammars has no structure (null), never a guessed one. The J1939 occurrence
 * count is not in the key: it comes with each observation (`occurrenceCount`, the latest one seen)
 * and is added to a J1939 or Geotab structure when known (Geotab FaultData `count`).
 */
import type { Provider } from '@switchyard/domain';
import type { StructuredFaultCodeV1 } from '@switchyard/messaging';

const SAMSARA_J1939 = /^j1939:(na|\d{1,3}):spn(\d{1,7}):fmi(\d{1,2})$/;
const SAMSARA_OBDII = /^obdii:(?:na|\d{1,3}):([^:]+):(confirmed|pending|permanent)$/;
const MOTIVE_J1939 = /^j1939:spn(\d{1,7}):fmi(\d{1,2})$/;
const MOTIVE_OBDII = /^obdii:([^:]+)$/;

export function structuredCode(provider: Provider, faultKey: string, occurrenceCount: number | null = null): StructuredFaultCodeV1 | null {
  const code = keyStructure(provider, faultKey);
  return (code?.standard === 'j1939' || code?.standard === 'geotab') && occurrenceCount !== null ? { ...code, occurrenceCount } : code;
}

function keyStructure(provider: Provider, faultKey: string): StructuredFaultCodeV1 | null {
  if (provider === 'geotab') {
    const parts = faultKey.split('|');
    if (parts.length !== 4 || parts.some((p) => p === '')) return null;
    const [, diagnosticId, failureMode, controller] = parts as [string, string, string, string];
    return { standard: 'geotab', diagnosticId, failureModeId: failureMode === 'NoFailureModeId' ? null : failureMode, controllerId: controller === 'ControllerNoneId' ? null : controller };
  }
  if (provider === 'samsara') {
    const j = SAMSARA_J1939.exec(faultKey);
    if (j) return { standard: 'j1939', spn: Number(j[2]), fmi: Number(j[3]), sourceAddress: j[1] === 'na' ? null : Number(j[1]) };
    const o = SAMSARA_OBDII.exec(faultKey);
    const [, dtc, status] = o ?? [];
    return dtc && status ? { standard: 'obdii', dtc, status: status as 'confirmed' | 'pending' | 'permanent' } : null;
  }
  const j = MOTIVE_J1939.exec(faultKey);
  if (j) return { standard: 'j1939', spn: Number(j[1]), fmi: Number(j[2]), sourceAddress: null };
  const dtc = MOTIVE_OBDII.exec(faultKey)?.[1];
  return dtc ? { standard: 'obdii', dtc, status: null } : null;
}
