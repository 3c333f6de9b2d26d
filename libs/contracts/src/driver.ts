/**
 * Driver vocabulary (spec 2.5): license states, availability keys and the status enums of the driver
 * directory. Invariant: these tuples are the only copies; DTOs, OpenAPI enums and normalizers import them.
 */

/** license.state allowed values, in the spec's order: US states and territories, Canadian provinces and territories, DC. */
export const LICENSE_STATES = [
  'AL', 'AK', 'AS', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'FL', 'GA', 'GU', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS', 'KY', 'LA',
  'ME', 'MD', 'MA', 'MI', 'MN', 'MP', 'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC', 'ND', 'OH', 'OK', 'OR',
  'PA', 'PR', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA', 'WV', 'WI', 'WY', 'VI', 'AB', 'BC', 'MB', 'NB', 'NL',
  'NS', 'ON', 'PE', 'QC', 'SK', 'NT', 'NU', 'UM', 'YT', 'DC',
] as const;
export type LicenseState = (typeof LICENSE_STATES)[number];

export const isLicenseState = (v: unknown): v is LicenseState => typeof v === 'string' && (LICENSE_STATES as readonly string[]).includes(v);

/** Keys of Driver.availability, each available | missing | invalid | unsupported (the adapters' DriverRecord fields). */
export { DRIVER_FIELD_KEYS as DRIVER_AVAILABILITY_KEYS, type DriverFieldKey as DriverAvailabilityKey } from '@switchyard/domain';

/** Driver.sourceId: a letter or digit, then up to 255 of letters, digits, colon, underscore, hyphen. */
export const DRIVER_SOURCE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9:_-]{0,255}$';
/** Driver.phone: E.164 shape. */
export const PHONE_PATTERN = '^\\+[1-9][0-9]{9,13}$';
/** Cursor tokens (DriverDirectory.next and every other `next`). */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+$';

export const DRIVER_DIRECTORY_STATUSES = ['available', 'pending', 'stale', 'degraded'] as const;
export const DRIVER_RESULT_STATUSES = ['available', 'stale', 'degraded'] as const;
export const GROUP_MEMBERSHIP_STATUSES = ['available', 'stale', 'degraded', 'partial', 'pending', 'disabled', 'missing', 'invalid', 'unsupported'] as const;
export const GROUP_MEMBERSHIP_SCOPES = ['approved_groups_only', 'credential_visible_directory'] as const;
export const GROUP_MEMBERSHIP_SOURCE_SCOPES = ['credential_visible', 'approved_groups', 'unknown'] as const;
export const INVENTORY_STATUSES = ['available', 'pending', 'disabled', 'degraded', 'stale'] as const;
