/**
 * `directory.read.vehicles.list|get|metadata` v1: gateway → directory request/reply behind
 * GET /v1/connections/{id}/vehicles, …/vehicles/{vehicleId} and …/vehicles/{vehicleId}/metadata
 * (spec 2.3, 2.6, 4.2). The directory answers from its own store (no provider contact).
 *
 * Decisions kept here:
 * - one list RPC serves both public shapes: `view: 'assets'` answers core assets (spec `Vehicle`:
 *   provider_id, name, vin) and `view: 'profiles'` answers VehicleEntity objects (spec 2.6);
 *   both walk the same keyset (vehicle id ascending) inside the same snapshot horizon;
 * - `vehicleEntityV1` is ExpandedVehicle with `groups` holding a group id or an expanded Group
 *   (`expand.groups`): the same `flatGroupV1` a driver embeds (parent an id, parentResolution
 *   within the credential-visible directory); a group the directory has not stored stays an id;
 * - the metadata reply is the public VehicleMetadataResponse minus nothing: every one of the 15
 *   cells is present, available cells carry a bounded value, unavailable ones `value: null`.
 * Errors: `not_found` (no such vehicle on this connection, or hidden by its visibility rules),
 * `service_unavailable` (migrations pending), plus the bus's own codes.
 */
import { FUEL_TYPES, ID_PATTERNS, VEHICLE_METADATA_BOUNDS, type VehicleMetadataKey } from '@switchyard/domain';
import { z } from 'zod';
import type { RpcDefinition } from '../port.js';
import { flatGroupV1 } from './directory-read-groups.v1.js';
import { datasetStatusV1, expandedVehicleV1, isoDateTimeV1, readPageReplyFields, readPageRequestFields } from './directory-read.v1.js';

const vehicleId = z.string().regex(new RegExp(ID_PATTERNS.vehicle));
const groupIdV1 = z.string().regex(new RegExp(ID_PATTERNS.group));
const { stringMax, yearMin, yearMax, groupIdMax, groupsMax } = VEHICLE_METADATA_BOUNDS;

/** VehicleEntity (spec 2.6): ExpandedVehicle whose groups may be expanded. */
export const vehicleEntityV1 = expandedVehicleV1.extend({ groups: z.array(z.union([groupIdV1, flatGroupV1])).max(groupsMax).optional() }).strict();

/** Vehicle (core asset, spec 2.6). */
export const coreVehicleV1 = z.object({ provider_id: z.string().min(1), name: z.string(), vin: z.string().nullable() }).strict();

export const VEHICLE_LIST_VIEWS = ['assets', 'profiles'] as const;
export type VehicleListView = (typeof VEHICLE_LIST_VIEWS)[number];

export const vehicleExpandV1 = z.object({ groups: z.boolean() }).strict();

export const listVehiclesRequestV1 = z
  .object({
    ...readPageRequestFields,
    view: z.enum(VEHICLE_LIST_VIEWS),
    expand: vehicleExpandV1,
    /** Keyset position: the id of the last vehicle served (ascending id). */
    after: vehicleId.optional(),
  })
  .strict();

export const listVehiclesReplyV1 = z
  .object({
    ...readPageReplyFields,
    /** `view: assets` only. */
    assets: z.array(coreVehicleV1).max(100).optional(),
    /** `view: profiles` only. */
    profiles: z.array(vehicleEntityV1).max(100).optional(),
    /** The id of the last vehicle served; present exactly when hasMore. */
    next: vehicleId.optional(),
  })
  .strict();

export const getVehicleRequestV1 = z.object({ connectionId: z.uuid(), vehicleId, expand: vehicleExpandV1 }).strict();
export const getVehicleReplyV1 = z.object({ dataset: datasetStatusV1, vehicle: vehicleEntityV1 }).strict();

const cellSource = z.string().min(1).max(1024);
const text = z.string().min(1).max(stringMax);
const unavailableCell = z.object({ status: z.enum(['missing', 'unsupported', 'invalid']), value: z.null(), source: cellSource }).strict();
const cellOf = <T extends z.ZodType>(value: T) => z.union([z.object({ status: z.literal('available'), value, source: cellSource }).strict(), unavailableCell]);

const metadataValues = {
  make: text,
  model: text,
  year: z.number().int().min(yearMin).max(yearMax),
  status: z.enum(['active', 'inactive']),
  providerStatus: text,
  fuelType: z.enum(FUEL_TYPES),
  sourceFuelType: text,
  createdAt: isoDateTimeV1,
  updatedAt: isoDateTimeV1,
  activeFrom: isoDateTimeV1,
  activeTo: isoDateTimeV1,
  licensePlate: text,
  licensePlateRegion: text,
  serialNumber: text,
  groups: z
    .array(z.object({ id: z.string().min(1).max(groupIdMax), name: text.optional() }).strict())
    .max(groupsMax),
} as const satisfies Record<VehicleMetadataKey, z.ZodType>;

/** The value schema of each metadata key when available (spec 2.3): the bounds a stored value must meet to be served. */
export const VEHICLE_METADATA_VALUE_SCHEMAS: { readonly [K in VehicleMetadataKey]: z.ZodType } = metadataValues;

export const vehicleMetadataFieldsV1 = z
  .object({
    make: cellOf(metadataValues.make),
    model: cellOf(metadataValues.model),
    year: cellOf(metadataValues.year),
    status: cellOf(metadataValues.status),
    providerStatus: cellOf(metadataValues.providerStatus),
    fuelType: cellOf(metadataValues.fuelType),
    sourceFuelType: cellOf(metadataValues.sourceFuelType),
    createdAt: cellOf(metadataValues.createdAt),
    updatedAt: cellOf(metadataValues.updatedAt),
    activeFrom: cellOf(metadataValues.activeFrom),
    activeTo: cellOf(metadataValues.activeTo),
    licensePlate: cellOf(metadataValues.licensePlate),
    licensePlateRegion: cellOf(metadataValues.licensePlateRegion),
    serialNumber: cellOf(metadataValues.serialNumber),
    groups: cellOf(metadataValues.groups),
  })
  .strict();

export const vehicleMetadataDataV1 = z
  .object({ version: z.literal(1), source: z.enum(['samsara:vehicles', 'motive:vehicles', 'geotab:Device']), fields: vehicleMetadataFieldsV1 })
  .strict();

export const VEHICLE_METADATA_RESPONSE_STATUSES = ['disabled', 'pending', 'not_in_current_roster', 'available', 'stale'] as const;

export const vehicleMetadataResponseV1 = z
  .object({
    vehicleId,
    status: z.enum(VEHICLE_METADATA_RESPONSE_STATUSES),
    data: vehicleMetadataDataV1.nullable(),
    fetchedAt: isoDateTimeV1.nullable(),
    rosterSeenAt: isoDateTimeV1.nullable(),
    retrieval: z.literal('stored'),
  })
  .strict();

export const getVehicleMetadataRequestV1 = z.object({ connectionId: z.uuid(), vehicleId }).strict();

export const DIRECTORY_VEHICLES_RPCS = {
  list: { subject: 'directory.read.vehicles.list', request: listVehiclesRequestV1, response: listVehiclesReplyV1 },
  get: { subject: 'directory.read.vehicles.get', request: getVehicleRequestV1, response: getVehicleReplyV1 },
  metadata: { subject: 'directory.read.vehicles.metadata', request: getVehicleMetadataRequestV1, response: vehicleMetadataResponseV1 },
} as const satisfies Record<string, RpcDefinition>;

export type VehicleEntityV1 = z.output<typeof vehicleEntityV1>;
export type CoreVehicleV1 = z.output<typeof coreVehicleV1>;
export type VehicleExpandV1 = z.output<typeof vehicleExpandV1>;
export type ListVehiclesRequestV1 = z.output<typeof listVehiclesRequestV1>;
export type ListVehiclesReplyV1 = z.output<typeof listVehiclesReplyV1>;
export type GetVehicleRequestV1 = z.output<typeof getVehicleRequestV1>;
export type GetVehicleReplyV1 = z.output<typeof getVehicleReplyV1>;
export type GetVehicleMetadataRequestV1 = z.output<typeof getVehicleMetadataRequestV1>;
export type VehicleMetadataResponseV1 = z.output<typeof vehicleMetadataResponseV1>;
