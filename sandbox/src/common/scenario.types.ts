import type { ProviderQuirk } from './provider-quirks.js';

/**
 * Scenario controls: faults a test or the sandbox operator injects into one provider account
 * (one token / API key / database) of one simulator, to prove adapters and the pipeline cope.
 * Set through each simulator's control API: `PUT /_sim/accounts/{account}/scenarios` with a JSON
 * array of Scenario (replaces), `DELETE` clears, `GET` lists — the control API is not part of the
 * provider's dialect and is disabled unless the simulator runs in sandbox/test mode.
 */
export type Scenario =
  /** Every request answers 429 with Retry-After `retryAfterSeconds` for the next `requests` requests. */
  | { kind: 'rate_limit_storm'; requests: number; retryAfterSeconds: number }
  /** The next `requests` requests answer `status` (500, 502, 503 or 504). */
  | { kind: 'server_errors'; requests: number; status: 500 | 502 | 503 | 504 }
  /** Responses are delayed by `delayMs` (or never answered when `hang`) for the next `requests` requests. */
  | { kind: 'slow'; requests: number; delayMs: number; hang?: boolean }
  /** The next `requests` response bodies are cut after half their bytes. */
  | { kind: 'truncated_json'; requests: number }
  /** After `afterRequests` more successful requests the credential is revoked: 401 from then on. */
  | { kind: 'revoke_credential'; afterRequests: number }
  /**
   * Requests to paths matching `pathPrefix` (or Geotab `typeName`; on Samsara `typeName` is a
   * vehicle-stats `types` value, e.g. a token whose scopes do not cover `fuelPercents`) answer
   * 403 / missing-permission.
   */
  | { kind: 'missing_permission'; pathPrefix?: string; typeName?: string }
  /**
   * A field is renamed, retyped or set to a literal (`setTo`, e.g. Geotab's bare-date
   * `activeTo: "2050-01-01"`) in every record of matching responses.
   */
  | { kind: 'field_change'; pathPrefix?: string; typeName?: string; field: string; renameTo?: string; retypeTo?: 'string' | 'number' | 'null'; setTo?: string | number | boolean | null }
  /** Pages repeat the last `overlap` records of the previous page and shuffle order within a page. */
  | { kind: 'duplicate_and_reorder'; overlap: number }
  /** History for [fromMs, toMs) is hidden until the clock passes `availableAtMs`. */
  | { kind: 'late_history'; fromMs: number; toMs: number; availableAtMs: number }
  /** The vehicle's odometer drops to `toMeters` at `atMs` and continues from there. */
  | { kind: 'odometer_reset'; vehicleIndex: number; atMs: number; toMeters: number }
  /** At `atMs` the vehicle's device (serial / gateway) changes; provider-side ids of the device change. */
  | { kind: 'device_swap'; vehicleIndex: number; atMs: number }
  /**
   * The vehicle carries the catalog fault `fault` (its key, e.g. `obdii:P0420`) from `openedAtMs`
   * until `clearedAtMs` (open-ended when absent), beside its own schedule — the shape of a fault
   * already active when a connection starts watching (issue 23): Geotab reports it at its opening
   * and at each ignition after, never inside a first window that no ignition falls in. Pick a code
   * the vehicle's own schedule does not raise at those times.
   */
  | { kind: 'standing_fault'; vehicleIndex: number; fault: string; openedAtMs: number; clearedAtMs?: number }
  /**
   * A shape real payloads of the provider take (provider-quirks.ts, docs/providers.md "Provider
   * fidelity"); per-vehicle quirks apply to `vehicleIndexes` (default [0]). Other providers ignore it.
   */
  | { kind: 'provider_quirk'; quirk: ProviderQuirk; vehicleIndexes?: number[] };

export type ScenarioKind = Scenario['kind'];
