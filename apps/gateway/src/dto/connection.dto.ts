/** Connection (spec 2.8): identity plus the health fields written by collection. */
import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PROVIDERS, WIRE_DATE_TIME_PATTERN } from '@switchyard/domain';

@ApiSchema({ description: 'The connection: its identity, collection state and the health of the last provider collection.' })
export class ConnectionDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'The fleet customer that authorized this connection.' })
  customer_id!: string;

  @ApiProperty({ enum: PROVIDERS })
  provider!: string;

  @ApiProperty({
    enum: ['active', 'paused', 'disconnected'],
    description: 'Collection state. A connection must be `paused` before a connect session can be created.',
  })
  status!: string;

  @ApiProperty({ type: 'string', format: 'date-time', pattern: WIRE_DATE_TIME_PATTERN, nullable: true, required: false, description: 'Last successful provider collection.' })
  last_success_at!: string | null;

  @ApiProperty({ type: 'string', nullable: true, required: false, description: 'Reason code of the last failed collection, e.g. `provider_throttled`.' })
  last_error_code!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', pattern: WIRE_DATE_TIME_PATTERN, nullable: true, required: false })
  extended_last_success_at!: string | null;

  @ApiProperty({ type: 'string', nullable: true, required: false })
  extended_last_error_code!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', pattern: WIRE_DATE_TIME_PATTERN, nullable: true, required: false })
  extended_next_retry_at!: string | null;
}
