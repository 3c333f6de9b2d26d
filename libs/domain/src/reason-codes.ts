/**
 * Reason codes carried in data (spec 7: "not as HTTP errors") and the status vocabularies readings
 * and fields use. Invariant: a provider or persistence failure is reported through one of these codes
 * next to a missing/stale status, never by turning a value into zero.
 */

/** Provider-side failures, shared by every data read that reports an errorCode. */
export const PROVIDER_REASON_CODES = [
  'provider_auth_required',
  'provider_config_invalid',
  'provider_throttled',
  'provider_unavailable',
  'provider_response_changed',
  'provider_scope_mismatch',
] as const;
export type ProviderReasonCode = (typeof PROVIDER_REASON_CODES)[number];

/** Every data reason code of spec 7. */
export const DATA_REASON_CODES = [
  ...PROVIDER_REASON_CODES,
  'driver_persistence_unavailable',
  'group_persistence_unavailable',
  'group_dispatch_unavailable',
] as const;
export type DataReasonCode = (typeof DATA_REASON_CODES)[number];

/** errorCode of DriverDirectory and DriverResult (spec 2.5). */
export const DRIVER_DIRECTORY_REASON_CODES = [...PROVIDER_REASON_CODES, 'driver_persistence_unavailable'] as const;
export type DriverDirectoryReasonCode = (typeof DRIVER_DIRECTORY_REASON_CODES)[number];

/** errorCode of a driver's groupMembership (spec 2.5). */
export const GROUP_MEMBERSHIP_REASON_CODES = [
  ...PROVIDER_REASON_CODES,
  'group_persistence_unavailable',
  'group_dispatch_unavailable',
] as const;
export type GroupMembershipReasonCode = (typeof GROUP_MEMBERSHIP_REASON_CODES)[number];

export const isDataReasonCode = (v: unknown): v is DataReasonCode =>
  typeof v === 'string' && (DATA_REASON_CODES as readonly string[]).includes(v);

/**
 * How Switchyard derived a value the provider does not report itself (closed list). A derived value
 * is never passed off as reported: its source names the code (`derivedSource`), and the catalog's
 * gaps and the decision behind it say what it means.
 * - `derived_from_roster`: a vehicle status from the connection's vehicle roster passes, for a
 *   provider that reports none (Samsara): `active` while the last complete pass lists the vehicle,
 *   `inactive` once a complete pass no longer does (decision 0011).
 */
export const DERIVATION_CODES = ['derived_from_roster'] as const;
export type DerivationCode = (typeof DERIVATION_CODES)[number];

/** The source of a derived value: the provider source it rests on, then the derivation (`samsara:vehicles(derived_from_roster)`). */
export const derivedSource = (source: string, code: DerivationCode): string => `${source}(${code})`;

/** Availability of one field of a record (driver availability, metadata cells, sourceAvailability). */
export const AVAILABILITY_STATUSES = ['available', 'missing', 'invalid', 'unsupported'] as const;
export type AvailabilityStatus = (typeof AVAILABILITY_STATUSES)[number];

/** Status of one telemetry metric (spec 2.10, 3 "Reading"). */
export const READING_STATUSES = ['available', 'stale', 'missing'] as const;
export type ReadingStatus = (typeof READING_STATUSES)[number];
