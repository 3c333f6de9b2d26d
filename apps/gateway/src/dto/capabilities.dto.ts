/** Capabilities of a connection's provider adapter (spec 2.8, 2.2, 2.3). */
import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { VEHICLE_METADATA_KEYS } from '@switchyard/contracts';

const SUPPORT = ['supported', 'conditional', 'unsupported'];

export class VehicleMetadataCapabilityDto {
  @ApiProperty({ enum: ['vehicleMetadata'] })
  optInConfig!: 'vehicleMetadata';

  @ApiProperty({ enum: [false], type: 'boolean' })
  defaultEnabled!: false;

  @ApiProperty({
    type: 'object',
    // `required` below is the inner object's key list, which the generator then takes for this
    // property's own flag (it left `fields` out of the parent's required list): say it explicitly.
    selfRequired: true,
    description: 'The 15 metadata keys, each conditional or unsupported for this provider.',
    properties: Object.fromEntries(VEHICLE_METADATA_KEYS.map((k) => [k, { type: 'string', enum: ['conditional', 'unsupported'] }])),
    required: [...VEHICLE_METADATA_KEYS],
    additionalProperties: false,
  })
  fields!: Record<string, 'conditional' | 'unsupported'>;
}

export class GroupInventoryCapabilityDto {
  @ApiProperty({ enum: ['groupInventory'] })
  optInConfig!: 'groupInventory';

  @ApiProperty({ enum: [false], type: 'boolean' })
  defaultEnabled!: false;

  @ApiProperty({ enum: ['explicit_approved_ids'] })
  selection!: 'explicit_approved_ids';

  @ApiProperty({ enum: [100], type: 'integer' })
  maxGroupIds!: 100;

  @ApiProperty({ enum: ['approved_groups_only'] })
  parentResolution!: 'approved_groups_only';

  @ApiProperty({ enum: ['unsupported'] })
  raw!: 'unsupported';

  @ApiProperty({ enum: ['unsupported'] })
  sourceTimestamps!: 'unsupported';
}

@ApiSchema({ description: "What the connection's provider adapter supports: per-field support, the fault model, and the vehicle metadata and group inventory opt-ins." })
export class CapabilitiesDto {
  @ApiProperty({ description: 'The connection id these capabilities describe.' })
  id!: string;

  @ApiProperty({ example: 'samsara-adapter/0.1.0' })
  adapterVersion!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: SUPPORT },
    description: 'Normalized field name → supported, conditional or unsupported.',
  })
  fields!: Record<string, string>;

  @ApiProperty({ enum: ['complete_snapshot', 'explicit_records'] })
  faultModel!: string;

  @ApiProperty({ type: VehicleMetadataCapabilityDto })
  vehicleMetadata!: VehicleMetadataCapabilityDto;

  @ApiProperty({ type: GroupInventoryCapabilityDto })
  groupInventory!: GroupInventoryCapabilityDto;

  @ApiProperty({ enum: ['native_feed', 'poll'], required: false })
  collection?: string;

  @ApiProperty({ type: [String], required: false })
  authentication?: string[];

  @ApiProperty({ type: [String], required: false })
  limitations?: string[];
}
