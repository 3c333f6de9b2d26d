/**
 * A connection's configuration: what may be collected, for which purposes and which records.
 * It mirrors the connection-configuration event the messaging lib publishes, so every context reads
 * the same shape. Invariant: a new connection collects nothing — every purpose and opt-in is off and
 * every approval list is empty until an operator or the customer turns something on — and
 * `validateConnectionConfig` lists every problem at once instead of stopping at the first.
 */
import { isRfc3339DateTime } from './date-time.js';
import { isUuid } from './ids.js';
import { isProvider, type Provider } from './providers.js';

export const ENVIRONMENTS = ['sandbox', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const CONNECTION_STATUSES = ['active', 'paused', 'disconnected'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export const RECORD_STATUSES = ['active', 'inactive'] as const;
export type RecordStatus = (typeof RECORD_STATUSES)[number];

/** The signals a customer can approve in a connect session (spec 2.8 selected_signals). */
export const SELECTED_SIGNALS = ['odometer', 'faults', 'engineHours', 'location'] as const;
export type SelectedSignal = (typeof SELECTED_SIGNALS)[number];

export const CONNECTION_CONFIG_LIMITS = {
  /** Spec 2.2 GroupInventoryCapability.maxGroupIds and spec 8 "Group inventory ids". */
  maxApprovedGroupIds: 100,
  /** Spec 8 "Selected signals": 1 to 4 in a session; a stored config may hold 0 before the first session. */
  maxSelectedSignals: 4,
  minSessionSelectedSignals: 1,
} as const;

export interface ConnectionPurposes {
  readonly vehicles: boolean;
  readonly groupMemberships: boolean;
  readonly trips: boolean;
}

export interface ConnectionOptIns {
  readonly groupInventory: boolean;
  readonly vehicleMetadata: boolean;
  readonly extendedTelemetry: boolean;
}

export interface ConnectionConfig {
  readonly connectionId: string;
  readonly provider: Provider;
  readonly environment: Environment;
  readonly status: ConnectionStatus;
  /** Spec 4.1 rule 4: sync create/retry need this and every configured purpose on. */
  readonly unifiedCollection: boolean;
  readonly purposes: ConnectionPurposes;
  /** Provider source vehicle ids approved for collection (spec 2.6 selection approved_source_vehicle_ids). */
  readonly approvedVehicleIds: readonly string[];
  /** Source vehicle ids shown despite filters / hidden from reads (visibility hidden_by_include_list / exclude_list). */
  readonly includeVehicleIds: readonly string[];
  readonly excludeVehicleIds: readonly string[];
  /** Record statuses shown; others are hidden_by_status. Empty = no status filter. */
  readonly includeStatuses: readonly RecordStatus[];
  readonly optIns: ConnectionOptIns;
  /** Provider source group ids approved for the group inventory (at most 100). */
  readonly approvedGroupIds: readonly string[];
  readonly selectedSignals: readonly SelectedSignal[];
  /** Increases by one on every change; consumers ignore a config older than the one they hold. */
  readonly revision: number;
  readonly updatedAt: string;
}

export function defaultConnectionConfig(
  connectionId: string,
  provider: Provider,
  environment: Environment,
  now: Date = new Date(),
): ConnectionConfig {
  return {
    connectionId,
    provider,
    environment,
    status: 'active',
    unifiedCollection: false,
    purposes: { vehicles: false, groupMemberships: false, trips: false },
    approvedVehicleIds: [],
    includeVehicleIds: [],
    excludeVehicleIds: [],
    includeStatuses: [],
    optIns: { groupInventory: false, vehicleMetadata: false, extendedTelemetry: false },
    approvedGroupIds: [],
    selectedSignals: [],
    revision: 1,
    updatedAt: now.toISOString(),
  };
}

export interface ConfigProblem {
  /** Dotted path of the offending field, e.g. `approvedGroupIds[3]`. */
  readonly path: string;
  readonly problem: string;
}

const oneOf = <T extends string>(list: readonly T[], v: unknown): v is T => typeof v === 'string' && (list as readonly string[]).includes(v);

function checkIdList(path: string, v: unknown, out: ConfigProblem[]): readonly string[] {
  if (!Array.isArray(v)) {
    out.push({ path, problem: 'must be an array of strings' });
    return [];
  }
  const seen = new Set<string>();
  v.forEach((id, i) => {
    if (typeof id !== 'string' || id.trim().length === 0) out.push({ path: `${path}[${i}]`, problem: 'must be a non-empty string' });
    else if (seen.has(id)) out.push({ path: `${path}[${i}]`, problem: `duplicate id ${JSON.stringify(id)}` });
    else seen.add(id);
  });
  return [...seen];
}

function checkFlags(path: string, v: unknown, keys: readonly string[], out: ConfigProblem[]): void {
  if (typeof v !== 'object' || v === null) {
    out.push({ path, problem: 'must be an object' });
    return;
  }
  const rec = v as Record<string, unknown>;
  for (const k of keys) if (typeof rec[k] !== 'boolean') out.push({ path: `${path}.${k}`, problem: 'must be a boolean' });
}

/** Every problem of a configuration (empty when valid). Accepts unknown input so it can guard parsed JSON. */
export function validateConnectionConfig(input: unknown): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  if (typeof input !== 'object' || input === null) return [{ path: '', problem: 'must be an object' }];
  const c = input as Record<string, unknown>;
  if (!isUuid(c.connectionId)) out.push({ path: 'connectionId', problem: 'must be a UUID' });
  if (!isProvider(c.provider)) out.push({ path: 'provider', problem: 'must be a known provider' });
  if (!oneOf(ENVIRONMENTS, c.environment)) out.push({ path: 'environment', problem: `must be one of ${ENVIRONMENTS.join(', ')}` });
  if (!oneOf(CONNECTION_STATUSES, c.status)) out.push({ path: 'status', problem: `must be one of ${CONNECTION_STATUSES.join(', ')}` });
  if (typeof c.unifiedCollection !== 'boolean') out.push({ path: 'unifiedCollection', problem: 'must be a boolean' });
  checkFlags('purposes', c.purposes, ['vehicles', 'groupMemberships', 'trips'], out);
  checkFlags('optIns', c.optIns, ['groupInventory', 'vehicleMetadata', 'extendedTelemetry'], out);

  checkIdList('approvedVehicleIds', c.approvedVehicleIds, out);
  const include = checkIdList('includeVehicleIds', c.includeVehicleIds, out);
  const exclude = new Set(checkIdList('excludeVehicleIds', c.excludeVehicleIds, out));
  for (const id of include) {
    if (exclude.has(id)) out.push({ path: 'excludeVehicleIds', problem: `id ${JSON.stringify(id)} is also in includeVehicleIds` });
  }
  checkIdList('approvedGroupIds', c.approvedGroupIds, out);
  if (Array.isArray(c.approvedGroupIds) && c.approvedGroupIds.length > CONNECTION_CONFIG_LIMITS.maxApprovedGroupIds) {
    out.push({ path: 'approvedGroupIds', problem: `at most ${CONNECTION_CONFIG_LIMITS.maxApprovedGroupIds} ids` });
  }

  if (!Array.isArray(c.includeStatuses)) out.push({ path: 'includeStatuses', problem: 'must be an array' });
  else {
    c.includeStatuses.forEach((s, i) => {
      if (!oneOf(RECORD_STATUSES, s)) out.push({ path: `includeStatuses[${i}]`, problem: `must be one of ${RECORD_STATUSES.join(', ')}` });
    });
    if (new Set(c.includeStatuses).size !== c.includeStatuses.length) out.push({ path: 'includeStatuses', problem: 'must be unique' });
  }

  if (!Array.isArray(c.selectedSignals)) out.push({ path: 'selectedSignals', problem: 'must be an array' });
  else {
    c.selectedSignals.forEach((s, i) => {
      if (!oneOf(SELECTED_SIGNALS, s)) out.push({ path: `selectedSignals[${i}]`, problem: `must be one of ${SELECTED_SIGNALS.join(', ')}` });
    });
    if (new Set(c.selectedSignals).size !== c.selectedSignals.length) out.push({ path: 'selectedSignals', problem: 'must be unique' });
    if (c.selectedSignals.length > CONNECTION_CONFIG_LIMITS.maxSelectedSignals) {
      out.push({ path: 'selectedSignals', problem: `at most ${CONNECTION_CONFIG_LIMITS.maxSelectedSignals} signals` });
    }
  }

  if (typeof c.revision !== 'number' || !Number.isSafeInteger(c.revision) || c.revision < 1) {
    out.push({ path: 'revision', problem: 'must be an integer >= 1' });
  }
  if (!isRfc3339DateTime(c.updatedAt)) out.push({ path: 'updatedAt', problem: 'must be an RFC 3339 date-time' });
  return out;
}
