/**
 * Pieces every stored-read DTO shares (trips, drivers, groups, vehicles): the meaning of the
 * dataset times and status (one wording, so every resource documents them the same), the cursor
 * property, the `expand` parameter, and ExpandedVehicle (spec 2.6), which trips embed and
 * VehicleEntity extends.
 */
import { ApiProperty, ApiPropertyOptional, ApiSchema, type ApiPropertyOptions } from '@nestjs/swagger';
import { CURSOR_PATTERN, FUEL_TYPES } from '@switchyard/contracts';
import { ID_PATTERNS, PROVIDERS, VEHICLE_VISIBILITIES } from '@switchyard/domain';
import { Closed } from '../openapi/closed.js';

export const DATASET_TIMES = {
  fetchedAt: 'When the provider data behind this answer was fetched: the fetch time of the newest committed batch of the dataset; null before the first.',
  capturedAt: 'When the last complete pass over the dataset was fetched (the fetch time of its final page); null before the first complete pass.',
  publishedAt: 'When Switchyard committed the newest batch of the dataset and made it readable; null before the first. A page walk keeps the rows that existed when its first page was read.',
  errorCode: 'The provider reason code (e.g. `provider_throttled`) while the newest collection attempt of this dataset (its provider fetch) failed (status `degraded`); null otherwise.',
} as const;

/**
 * The `expand` query parameter of a stored read: one parameter holding a comma-separated list
 * (OpenAPI `style: form`, `explode: false`) of references, each one of `allowed` — the tuple the
 * route's controller hands to read-query.ts `parseExpand`, so the document and the check cannot
 * disagree; any other value is 400 `invalid_query`.
 */
export function expandParameter(allowed: readonly string[], description: string): ApiPropertyOptions {
  // style/explode are parameter fields the property options do not type; Nest copies them onto the parameter.
  const parameter = { style: 'form', explode: false };
  return { type: 'array', items: { type: 'string', enum: [...allowed] }, minItems: 1, description, ...parameter } as ApiPropertyOptions;
}

export const STATUS_RULES =
  '`pending`: nothing committed for this dataset yet. `available`: stored data is served. `stale`: the newest batch was fetched more than 15 minutes (3 scheduler windows) ago. `degraded`: the newest collection attempt of this dataset (its provider fetch) failed (see errorCode); stored data is still served.';

export const NEXT_CURSOR = (what: string) =>
  ({
    type: 'string',
    pattern: CURSOR_PATTERN,
    description: `Opaque cursor of the next ${what}; absent on the last page. Pass it back as \`cursor\` with unchanged filters (limit and expand may change). It is tied to the consumer key's current grant, the connection, the filters and the walk's publication horizon: rows committed after the first page do not appear in the walk. Otherwise 400 \`invalid_cursor\`; it expires after 24 hours.`,
  }) as const;

const maxText = { type: 'string', maxLength: 1024 } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;

@Closed()
@ApiSchema({ description: 'A stored vehicle inside another resource (spec 2.6): VehicleEntity with group ids only.' })
export class ExpandedVehicleDto {
  @ApiProperty({ pattern: ID_PATTERNS.vehicle })
  id!: string;

  @ApiProperty({ description: "The provider's vehicle id." })
  sourceId!: string;

  @ApiProperty({ enum: PROVIDERS })
  provider!: string;

  @ApiProperty({ enum: ['active', 'inactive'] })
  status!: string;

  @ApiPropertyOptional(maxText)
  name?: string;

  @ApiPropertyOptional(maxText)
  vin?: string;

  @ApiPropertyOptional(maxText)
  make?: string;

  @ApiPropertyOptional(maxText)
  model?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1886, maximum: 2200 })
  year?: number;

  @ApiPropertyOptional({ enum: FUEL_TYPES })
  fuelType?: string;

  @ApiPropertyOptional({ type: 'object', properties: { number: { type: 'string' }, state: { type: 'string' } }, additionalProperties: false })
  licensePlate?: { number?: string; state?: string };

  @ApiPropertyOptional(dateTime)
  createdAt?: string;

  @ApiPropertyOptional(dateTime)
  updatedAt?: string;

  @ApiPropertyOptional({ type: 'array', uniqueItems: true, maxItems: 1000, items: { type: 'string', pattern: ID_PATTERNS.group }, description: 'Group ids of the reported memberships.' })
  groups?: string[];

  @ApiProperty({
    type: 'object',
    selfRequired: false,
    properties: {
      status: { type: 'string', enum: ['available', 'not_authorized', 'pending', 'missing', 'invalid', 'partial', 'stale', 'degraded'] },
      scope: { type: 'string', enum: ['credential_visible_directory'] },
      sourceScope: { type: 'string', enum: ['credential_visible_reported_memberships'] },
      capturedAt: { type: 'string', nullable: true, format: 'date-time', description: 'When the memberships were fetched with the vehicle.' },
      directoryFetchedAt: { type: 'string', nullable: true, format: 'date-time', description: 'Fetch time of the newest committed batch of the group directory.' },
    },
    required: ['status', 'scope', 'sourceScope', 'capturedAt', 'directoryFetchedAt'],
    additionalProperties: false,
  })
  groupMembership?: Record<string, unknown>;

  @ApiProperty({
    type: 'object',
    properties: {
      addedAt: { ...dateTime, description: 'Fetch time of the first batch that carried the vehicle.' },
      modifiedAt: { ...dateTime, description: 'Fetch time of the last batch that changed it.' },
      visibility: { type: 'string', enum: VEHICLE_VISIBILITIES },
    },
    required: ['addedAt', 'modifiedAt', 'visibility'],
    selfRequired: true,
    additionalProperties: false,
  })
  metadata!: { addedAt: string; modifiedAt: string; visibility: string };
}
