/**
 * Vehicle enrichment (spec 2.4, 4.2): the public shapes of the four products — identity (decoded
 * offline from the VIN with NHTSA vPIC data), images, specifications and build (from the
 * enrichment vendor) — each an EnrichmentValue with its own status, and the one request/reply the
 * gateway sends the enrichment context (`enrichment.read.profile`): the whole VehicleProfile, from
 * which the gateway takes a product's EnrichmentSection. docs/enrichment.md tells each status.
 * Also the directory's `events.vehicle.vin.<connectionId>` (the VIN projection's source).
 */
import { vehicleIdSchema } from '@switchyard/contracts';
import { z } from 'zod';
import { framedReply } from '../framed-reply.js';
import { wireDateTimeV1 } from './public-wire.v1.js';

export const ENRICHMENT_PRODUCTS = ['identity', 'images', 'specifications', 'build'] as const;
export type EnrichmentProduct = (typeof ENRICHMENT_PRODUCTS)[number];

export const ENRICHMENT_STATUSES = ['disabled', 'pending', 'available', 'missing', 'failed', 'blocked', 'missing_vin', 'invalid_vin'] as const;
export type EnrichmentStatus = (typeof ENRICHMENT_STATUSES)[number];

const text = z.string().nullable();
const flag = z.boolean().nullable();

export const vehicleIdentityV1 = z
  .object({
    vin: z.string().describe('The VIN as decoded: trimmed and upper-cased.'),
    year: z.number().int().nullable().describe('Model year from position 10 (30-year cycle); null when the cycle stays ambiguous or position 10 is not a year code.'),
    make: text,
    model: text,
    manufacturer: text,
    trim: text,
    style: text.describe('vPIC "Series" (the manufacturer\'s series or sub-model name), null when vPIC has none.'),
    body: text.describe('vPIC body class as published.'),
    engine: text.describe('Displacement, configuration, cylinders, fuel and engine model as vPIC publishes them, as text.'),
    drivetrain: text,
    transmission: text,
    vinValid: flag.describe('Structure (17 characters of 0-9/A-Z without I, O, Q) and check digit both valid.'),
    checksum: flag.describe('The check digit (position 9) matches; null when the structure is already invalid.'),
    ambiguous: flag.describe('vPIC allows several answers for at least one attribute (that attribute is null, or lists the alternatives as vPIC does for trims).'),
    yearAmbiguous: flag.describe('Two model years of the 30-year cycle remain possible (year is null).'),
  })
  .strict()
  .meta({ id: 'VehicleIdentity', description: 'What the VIN itself says, decoded offline with NHTSA vPIC data (spec 2.4).' });

export const vehicleImagesV1 = z
  .object({
    images: z.array(z.object({ url: z.url(), kind: z.literal('vin_listing'), source: z.string() }).strict()),
  })
  .strict()
  .meta({ id: 'VehicleImages', description: 'Listing images of the VIN from the enrichment vendor (spec 2.4).' });

export const vehicleSpecificationsV1 = z
  .object({
    vin: z.string(),
    name: z.string().nullable(),
    seatingCapacity: z.number().int().min(0).nullable(),
    measurementFormat: z.literal('provider_text'),
    categories: z
      .record(z.string(), z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])))
      .describe('Specification categories as the vendor reports them; measurements keep their reported units as text and are not normalized counters.'),
  })
  .strict()
  .meta({ id: 'VehicleSpecifications', description: 'Vendor specifications of the VIN (spec 2.4).' });

const strings = z.record(z.string(), z.string());
export const vehicleBuildV1 = z
  .object({
    vin: z.string(),
    make: z.string().optional(),
    model: z.string().optional(),
    manufacturer: z.string().optional(),
    trim: z.string().optional(),
    series: z.string().optional(),
    style: z.string().optional(),
    drivetrain: z.string().optional(),
    engine: z.string().optional(),
    transmission: z.string().optional(),
    year: z.number().int().optional(),
    confidence: z.number().min(0).max(1).optional(),
    interiorColor: strings.optional(),
    exteriorColor: strings.optional(),
    options: strings.optional(),
    headUpDisplay: z.boolean().optional(),
    rainSensingWipers: z.boolean().optional(),
  })
  .strict()
  .meta({ id: 'VehicleBuild', description: 'The build sheet of the VIN from the enrichment vendor (spec 2.4).' });

export const ENRICHMENT_STATUS_TEXT =
  '`available`: data present. `pending`: not produced yet (a VIN just learned, the vendor not asked yet). `missing`: the source does not know this VIN. `failed`: the source failed (errorCode says how; the last good data is not served). `blocked`: the product is not licensed for this deployment. `disabled`: the product is switched off (no vendor configured). `missing_vin`: the vehicle has no VIN. `invalid_vin`: the VIN fails its structure or check digit (never decoded, never sent to the vendor).';

const enrichmentFields = <T extends z.ZodType>(data: T) => ({
  status: z.enum(ENRICHMENT_STATUSES).describe(ENRICHMENT_STATUS_TEXT),
  data: data.nullable(),
  source: z.string().describe('Where the product comes from: `nhtsa_vpic` for identity, the vendor name for the others.'),
  adapterVersion: z.string().nullable().describe('Version of the adapter (dataset package or vendor client) that produced the value.'),
  fetchedAt: wireDateTimeV1.nullable().describe('When the value was produced; null while nothing was.'),
  errorCode: z.string().nullable().describe('Reason code of `failed`, `blocked`, `disabled`, `missing` and `invalid_vin`; null otherwise.'),
});

const identityValueV1 = z.object(enrichmentFields(vehicleIdentityV1)).strict().meta({ id: 'IdentityEnrichmentValue', description: 'EnrichmentValue of the identity product.' });
const imagesValueV1 = z.object(enrichmentFields(vehicleImagesV1)).strict().meta({ id: 'ImagesEnrichmentValue', description: 'EnrichmentValue of the images product.' });
const specificationsValueV1 = z
  .object(enrichmentFields(vehicleSpecificationsV1))
  .strict()
  .meta({ id: 'SpecificationsEnrichmentValue', description: 'EnrichmentValue of the specifications product.' });
const buildValueV1 = z.object(enrichmentFields(vehicleBuildV1)).strict().meta({ id: 'BuildEnrichmentValue', description: 'EnrichmentValue of the build product.' });

export const vehicleProfileV1 = z
  .object({
    vehicleId: vehicleIdSchema,
    vin: z.string().nullable().describe('The VIN the provider reports (trimmed and upper-cased), null when it reports none.'),
    identity: identityValueV1,
    images: imagesValueV1,
    specifications: specificationsValueV1,
    build: buildValueV1,
  })
  .strict()
  .meta({ id: 'VehicleProfile', description: 'The four enrichment products of one vehicle, each with its own status (spec 2.4). Served from the enrichment cache; no read waits on the vendor.' });

const sectionHead = { vehicleId: vehicleIdSchema, vin: z.string().nullable() };
export const enrichmentSectionV1 = z
  .discriminatedUnion('product', [
    z.object({ ...sectionHead, product: z.literal('identity'), ...enrichmentFields(vehicleIdentityV1) }).strict(),
    z.object({ ...sectionHead, product: z.literal('images'), ...enrichmentFields(vehicleImagesV1) }).strict(),
    z.object({ ...sectionHead, product: z.literal('specifications'), ...enrichmentFields(vehicleSpecificationsV1) }).strict(),
    z.object({ ...sectionHead, product: z.literal('build'), ...enrichmentFields(vehicleBuildV1) }).strict(),
  ])
  .meta({ id: 'EnrichmentSection', description: 'One enrichment product of one vehicle: its EnrichmentValue with the vehicle id, VIN and product (spec 2.4).' });

/** `product` asks for that product's EnrichmentSection instead of the whole VehicleProfile. */
export const getVehicleProfileRequestV1 = z.object({ connectionId: z.uuid(), vehicleId: vehicleIdSchema, product: z.enum(ENRICHMENT_PRODUCTS).optional() }).strict();
/** A framed reply (framed-reply.ts): the VehicleProfile, or the EnrichmentSection asked for, as JSON text rendered by PostgreSQL. */
export const getVehicleProfileReplyV1 = framedReply(z.object({}).strict());

/**
 * `events.vehicle.vin.<connectionId>` v1 (directory → enrichment): a stored vehicle's VIN as the
 * directory holds it after a vehicles batch committed — published for a vehicle first stored and
 * whenever its VIN changes (null when the provider reports none). `sequence` increases per vehicle;
 * a consumer keeps the highest and drops the rest (redelivery and reordering are harmless).
 */
export const vehicleVinChangedV1 = z
  .object({
    connectionId: z.uuid(),
    vehicleId: vehicleIdSchema,
    vin: z.string().min(1).nullable(),
    sequence: z.string().regex(/^[1-9]\d{0,18}$/),
    changedAt: z.iso.datetime({ offset: true }),
  })
  .strict();

export type VehicleIdentityV1 = z.output<typeof vehicleIdentityV1>;
export type VehicleImagesV1 = z.output<typeof vehicleImagesV1>;
export type VehicleSpecificationsV1 = z.output<typeof vehicleSpecificationsV1>;
export type VehicleBuildV1 = z.output<typeof vehicleBuildV1>;
export type VehicleProfileV1 = z.output<typeof vehicleProfileV1>;
export type EnrichmentSectionV1 = z.output<typeof enrichmentSectionV1>;
export type GetVehicleProfileRequestV1 = z.output<typeof getVehicleProfileRequestV1>;
export type GetVehicleProfileReplyV1 = z.output<typeof getVehicleProfileReplyV1>;
export type VehicleVinChangedV1 = z.output<typeof vehicleVinChangedV1>;
