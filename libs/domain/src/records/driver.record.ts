/** A driver as one provider reports it, normalized (spec 2.5); per-field availability via Field. */
import type { Provider } from '../providers.js';
import type { Field } from './field.js';

export const DRIVER_FIELD_KEYS = [
  'firstName',
  'middleName',
  'lastName',
  'displayName',
  'email',
  'phone',
  'username',
  'licenseNumber',
  'licenseState',
  'createdAt',
  'updatedAt',
] as const;
export type DriverFieldKey = (typeof DRIVER_FIELD_KEYS)[number];

export interface DriverRecord {
  readonly provider: Provider;
  readonly sourceId: string;
  readonly status: Field<'active' | 'inactive'>;
  readonly fields: { readonly [K in DriverFieldKey]: Field<string> };
  /** Provider group ids the driver belongs to, as reported by the credential-visible directory. */
  readonly groupIds: Field<readonly string[]>;
  readonly fetchedAt: string;
}
