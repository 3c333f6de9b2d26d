/**
 * What every `directory.read.<resource>` request/reply endpoint shares (v1): the dataset status
 * block, the page request and reply frame, and the public vehicle shape used inside other
 * resources (ExpandedVehicle, spec 2.6). One file per resource (`directory-read-<resource>.v1.ts`)
 * builds on these and declares its RPCs.
 *
 * Decisions kept here:
 * - the directory answers with the PUBLIC shapes of spec 2 (strict zod mirrors, no extra
 *   properties), so the gateway adds only what it owns (the signed `next` cursor) and returns the rest;
 * - the page horizon is a PostgreSQL snapshot (`xmin:xmax:xip,…`) taken by the first page; later
 *   pages see only rows whose inserting transaction is visible in it, so rows written after the
 *   first page never shift a walk. Opaque to the gateway, which signs it into the cursor (same text
 *   format as the sync list horizon, so the same schema);
 * - `maxBytes` is the byte budget of the page's `results` as the directory serializes them; the
 *   gateway derives it from the 4,194,304-byte response limit minus its envelope reserve;
 * - the public shapes carry their OpenAPI component name and descriptions (`.meta({ id, description })`,
 *   `.describe()`): the gateway's document is generated from these schemas, never written again.
 *   `.meta()` comes last in a chain (`.strict()` or `.extend()` after it would drop the id). The
 *   wording every stored read shares (dataset times, status rules, the `next` cursor) lives here.
 */
import { groupIdSchema, RESPONSE_BYTE_LIMIT, vehicleIdSchema } from '@switchyard/contracts';
import { FUEL_TYPES, PROVIDERS, toWireDateTime, VEHICLE_VISIBILITIES } from '@switchyard/domain';
import { z } from 'zod';
import { pageCursorV1, wireDateTimeV1 } from './public-wire.v1.js';
import { syncListHorizonV1 } from './sync-api.v1.js';

export * from './public-wire.v1.js';

/** A date-time a request or keyset position carries, at full precision; public replies use wireDateTimeV1. */
export const isoDateTimeV1 = z.iso.datetime({ offset: true });

/**
 * Whether a stored time may be served as a public date-time: exactly what the reply schemas accept.
 * Stricter than libs/domain `isRfc3339DateTime`, which also passes lowercase `t`/`z` and a leap
 * second at any minute (RFC 3339 allows both); a mapper that admitted those would build a reply its
 * own schema refuses, failing the whole page (500) instead of reporting one value `invalid`.
 */
export const isWireDateTime = (v: unknown): v is string => isoDateTimeV1.safeParse(v).success;

/** A stored time as a mapper serves it: the wire format (public-wire.v1.ts) when the reply schemas accept it, else undefined. */
export const wireTimeOf = (v: unknown): string | undefined => (isWireDateTime(v) ? toWireDateTime(v) : undefined);

/** Stored datasets of the directory, as the ingest ledger names them. */
export const DIRECTORY_DATASETS = ['vehicles', 'drivers', 'groups', 'trips'] as const;
export type DirectoryDataset = (typeof DIRECTORY_DATASETS)[number];

export const DATASET_STATUSES = ['pending', 'available', 'stale', 'degraded'] as const;
export type DatasetStatus = (typeof DATASET_STATUSES)[number];

/** Status of one dataset of one connection (apps/directory dataset-status.service.ts says how each is derived). */
export const datasetStatusV1 = z
  .object({
    status: z.enum(DATASET_STATUSES),
    /** Provider fetch time of the newest committed batch of the dataset. */
    fetchedAt: wireDateTimeV1.nullable(),
    /** Provider fetch time of the last final page, i.e. of the last complete pass over the dataset. */
    capturedAt: wireDateTimeV1.nullable(),
    /** When the directory committed the dataset's newest batch (made it readable). */
    publishedAt: wireDateTimeV1.nullable(),
    /** Provider reason code of the failure that degrades the dataset; null otherwise. */
    errorCode: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/)
      .nullable(),
  })
  .strict();
export type DatasetStatusV1 = z.output<typeof datasetStatusV1>;

export const readHorizonV1 = syncListHorizonV1;

/** The frame of every page request: connection, size, byte budget and (after the first page) the horizon. */
export const readPageRequestFields = {
  connectionId: z.uuid(),
  limit: z.number().int().min(1).max(100),
  maxBytes: z.number().int().min(1024).max(RESPONSE_BYTE_LIMIT),
  horizon: readHorizonV1.optional(),
};

/** The frame of every page reply: the dataset status, the horizon the page used, and whether more rows follow. */
export const readPageReplyFields = {
  dataset: datasetStatusV1,
  horizon: readHorizonV1,
  hasMore: z.boolean(),
};

/** One wording of the dataset times and status for every stored read, so each resource documents them the same. */
export const DATASET_TIMES = {
  fetchedAt: 'When the provider data behind this answer was fetched: the fetch time of the newest committed batch of the dataset; null before the first.',
  capturedAt: 'When the last complete pass over the dataset was fetched (the fetch time of its final page); null before the first complete pass.',
  publishedAt: 'When Switchyard committed the newest batch of the dataset and made it readable; null before the first. A page walk keeps the rows that existed when its first page was read.',
  errorCode: 'The provider reason code (e.g. `provider_throttled`) while the newest collection attempt of this dataset (its provider fetch) failed (status `degraded`); null otherwise.',
} as const;

export const STATUS_RULES =
  '`pending`: nothing committed for this dataset yet. `available`: stored data is served. `stale`: the newest batch was fetched more than 15 minutes (3 scheduler windows) ago. `degraded`: the newest collection attempt of this dataset (its provider fetch) failed (see errorCode); stored data is still served.';

/** A dataset time of a public page (nullable date-time with its shared wording). */
export const datasetTimeV1 = (time: 'fetchedAt' | 'capturedAt' | 'publishedAt') => wireDateTimeV1.nullable().describe(DATASET_TIMES[time]);
/** The dataset errorCode of a public page. */
export const datasetErrorCodeV1 = () => datasetStatusV1.shape.errorCode.describe(DATASET_TIMES.errorCode);
/** `retrieval` of every stored read. */
export const storedRetrievalV1 = () => z.literal('stored').describe('Always `stored`: served from stored data, no provider is contacted.');

/** The signed cursor the gateway issues for the next page of a public stored read. */
export const cursorV1 = pageCursorV1;
export const nextCursorText = (what: string, onLastPage = 'absent on the last page') =>
  `Opaque cursor of the next ${what}; ${onLastPage}. Pass it back as \`cursor\` with unchanged filters (limit and expand may change). It is tied to the consumer key's current grant, the connection, the filters and the walk's publication horizon: rows committed after the first page do not appear in the walk. Otherwise 400 \`invalid_cursor\`; it expires after 24 hours.`;
export const nextCursorV1 = (what: string) => cursorV1.describe(nextCursorText(what));

const maxText = z.string().max(1024);
const addedAt = (what: string) => wireDateTimeV1.describe(`Fetch time of the first batch that carried the ${what}.`);
/** `metadata.addedAt` / `modifiedAt` of a stored record, described once. */
export const addedModifiedFields = (what: string) => ({ addedAt: addedAt(what), modifiedAt: wireDateTimeV1.describe('Fetch time of the last batch that changed it.') });

/** ExpandedVehicle (spec 2.6): VehicleEntity with `groups` as group ids only. VehicleEntity extends it. */
export const expandedVehicleV1 = z
  .object({
    id: vehicleIdSchema,
    sourceId: z.string().min(1).describe("The provider's vehicle id."),
    provider: z.enum(PROVIDERS),
    status: z
      .enum(['active', 'inactive'])
      .describe(
        "The provider's reported status. A provider that reports none (Samsara) gets one derived from the roster (`derived_from_roster`, named in the metadata status cell's source): `active` while the last complete roster pass lists the vehicle, `inactive` once a complete pass no longer does.",
      ),
    name: maxText.optional(),
    vin: maxText.optional(),
    make: maxText.optional(),
    model: maxText.optional(),
    year: z.number().int().min(1886).max(2200).optional(),
    fuelType: z.enum(FUEL_TYPES).optional(),
    licensePlate: z.object({ number: z.string().optional(), state: z.string().optional() }).strict().optional(),
    createdAt: wireDateTimeV1.optional(),
    updatedAt: wireDateTimeV1.optional(),
    groups: z
      .array(groupIdSchema)
      .max(1000)
      .meta({ uniqueItems: true })
      .describe('Group ids of the reported memberships.')
      .optional(),
    groupMembership: z
      .object({
        status: z.enum(['available', 'not_authorized', 'pending', 'missing', 'invalid', 'partial', 'stale', 'degraded']),
        scope: z.literal('credential_visible_directory'),
        sourceScope: z.literal('credential_visible_reported_memberships'),
        capturedAt: wireDateTimeV1.nullable().describe('When the memberships were fetched with the vehicle.'),
        directoryFetchedAt: wireDateTimeV1.nullable().describe('Fetch time of the newest committed batch of the group directory.'),
      })
      .strict()
      .optional(),
    metadata: z.object({ ...addedModifiedFields('vehicle'), visibility: z.enum(VEHICLE_VISIBILITIES) }).strict(),
  })
  .strict()
  .meta({ id: 'ExpandedVehicle', description: 'A stored vehicle inside another resource (spec 2.6): VehicleEntity with group ids only.' });
export type ExpandedVehicleV1 = z.output<typeof expandedVehicleV1>;
