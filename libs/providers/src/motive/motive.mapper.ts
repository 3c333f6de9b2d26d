/**
 * Motive directory records → normalized VehicleRecord, DriverRecord, GroupRecord (spec 2.2, 2.3,
 * 2.5; motive.md §2-4). Pure functions of the parsed wire record plus `fetchedAt`.
 *
 * Invariants: ids become strings as-is; every cell carries a source (`motive:vehicles`,
 * `motive:users`, `motive:groups` — the wire field is named in the reason of unavailable cells);
 * nothing unknown becomes a value: an empty string is missing, a retyped value or one that fails the
 * spec's validation (license state list, E.164 phone, email shape, fuel enum) is invalid.
 */
import { isLicenseState } from '@switchyard/contracts';
import {
  available,
  FUEL_TYPES,
  invalid,
  missing,
  unsupported,
  type DriverRecord,
  type Field,
  type FuelType,
  type GroupRecord,
  type VehicleRecord,
} from '@switchyard/domain';
import { e164Phone } from '../phones.js';
import { retypedReason, statusField, textField, timeField, yearField } from './motive.fields.js';
import type { MotiveGroup, MotiveUser, MotiveVehicle, Wire } from './motive.schemas.js';

export const MOTIVE_VEHICLE_SOURCE = 'motive:vehicles';
export const MOTIVE_USER_SOURCE = 'motive:users';
export const MOTIVE_GROUP_SOURCE = 'motive:groups';

/**
 * Motive `fuel_type` → spec enum. Confirmed values are `diesel` and `gasoline` (motive.md §2); the
 * rest follow the IFTA fuel names of the legacy API. A bare `hybrid` is ambiguous (gasoline or diesel
 * hybrid?) and stays invalid rather than guessed; `sourceFuelType` keeps the raw value either way.
 */
const FUEL_TYPE_MAP: Readonly<Record<string, FuelType>> = {
  gasoline: 'gasoline',
  gas: 'gasoline',
  petrol: 'gasoline',
  diesel: 'diesel',
  propane: 'propane',
  lpg: 'propane',
  electric: 'electric',
  ev: 'electric',
  biodiesel: 'biodiesel',
  cng: 'compressed_natural_gas',
  compressed_natural_gas: 'compressed_natural_gas',
  lng: 'liquefied_natural_gas',
  liquid_natural_gas: 'liquefied_natural_gas',
  liquefied_natural_gas: 'liquefied_natural_gas',
  ethanol: 'ethanol',
  e85: 'ethanol',
  hydrogen: 'hydrogen',
  plug_in_hybrid: 'plug_in_hybrid',
  phev: 'plug_in_hybrid',
  hybrid_gasoline: 'hybrid_gasoline',
  hybrid_diesel: 'hybrid_diesel',
};

export function mapFuelType(w: Wire<string>, source: string): Field<FuelType> {
  if (w.kind === 'absent') return missing(source, 'fuel_type: not reported');
  if (w.kind === 'retyped') return invalid(source, retypedReason('fuel_type', w));
  const key = w.value.trim().toLowerCase().replace(/[\s-]+/g, '_');
  if (key === '') return missing(source, 'fuel_type: empty');
  const mapped = FUEL_TYPE_MAP[key];
  return mapped && (FUEL_TYPES as readonly string[]).includes(mapped) ? available(mapped, source) : invalid(source, `fuel_type: no spec fuel type for ${JSON.stringify(w.value.slice(0, 32))}`);
}

export function mapVehicle(v: MotiveVehicle, fetchedAt: string): VehicleRecord {
  const s = MOTIVE_VEHICLE_SOURCE;
  const serial: Wire<string> =
    v.eld_device.kind === 'value'
      ? v.eld_device.value.identifier == null
        ? { kind: 'absent' }
        : { kind: 'value', value: v.eld_device.value.identifier }
      : v.eld_device;
  return {
    provider: 'motive',
    sourceId: String(v.id),
    name: textField(v.number, s, 'number'),
    vin: textField(v.vin, s, 'vin'),
    metadata: {
      make: textField(v.make, s, 'make'),
      model: textField(v.model, s, 'model'),
      year: yearField(v.year, s),
      status: statusField(v.status, s),
      providerStatus: textField(v.status, s, 'status'),
      fuelType: mapFuelType(v.fuel_type, s),
      sourceFuelType: textField(v.fuel_type, s, 'fuel_type'),
      createdAt: timeField(v.created_at, s, 'created_at'),
      updatedAt: timeField(v.updated_at, s, 'updated_at'),
      activeFrom: unsupported(s),
      activeTo: unsupported(s),
      licensePlate: textField(v.license_plate_number, s, 'license_plate_number'),
      licensePlateRegion: textField(v.license_plate_state, s, 'license_plate_state'),
      serialNumber: textField(serial, s, 'eld_device.identifier'),
      // Group membership of vehicles is unconfirmed (no group_ids field or vehicle-members endpoint found).
      groups: unsupported(s),
    },
    fetchedAt,
  };
}

// Deliberately loose (one @, a dot in the domain, no spaces): the spec asks for "format email", and
// rejecting real addresses over RFC 5322 corner cases would lose data.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validated(field: Field<string>, ok: (v: string) => boolean, reason: string): Field<string> {
  return field.status === 'available' && !ok(field.value) ? invalid(field.source, reason) : field;
}

/**
 * Motive stores phones as entered, and users carry the country code apart: `phone: "555-0100"` with
 * `phone_country_code: "+1"` (live key set, docs/providers.md quirk M5). A national number is
 * completed with that code — Motive's own, never a guessed one (the shared rule, phones.ts).
 */
export function normalizePhone(field: Field<string>, countryCode: Wire<string>): Field<string> {
  if (field.status !== 'available') return field;
  return e164Phone(field.value, field.source, { countryCode: countryCode.kind === 'value' ? countryCode.value : null, prefix: 'phone: ', countryCodeField: 'phone_country_code' });
}

/** `groupIds`: the membership index built from `/v1/groups/{id}/users`, or why there is none. */
export type MembershipLookup = { readonly kind: 'index'; readonly byUser: ReadonlyMap<string, readonly string[]> } | { readonly kind: 'unavailable'; readonly reason: string };

export function mapDriver(u: MotiveUser, membership: MembershipLookup, fetchedAt: string): DriverRecord {
  const s = MOTIVE_USER_SOURCE;
  const firstName = textField(u.first_name, s, 'first_name');
  const lastName = textField(u.last_name, s, 'last_name');
  const parts = [firstName, lastName].flatMap((f) => (f.status === 'available' ? [f.value] : []));
  const displayName: Field<string> = parts.length > 0 ? available(parts.join(' '), s) : missing(s, 'first_name and last_name: not reported');
  const id = String(u.id);
  return {
    provider: 'motive',
    sourceId: id,
    status: statusField(u.status, s),
    fields: {
      firstName,
      middleName: unsupported(s),
      lastName,
      displayName,
      email: validated(textField(u.email, s, 'email'), (v) => EMAIL.test(v), 'email: not an email address'),
      phone: normalizePhone(textField(u.phone, s, 'phone'), u.phone_country_code),
      username: textField(u.username, s, 'username'),
      licenseNumber: textField(u.drivers_license_number, s, 'drivers_license_number'),
      licenseState: validated(textField(u.drivers_license_state, s, 'drivers_license_state'), (v) => isLicenseState(v), 'drivers_license_state: not in the spec state list'),
      createdAt: timeField(u.created_at, s, 'created_at'),
      updatedAt: timeField(u.updated_at, s, 'updated_at'),
    },
    groupIds: membership.kind === 'index' ? available(membership.byUser.get(id) ?? [], `${MOTIVE_GROUP_SOURCE}.users`) : missing(`${MOTIVE_GROUP_SOURCE}.users`, membership.reason),
    fetchedAt,
  };
}

/**
 * Users are listed with `role=driver`; a role that says otherwise is dropped (that filter is not ours
 * to trust), while an absent or retyped role falls back to the filter we sent.
 */
export function isDriver(u: MotiveUser): boolean {
  return u.role.kind !== 'value' || u.role.value === 'driver';
}

export function mapGroup(g: MotiveGroup, fetchedAt: string): GroupRecord {
  const s = MOTIVE_GROUP_SOURCE;
  return {
    provider: 'motive',
    sourceId: String(g.id),
    name: textField(g.name, s, 'name'),
    description: unsupported(s), // Motive groups have no description
    parentSourceId: g.parent_id == null ? null : String(g.parent_id),
    fetchedAt,
  };
}
