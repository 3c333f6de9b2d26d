/**
 * How the Geotab simulator names the shared fleet: entity ids, diagnostic / failure-mode ids, and
 * feed versions. Invariant: every mapping is a pure function of fleet indexes and times, so the
 * contract suite can compute what the simulator will show without asking it, and a version is a
 * total order that matches the order records "arrive" at the server.
 *
 * Ids look like MyGeotab's short opaque strings: Device `b<hex>`, User `bD<hex>`, Group `bG<hex>`,
 * Trip `bT<hex>x<hex>` (vehicle, trip sequence). Versions are 16 hex digits:
 * arrival ms × 2^22 + entity index × 2^8 + slot (8 bits: record kind within the entity).
 */
import { J1939_CODES, OBDII_CODES, type FaultCode } from '../fleet/catalog.js';
import type { SimFault } from '../fleet/fleet.types.js';

const hex = (n: number): string => n.toString(16).toUpperCase();
const parseHex = (id: string | undefined, pattern: RegExp): number | undefined => {
  const m = id ? pattern.exec(id) : null;
  return m ? parseInt(m[1] as string, 16) - 1 : undefined;
};

export const geotabDeviceId = (index: number): string => `b${hex(index + 1)}`;
export const geotabUserId = (index: number): string => `bD${hex(index + 1)}`;
export const geotabGroupId = (index: number): string => `bG${hex(index + 1)}`;
export const geotabTripId = (vehicleIndex: number, seq: number): string => `bT${hex(vehicleIndex + 1)}x${hex(seq)}`;
/** The account's own (non-driver) service user. */
export const GEOTAB_SERVICE_USER_ID = 'bD0';

export const deviceIndexOf = (id: string | undefined): number | undefined => parseHex(id, /^b([0-9A-F]+)$/);
export const userIndexOf = (id: string | undefined): number | undefined => parseHex(id, /^bD([0-9A-F]+)$/);

// ---- Diagnostics and failure modes -------------------------------------------------------------

export const KNOWN_DIAGNOSTICS = [
  { id: 'DiagnosticOdometerId', name: 'Odometer', code: 5, unitOfMeasure: 'UnitOfMeasureMetersId' },
  { id: 'DiagnosticEngineHoursId', name: 'Engine hours', code: 6, unitOfMeasure: 'UnitOfMeasureSecondsId' },
  { id: 'DiagnosticFuelLevelId', name: 'Fuel level (percentage)', code: 98, unitOfMeasure: 'UnitOfMeasurePercentageId' },
  { id: 'DiagnosticGoDeviceVoltageId', name: 'GO device voltage', code: 2, unitOfMeasure: 'UnitOfMeasureVoltsId' },
  { id: 'DiagnosticIgnitionId', name: 'Ignition', code: 10000, unitOfMeasure: 'UnitOfMeasureNoneId' },
] as const;
export type KnownDiagnosticId = (typeof KNOWN_DIAGNOSTICS)[number]['id'];

/** The diagnostic a fault is reported under: OBD-II by DTC, J1939 by SPN (FMI goes to failureMode). */
export function faultDiagnosticId(fault: Pick<SimFault, 'protocol' | 'code' | 'spn'>): string {
  return fault.protocol === 'obdii' ? `aObd${fault.code}` : `aSpn${fault.spn ?? 0}`;
}
export const failureModeId = (fmi: number): string => `aFmi${fmi}`;
export const faultControllerId = (protocol: SimFault['protocol']): string => (protocol === 'obdii' ? 'ControllerObdPowertrainId' : 'ControllerJ1939EngineNo1Id');

/** The Diagnostic entity for an id, or undefined when the simulator has no such diagnostic. */
export function diagnosticEntity(id: string): Record<string, unknown> | undefined {
  const known = KNOWN_DIAGNOSTICS.find((d) => d.id === id);
  if (known) return { id, name: known.name, code: known.code, diagnosticType: 'GoDiagnostic', source: { id: 'SourceGeotabGoId' }, unitOfMeasure: { id: known.unitOfMeasure } };
  const obd = /^aObd(P\d{4})$/.exec(id);
  const spn = /^aSpn(\d+)$/.exec(id);
  const code: FaultCode | undefined = obd ? OBDII_CODES.find((c) => c.code === obd[1]) : spn ? J1939_CODES.find((c) => c.spn === Number(spn[1])) : undefined;
  if (!code) return undefined;
  // J1939 descriptions are "<SPN name> - <FMI text>"; the Diagnostic is the SPN part.
  const name = code.protocol === 'j1939' ? (code.description.split(' - ')[0] as string) : code.description;
  return { id, name, code: code.protocol === 'obdii' ? code.code : code.spn, diagnosticType: code.protocol === 'obdii' ? 'ObdFault' : 'SaeJ1939Fault', source: { id: code.protocol === 'obdii' ? 'SourceObdId' : 'SourceJ1939Id' } };
}

export function failureModeEntity(id: string): Record<string, unknown> | undefined {
  const m = /^aFmi(\d+)$/.exec(id);
  if (!m || Number(m[1]) > 31) return undefined;
  return { id, code: Number(m[1]), name: `FMI ${m[1]}` };
}

export const allDiagnosticIds = (): string[] => [
  ...KNOWN_DIAGNOSTICS.map((d) => d.id),
  ...OBDII_CODES.map((c) => faultDiagnosticId(c)),
  ...[...new Set(J1939_CODES.map((c) => c.spn ?? 0))].map((spn) => `aSpn${spn}`),
];

// ---- Versions ----------------------------------------------------------------------------------

const SLOT_BITS = 8n;
const INDEX_BITS = 14n;
const LOW_BITS = SLOT_BITS + INDEX_BITS;

/** Parses a version token; undefined for anything that is not 1-16 hex digits. */
export function decodeVersion(token: unknown): bigint | undefined {
  if (typeof token !== 'string' || !/^[0-9a-fA-F]{1,16}$/.test(token)) return undefined;
  return BigInt(`0x${token}`);
}

export const versionValue = (arrivalMs: number, index: number, slot: number): bigint =>
  (BigInt(Math.max(0, Math.floor(arrivalMs))) << LOW_BITS) | (BigInt(index & 0x3fff) << SLOT_BITS) | BigInt(slot & 0xff);

export const arrivalMsOf = (version: bigint): number => Number(version >> LOW_BITS);
/** The largest version at `ms`: "everything that arrived up to and including ms". */
export const versionCeiling = (ms: number): bigint => (BigInt(Math.max(0, Math.floor(ms))) << LOW_BITS) | ((1n << LOW_BITS) - 1n);
export const versionToken = (version: bigint): string => version.toString(16).padStart(16, '0');
