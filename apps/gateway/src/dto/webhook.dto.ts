/**
 * What the webhook endpoint routes validate on input (decision 0042): the endpoint create and
 * change bodies, the replay body, the delivery-log query. The responses are the zod schemas of
 * libs/messaging webhook.v1.ts. The event types are WEBHOOK_EVENT_TYPES, so the document and the
 * check cannot disagree.
 */
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_MESSAGE_STATES } from '@switchyard/messaging';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsString, IsUUID, Matches, MaxLength, ValidateIf } from 'class-validator';
import { Closed } from '../openapi/closed.js';

/** Page sizes of the delivery log. */
export const WEBHOOK_MESSAGES_PAGE = { min: 1, max: 100, default: 50 } as const;

const eventTypes: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
  minItems: 1,
  description: 'The event types to deliver (a repeated type counts once).',
};

const urlProperty = {
  type: 'string',
  format: 'uri',
  maxLength: 2048,
  description: 'Where events are POSTed. In production: https to a host name (no IP literal, no user information) whose addresses are all public; redirects are not followed.',
} as const;

@Closed()
export class CreateWebhookEndpointDto {
  @ApiProperty(urlProperty)
  @IsString()
  @MaxLength(2048)
  url!: string;

  @ApiProperty(eventTypes)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length * 4)
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  eventTypes!: (typeof WEBHOOK_EVENT_TYPES)[number][];

  @ApiPropertyOptional({ type: 'string', maxLength: 200, description: 'Your own note about the endpoint.' })
  @ValidateIf((o: CreateWebhookEndpointDto) => o.description !== undefined)
  @IsString()
  @MaxLength(200)
  description?: string;

  @ApiPropertyOptional({ type: 'boolean', default: true, description: 'false: created disabled (`manual`); nothing is delivered until it is enabled.' })
  @ValidateIf((o: CreateWebhookEndpointDto) => o.enabled !== undefined)
  @IsBoolean()
  enabled?: boolean;
}

@Closed()
export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional(urlProperty)
  @ValidateIf((o: UpdateWebhookEndpointDto) => o.url !== undefined)
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional(eventTypes)
  @ValidateIf((o: UpdateWebhookEndpointDto) => o.eventTypes !== undefined)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length * 4)
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  eventTypes?: (typeof WEBHOOK_EVENT_TYPES)[number][];

  @ApiPropertyOptional({ type: 'string', maxLength: 200, description: 'Your own note; an empty string removes it.' })
  @ValidateIf((o: UpdateWebhookEndpointDto) => o.description !== undefined)
  @IsString()
  @MaxLength(200)
  description?: string;

  @ApiPropertyOptional({
    type: 'boolean',
    description: 'true: enabled again (also after `gone` or `failing`; its pending messages are attempted at once, the failure window starts again); false: disabled (`manual`).',
  })
  @ValidateIf((o: UpdateWebhookEndpointDto) => o.enabled !== undefined)
  @IsBoolean()
  enabled?: boolean;
}

@Closed()
export class ReplayWebhookDto {
  @ApiPropertyOptional({ type: 'string', format: 'uuid', description: 'One event (its `id`, the `webhook-id` header).' })
  @ValidateIf((o: ReplayWebhookDto) => o.eventId !== undefined)
  @IsUUID()
  eventId?: string;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', description: 'Every event recorded at or after this time (the message\'s `recordedAt`).' })
  @ValidateIf((o: ReplayWebhookDto) => o.since !== undefined)
  @IsString()
  since?: string;

  @ApiPropertyOptional({ type: 'string', pattern: '^[1-9][0-9]{0,18}$', description: 'Every event from this position of the webhook log (the CloudEvents `sequence`), inclusive.' })
  @ValidateIf((o: ReplayWebhookDto) => o.fromSequence !== undefined)
  @IsString()
  @Matches(/^[1-9][0-9]{0,18}$/)
  fromSequence?: string;
}

export class ListWebhookMessagesQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: WEBHOOK_MESSAGES_PAGE.min, maximum: WEBHOOK_MESSAGES_PAGE.max, default: WEBHOOK_MESSAGES_PAGE.default, description: 'Page size.' })
  @ValidateIf((o: ListWebhookMessagesQueryDto) => o.limit !== undefined)
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ enum: WEBHOOK_MESSAGE_STATES, description: 'Only messages in this state.' })
  @ValidateIf((o: ListWebhookMessagesQueryDto) => o.state !== undefined)
  @IsIn(WEBHOOK_MESSAGE_STATES)
  state?: string;

  @ApiPropertyOptional({ type: 'string', description: 'The `next` of the previous page (same `state`).' })
  @ValidateIf((o: ListWebhookMessagesQueryDto) => o.cursor !== undefined)
  @IsString()
  cursor?: string;
}
