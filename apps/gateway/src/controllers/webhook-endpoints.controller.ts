/**
 * The webhook endpoint routes under /v1/webhooks/endpoints (issue 29, decision 0042): additions
 * beyond the contract's 36 operations, each saying so in its description and carrying
 * `x-switchyard-addition: true`, so the contract's operations (the catalog's table) stay exactly
 * what they were. Authenticated by the application secret alone (the endpoints are the
 * application's, not one connection's). Thin: validate, delegate to WebhookEndpointsService (the
 * operator CLI's too), sign the delivery log's cursor.
 */
import { Body, Controller, Delete, Get, HttpCode, Inject, Patch, Post, Query, Req } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBody, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { decodeCursor, encodeCursor, filtersHash, type CursorBinding } from '@switchyard/contracts';
import {
  nextPageLink,
  webhookEndpointsV1,
  webhookEndpointV1,
  webhookEndpointWithSecretV1,
  webhookMessagesV1,
  webhookReplayV1,
  type WebhookEndpointV1,
} from '@switchyard/messaging';
import { z } from 'zod';
import { ApplicationOwnerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { ApplicationOwnerPrincipal, AuthenticatedRequest } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { CreateWebhookEndpointDto, ListWebhookMessagesQueryDto, ReplayWebhookDto, UpdateWebhookEndpointDto, WEBHOOK_MESSAGES_PAGE } from '../dto/webhook.dto.js';
import { ApiError, invalid } from '../http/api-error.js';
import { EntityId } from '../http/entity-ids.js';
import { NO_BODY_ROUTE } from '../http/error.filter.js';
import { parseInstant } from '../http/instant.js';
import { requireNoBody } from '../http/no-body.js';
import { apiAddition } from '../openapi/addition.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { limitOf } from '../services/read-query.js';
import { WEBHOOK_ENDPOINTS_PER_APPLICATION, WebhookEndpointsService } from '../services/webhook-endpoints.service.js';

/** Every operation here starts with this sentence (the OpenAPI test holds them to it). */
const addition = apiAddition('(webhooks, issue 29; docs/webhooks.md).');

const err = (status: number, description: string) => ApiResponse({ status, description, type: ErrorBodyDto });
const NOT_FOUND = err(404, 'No such endpoint of this application — unknown, malformed, or another application\'s id (`not_found`).');
const BAD_BODY = (what: string) => err(400, `Not a JSON object, an unknown property, or a bad value (\`invalid_body\`; \`Switchyard-Error-Detail\` names it): ${what}`);
const URL_RULE = 'a `url` that does not parse, has a fragment, or that this deployment would not send to (production: https to a host name, no IP literal or user information)';
const ENDPOINT_ID = ApiParam({ name: 'endpointId', description: 'Endpoint id (uuid).', schema: { type: 'string', format: 'uuid' } });

const cursorPayload = z.object({ s: z.string().regex(/^\d{1,19}$/) }).strict();

@ApiTags('webhooks')
@Controller('v1/webhooks/endpoints')
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  @Post()
  @HttpCode(201)
  @ApplicationOwnerAuth()
  @addition('Create a webhook endpoint', 'createWebhookEndpoint', `Events of the types named, of every connection the application holds a Connection-Token for, are POSTed to \`url\` as CloudEvents signed per Standard Webhooks with the secret in the answer (shown only here). At most ${WEBHOOK_ENDPOINTS_PER_APPLICATION} endpoints per application.`)
  @ApiBody({ type: CreateWebhookEndpointDto })
  @ApiZodResponse(201, webhookEndpointWithSecretV1)
  @BAD_BODY(URL_RULE)
  @err(409, `The application already has ${WEBHOOK_ENDPOINTS_PER_APPLICATION} endpoints (\`too_many_webhook_endpoints\`).`)
  create(@Principal('application-owner') principal: ApplicationOwnerPrincipal, @Body() dto: CreateWebhookEndpointDto) {
    return this.endpoints.create(principal.applicationId, dto);
  }

  @Get()
  @ApplicationOwnerAuth()
  @addition('List the webhook endpoints', 'listWebhookEndpoints', 'Every endpoint of the application, oldest first (secrets as ids only).')
  @ApiZodResponse(200, webhookEndpointsV1)
  async list(@Principal('application-owner') principal: ApplicationOwnerPrincipal) {
    return { endpoints: await this.endpoints.list(principal.applicationId) };
  }

  @Get(':endpointId')
  @ApplicationOwnerAuth()
  @addition('Read a webhook endpoint', 'getWebhookEndpoint', 'One endpoint: its event types, whether it is enabled (and why not), since when it keeps failing, its secrets (ids only).')
  @ENDPOINT_ID
  @ApiZodResponse(200, webhookEndpointV1)
  @NOT_FOUND
  get(@Principal('application-owner') principal: ApplicationOwnerPrincipal, @EntityId('session', 'endpointId') id: string): Promise<WebhookEndpointV1> {
    return this.endpoints.get(principal.applicationId, id);
  }

  @Patch(':endpointId')
  @ApplicationOwnerAuth()
  @addition('Change a webhook endpoint', 'updateWebhookEndpoint', 'Any of `url`, `eventTypes`, `description`, `enabled`; what is absent stays. A new `eventTypes` applies to events recorded from now on (replay to reach earlier ones).')
  @ENDPOINT_ID
  @ApiBody({ type: UpdateWebhookEndpointDto })
  @ApiZodResponse(200, webhookEndpointV1)
  @BAD_BODY(URL_RULE)
  @NOT_FOUND
  update(@Principal('application-owner') principal: ApplicationOwnerPrincipal, @EntityId('session', 'endpointId') id: string, @Body() dto: UpdateWebhookEndpointDto): Promise<WebhookEndpointV1> {
    return this.endpoints.update(principal.applicationId, id, { ...dto, ...(dto.description === '' ? { description: null } : {}) });
  }

  @Delete(':endpointId')
  @RouteConfig(NO_BODY_ROUTE)
  @HttpCode(204)
  @ApplicationOwnerAuth()
  @addition('Delete a webhook endpoint', 'deleteWebhookEndpoint', 'The endpoint, its messages and its delivery log. No body.')
  @ENDPOINT_ID
  @ApiResponse({ status: 204, description: 'Deleted.' })
  @err(400, 'A body was sent; this route takes none (`invalid_body`).')
  @NOT_FOUND
  async delete(@Req() req: AuthenticatedRequest, @Principal('application-owner') principal: ApplicationOwnerPrincipal, @EntityId('session', 'endpointId') id: string): Promise<void> {
    requireNoBody(req);
    await this.endpoints.delete(principal.applicationId, id);
  }

  @Post(':endpointId/rotate-secret')
  @RouteConfig(NO_BODY_ROUTE)
  @HttpCode(200)
  @ApplicationOwnerAuth()
  @addition(
    'Rotate the signing secret of a webhook endpoint',
    'rotateWebhookEndpointSecret',
    'A new secret (shown only here) signs every attempt from now on; the previous one keeps signing beside it for 24 hours (`secrets[1].expiresAt`), so the receiver can switch without a gap: `webhook-signature` carries one `v1,` signature per valid secret. No body.',
  )
  @ENDPOINT_ID
  @ApiZodResponse(200, webhookEndpointWithSecretV1)
  @err(400, 'A body was sent; this route takes none (`invalid_body`).')
  @NOT_FOUND
  rotate(@Req() req: AuthenticatedRequest, @Principal('application-owner') principal: ApplicationOwnerPrincipal, @EntityId('session', 'endpointId') id: string) {
    requireNoBody(req);
    return this.endpoints.rotateSecret(principal.applicationId, id);
  }

  @Get(':endpointId/messages')
  @ApplicationOwnerAuth()
  @addition(
    'Read the delivery log of a webhook endpoint',
    'listWebhookMessages',
    'The endpoint\'s messages, newest event first, each with its state and its latest attempts (status, latency, error). `next` is present while older messages follow; the walk is stable while new events arrive (they are newer than its position).',
  )
  @ENDPOINT_ID
  @ApiZodResponse(200, webhookMessagesV1)
  @err(400, 'Unknown, repeated or out-of-range parameter (`invalid_query`); a cursor that is malformed, tampered, or from another endpoint, filter or credential (`invalid_cursor`).')
  @NOT_FOUND
  async messages(@Principal('application-owner') principal: ApplicationOwnerPrincipal, @EntityId('session', 'endpointId') id: string, @Query() query: ListWebhookMessagesQueryDto) {
    const limit = limitOf(query.limit, WEBHOOK_MESSAGES_PAGE);
    const binding = this.binding(principal, id, query.state);
    let before: string | undefined;
    if (query.cursor !== undefined) {
      const decoded = decodeCursor(query.cursor, binding, { secret: this.settings.cursorSecret, now: Date.now(), schema: cursorPayload });
      if (!decoded.ok) throw new ApiError('invalid_cursor');
      before = decoded.payload.s;
    }
    const page = await this.endpoints.messages(principal.applicationId, id, { limit, ...(before ? { before } : {}), ...(query.state ? { state: query.state } : {}) });
    const next = page.hasMore && page.last ? encodeCursor({ s: page.last }, binding, { secret: this.settings.cursorSecret, now: Date.now() }) : undefined;
    return { messages: page.messages, ...nextPageLink(next) };
  }

  @Post(':endpointId/replay')
  @HttpCode(202)
  @ApplicationOwnerAuth()
  @addition(
    'Replay events to a webhook endpoint',
    'replayWebhookMessages',
    'Exactly one of `eventId` (one event), `since` (every event recorded at or after a time) or `fromSequence` (every event from a position of the log): the events of the range that the endpoint subscribes to, of the connections the application holds a Connection-Token for, are delivered again (with the same `webhook-id` and body, new signatures) in sequence order per vehicle or connection, their retry schedule started again. Events recorded after the request are not part of the range (they are delivered anyway). Events are kept 30 days.',
  )
  @ENDPOINT_ID
  @ApiBody({ type: ReplayWebhookDto })
  @ApiZodResponse(202, webhookReplayV1)
  @BAD_BODY('none or more than one of `eventId`, `since`, `fromSequence`, or a malformed one')
  @err(404, 'No such endpoint of this application, or (`eventId`) no such event the endpoint may receive (`not_found`).')
  replay(@Principal('application-owner') principal: ApplicationOwnerPrincipal, @EntityId('session', 'endpointId') id: string, @Body() dto: ReplayWebhookDto) {
    const given = (['eventId', 'since', 'fromSequence'] as const).filter((k) => dto[k] !== undefined);
    if (given.length !== 1) throw invalid('invalid_body', 'body', given[1], 'malformed');
    if (dto.eventId !== undefined) return this.endpoints.replay(principal.applicationId, id, { eventId: dto.eventId.toLowerCase() });
    if (dto.fromSequence !== undefined) return this.endpoints.replay(principal.applicationId, id, { fromSequence: dto.fromSequence });
    const since = parseInstant(dto.since ?? '');
    if (!since.ok) throw invalid('invalid_body', 'body', 'since', since.reason);
    return this.endpoints.replay(principal.applicationId, id, { since: since.iso });
  }

  private binding(principal: ApplicationOwnerPrincipal, endpointId: string, state: string | undefined): CursorBinding {
    return { route: 'GET /v1/webhooks/endpoints/{endpointId}/messages', applicationId: principal.applicationId, credentialVersion: principal.credentialVersion, endpointId, filters: filtersHash({ state: state ?? null }) };
  }
}
