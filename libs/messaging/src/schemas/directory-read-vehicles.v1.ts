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
 * - the metadata reply is the public VehicleMetadataResponse minus nothing, as JSON text: every one
 *   of the 15 cells is present, available cells carry a bounded value, unavailable ones `value: null`;
 * - every reply is framed (framed-reply.ts): the bodies are the JSON text the directory's PostgreSQL
 *   rendered, forwarded by the gateway as bytes.
 * Errors: `not_found` (no such vehicle on this connection, or hidden by its visibility rules),
 * `service_unavailable` (migrations pending), plus the bus's own codes.
 */
import { groupIdSchema, PAGE_RANGES, vehicleIdSchema } from '@switchyard/contracts';
import { FUEL_TYPES, VEHICLE_METADATA_BOUNDS, type VehicleMetadataKey } from '@switchyard/domain';
import { z } from 'zod';
import { framedReply } from '../framed-reply.js';
import { flatGroupV1 } from './directory-read-groups.v1.js';
import {
  cursorV1,
  datasetErrorCodeV1,
  datasetTimeV1,
  expandedVehicleV1,
  nextCursorText,
  nextCursorV1,
  readPageReplyFields,
  readPageRequestFields,
  storedRetrievalV1,
  wireDateTimeV1,
} from './directory-read.v1.js';

const { stringMax, yearMin, yearMax, groupIdMax, groupsMax } = VEHICLE_METADATA_BOUNDS;

/** VehicleEntity (spec 2.6): ExpandedVehicle whose groups may be expanded. */
export const vehicleEntityV1 = expandedVehicleV1
  .extend({
    groups: z
      .array(z.union([groupIdSchema, flatGroupV1]))
      .max(groupsMax)
      .meta({ uniqueItems: true })
      .describe(
        'Group ids of the reported memberships; with `expand=groups` each group Switchyard has stored is expanded (a group not stored yet stays an id). Absent when the memberships are unknown (see groupMembership.status).',
      )
      .optional(),
  })
  .strict()
  .meta({ id: 'VehicleEntity', description: 'A stored account-bound vehicle profile (spec 2.6).' });

/** Vehicle (core asset, spec 2.6). */
export const coreVehicleV1 = z
  .object({
    id: vehicleIdSchema.describe(
      'The vehicle id (`vcl_`) every other vehicle route takes (…/vehicles/{vehicleId}, /metadata, trips `vehicleIds`). Switchyard adds it to the spec\'s core asset (decision 0017); the single read answers 404 for a vehicle whose status is unknown (not reported, or — where the provider reports none — before a complete roster pass listed it: it is no VehicleEntity), its metadata and trips are served.',
    ),
    provider_id: z.string().min(1).describe("The provider's vehicle id."),
    name: z.string().describe('The provider-reported vehicle name; the provider id when the provider reports none (the name is required and has no status).'),
    vin: z.string().nullable().describe('The provider-reported VIN; null when unknown.'),
  })
  .strict()
  .meta({ id: 'CoreVehicle', description: 'A core asset (spec 2.6 Vehicle: provider_id, name, vin) with its Switchyard vehicle id.' });

export const VEHICLE_LIST_VIEWS = ['assets', 'profiles'] as const;
export type VehicleListView = (typeof VEHICLE_LIST_VIEWS)[number];

export const vehicleExpandV1 = z.object({ groups: z.boolean() }).strict();

export const listVehiclesRequestV1 = z
  .object({
    ...readPageRequestFields,
    view: z.enum(VEHICLE_LIST_VIEWS),
    expand: vehicleExpandV1,
    /** Keyset position: the id of the last vehicle served (ascending id). */
    after: vehicleIdSchema.optional(),
  })
  .strict();

/** A framed reply (framed-reply.ts): the walk and dataset in `meta`, the CoreVehicle (`view: assets`) or VehicleEntity (`view: profiles`) array as JSON text in `body`. */
export const listVehiclesReplyV1 = framedReply(
  z
    .object({
      ...readPageReplyFields,
      /** The id of the last vehicle served; present exactly when hasMore. */
      next: vehicleIdSchema.optional(),
    })
    .strict(),
);

/** Vehicles (`view=assets`): the gateway's page of core assets. */
export const vehiclesPageV1 = z
  .object({
    vehicles: z.array(coreVehicleV1).max(PAGE_RANGES.vehicleProfiles.max),
    nextCursor: cursorV1.nullable().describe(nextCursorText('page of vehicles', 'null on the last page')),
  })
  .strict()
  .meta({ id: 'Vehicles', description: 'Core assets of the connection (`view=assets`), ascending vehicle id; vehicles hidden by the connection visibility rules are absent.' });

/** A profile page has no `stale`: the directory reports stored profiles `available` and publishedAt says how old. */
export const VEHICLE_PROFILE_PAGE_STATUSES = ['pending', 'available', 'degraded'] as const;

/** VehicleProfilePage (`view=profiles`): the gateway's page of VehicleEntity profiles. */
export const vehicleProfilePageV1 = z
  .object({
    status: z
      .enum(VEHICLE_PROFILE_PAGE_STATUSES)
      .describe(
        '`pending`: no vehicles committed for the connection yet. `available`: stored profiles are served (publishedAt tells their age). `degraded`: the newest collection attempt of this dataset (its provider fetch) failed (see errorCode); stored profiles are still served.',
      ),
    retrieval: storedRetrievalV1(),
    results: z
      .array(vehicleEntityV1)
      .max(PAGE_RANGES.vehicleProfiles.max)
      .describe('Visible vehicles only (hidden ones are absent). A stored vehicle whose status is unknown (not reported, or — where the provider reports none and it is derived from the roster — before a complete roster pass listed it) is not a profile (status is required) and appears only in `view=assets`.'),
    next: nextCursorV1('page of vehicle profiles').optional(),
    publishedAt: datasetTimeV1('publishedAt'),
    errorCode: datasetErrorCodeV1(),
    selection: z.literal('approved_source_vehicle_ids').describe('The profiles are of the vehicles collected for the connection: its approved source vehicle ids.'),
    completeness: z.literal('not_established').describe('Whether the stored roster is the complete fleet is not established.'),
  })
  .strict()
  .meta({
    id: 'VehicleProfilePage',
    description: 'Account-bound vehicle profiles of the connection (`view=profiles`), ascending vehicle id; at most 100 and at most 4,194,304 bytes per response.',
  });

export const getVehicleRequestV1 = z.object({ connectionId: z.uuid(), vehicleId: vehicleIdSchema, expand: vehicleExpandV1 }).strict();
/** A framed reply (framed-reply.ts): the VehicleEntity as JSON text. */
export const getVehicleReplyV1 = framedReply(z.object({}).strict());

const cellSource = z
  .string()
  .min(1)
  .max(1024)
  .describe('Where the value came from (provider field path). A value Switchyard derived names the derivation after it, e.g. `samsara:vehicles(derived_from_roster)`: a status derived from the roster.');
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
  createdAt: wireDateTimeV1,
  updatedAt: wireDateTimeV1,
  activeFrom: wireDateTimeV1,
  activeTo: wireDateTimeV1,
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
  .strict()
  .describe(
    'All 15 cells, each `available` with a value or `missing` / `unsupported` / `invalid` with value null. A stored value outside the bounds (length 1-1024, year 1886-2200, the fuel enum, RFC 3339 times, at most 1000 groups) is served as `invalid`.',
  );

export const vehicleMetadataDataV1 = z
  .object({
    version: z.literal(1).describe('Always 1.'),
    source: z.enum(['samsara:vehicles', 'motive:vehicles', 'geotab:Device']).describe('The provider resource the metadata comes from.'),
    fields: vehicleMetadataFieldsV1,
  })
  .strict()
  .meta({ id: 'VehicleMetadata', description: 'Stored vehicle metadata (spec 2.3).' });

export const VEHICLE_METADATA_RESPONSE_STATUSES = ['disabled', 'pending', 'not_in_current_roster', 'available', 'stale'] as const;

export const vehicleMetadataResponseV1 = z
  .object({
    vehicleId: vehicleIdSchema,
    status: z
      .enum(VEHICLE_METADATA_RESPONSE_STATUSES)
      .describe(
        '`disabled`: the connection has not opted in to `vehicleMetadata` (data null). `pending`: no complete vehicle roster pass has listed this vehicle yet — it is not stored while no pass completed, or only an unfinished pass has carried it (data null); it enters the roster when that pass completes. `not_in_current_roster`: an earlier complete roster pass listed the vehicle, the last complete pass did not; its last known metadata is served. `stale`: the vehicle roster was fetched more than 15 minutes (3 scheduler windows) ago. `available` otherwise.',
      ),
    data: vehicleMetadataDataV1.nullable(),
    fetchedAt: wireDateTimeV1.nullable().describe('When the stored version of the vehicle was fetched from the provider; null without data.'),
    rosterSeenAt: wireDateTimeV1.nullable().describe('The final-page provider fetch of the newest complete roster pass that listed the vehicle; null without data.'),
    retrieval: z.literal('stored').describe('Always `stored`: no provider is contacted.'),
  })
  .strict()
  .meta({ id: 'VehicleMetadataResponse', description: 'Stored metadata of one vehicle (spec 2.3); opt-in `vehicleMetadata`.' });

export const getVehicleMetadataRequestV1 = z.object({ connectionId: z.uuid(), vehicleId: vehicleIdSchema }).strict();
/** A framed reply: the VehicleMetadataResponse as JSON text (its cells rendered by the directory's PostgreSQL). */
export const getVehicleMetadataReplyV1 = framedReply(z.object({}).strict());


export type VehicleEntityV1 = z.output<typeof vehicleEntityV1>;
export type CoreVehicleV1 = z.output<typeof coreVehicleV1>;
export type VehiclesPageV1 = z.output<typeof vehiclesPageV1>;
export type VehicleProfilePageV1 = z.output<typeof vehicleProfilePageV1>;
export type VehicleExpandV1 = z.output<typeof vehicleExpandV1>;
export type ListVehiclesRequestV1 = z.output<typeof listVehiclesRequestV1>;
export type ListVehiclesReplyV1 = z.output<typeof listVehiclesReplyV1>;
export type GetVehicleRequestV1 = z.output<typeof getVehicleRequestV1>;
export type GetVehicleReplyV1 = z.output<typeof getVehicleReplyV1>;
export type GetVehicleMetadataRequestV1 = z.output<typeof getVehicleMetadataRequestV1>;
export type GetVehicleMetadataReplyV1 = z.output<typeof getVehicleMetadataReplyV1>;
export type VehicleMetadataResponseV1 = z.output<typeof vehicleMetadataResponseV1>;
