/**
 * MyGeotab FaultData → explicit fault records (geotab.md §7). Geotab sends one FaultData per
 * ignition cycle while a fault is present and never a "cleared" record: this mapper reports each
 * occurrence as is, with the key downstream uses to open and clear faults (our rule: first record
 * of a key opens; an ignition cycle without a repeat, or `dismissDateTime`, clears).
 */
import { isRfc3339DateTime, type FaultRecord } from '@switchyard/domain';
import { dateField, realId, type MapContext } from './geotab.mapper.js';
import type { GeotabDiagnostic, GeotabFailureMode, GeotabFaultData } from './geotab.schemas.js';

/** .NET MinDate (`0001-01-01`) and anything before 1970 means "not set" (e.g. dismissDateTime). */
const NOT_SET_BEFORE_MS = 0;

/**
 * Geotab names a fault state either by its enum value (`Active`, `Pending`, `Inactive`, `None`) or,
 * in `faultStates.effectiveStatus` of newer records, by the entity id of that value
 * (`FaultStatusActiveId`, issue 23). Both mean the same state: the id form is reduced to the value,
 * so one provider state never reaches downstream under two spellings. Anything else passes as is.
 */
const STATE_ID = /^FaultStatus([A-Za-z]+)Id$/;

function faultStateOf(fault: Pick<GeotabFaultData, 'faultState' | 'faultStates'>): string | null {
  const raw = fault.faultState ?? fault.faultStates?.effectiveStatus ?? null;
  return raw === null ? null : (STATE_ID.exec(raw)?.[1] ?? raw);
}

export interface FaultLookups {
  diagnostics: ReadonlyMap<string, GeotabDiagnostic>;
  failureModes: ReadonlyMap<string, GeotabFailureMode>;
}

/**
 * One FaultData occurrence. faultKey = device + diagnostic + failureMode + controller (geotab.md §7):
 * the first record of a key opens a fault; clearing is derived downstream (ignition cycle without a
 * repeat, or `dismissDateTime`). `code` is the Diagnostic's code (SPN / DTC) with `-FMI<n>` when the
 * failure mode has one; the diagnostic id stands in when the Diagnostic cannot be looked up.
 */
export function mapFault(fault: GeotabFaultData, lookups: FaultLookups, ctx: MapContext): FaultRecord | null {
  const observedAt = dateField(fault.dateTime, 'geotab:FaultData.dateTime');
  const vehicle = realId(fault.device);
  if (observedAt.status !== 'available' || !vehicle) return null;
  const failureMode = realId(fault.failureMode);
  const controller = realId(fault.controller);
  const diagnostic = lookups.diagnostics.get(fault.diagnostic);
  const fmi = failureMode ? lookups.failureModes.get(failureMode)?.code : undefined;
  const base = diagnostic?.code !== undefined && diagnostic.code !== null && String(diagnostic.code) !== '' ? String(diagnostic.code) : fault.diagnostic;
  const dismissed = fault.dismissDateTime && isRfc3339DateTime(fault.dismissDateTime) && Date.parse(fault.dismissDateTime) > NOT_SET_BEFORE_MS ? new Date(fault.dismissDateTime).toISOString() : null;
  return {
    model: 'explicit_records',
    provider: 'geotab',
    sourceId: fault.id,
    vehicleSourceId: vehicle,
    observedAt: observedAt.value,
    faultKey: [vehicle, fault.diagnostic, failureMode ?? 'NoFailureModeId', controller ?? 'ControllerNoneId'].join('|'),
    code: fmi !== undefined && fmi !== null ? `${base}-FMI${String(fmi)}` : base,
    description: fault.faultDescription?.trim() || diagnostic?.name?.trim() || null,
    providerState: faultStateOf(fault),
    dismissedAt: dismissed,
    fetchedAt: ctx.fetchedAt,
    ...(typeof fault.count === 'number' && Number.isInteger(fault.count) && fault.count >= 0 ? { occurrenceCount: fault.count } : {}),
  };
}
