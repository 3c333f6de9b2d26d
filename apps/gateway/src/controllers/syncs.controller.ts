/**
 * The public sync routes (spec 4.1, APP auth): create, list, read, retry, cancel. The guard has
 * authenticated the application secret and Connection-Token and checked the operation grant; this
 * controller validates the request shape, then delegates to the sync-orchestrator over
 * request/reply with the caller's identity, credentialVersion and Connection-Token (with the
 * application's tokenVersion), which the orchestrator rechecks inside its transaction (spec 5 rule 2). Orchestrator error codes are rendered unchanged by the
 * error filter. Every status each route can answer is declared here, with its reason codes.
 */
import { Controller, Get, HttpCode, Inject, Post, Query, Req } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PAGE_RANGES, SYNC_PLAN } from '@switchyard/contracts';
import { nextPageLink, RPCS, syncPageV1, syncRecordV1, type SyncCallerV1, type SyncPageV1, type SyncRecordV1, type SyncStatusV1 } from '@switchyard/messaging';
import { ApplicationAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { ApplicationPrincipal, AuthenticatedRequest } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { CreateSyncDto, ListSyncsQueryDto, SYNC_EXPANDABLE, SyncControlDto } from '../dto/sync.dto.js';
import { ApiError, invalid } from '../http/api-error.js';
import { EntityId } from '../http/entity-ids.js';
import { NO_BODY_ROUTE } from '../http/error.filter.js';
import { requireNoBody } from '../http/no-body.js';
import { parseInstant } from '../http/instant.js';
import { OptionalBody } from '../http/validation.pipe.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { ContextClient } from '../services/context-client.service.js';
import { limitOf, parseExpand } from '../services/read-query.js';
import { SyncCursorCodec } from '../services/sync-cursor.js';

const err = (status: number, description: string) => ApiResponse({ status, description, type: ErrorBodyDto });
const NOT_FOUND = err(404, 'No such sync for this application and connection — unknown, malformed, or another application’s id (`not_found`).');
const NO_BODY = err(
  400,
  'A body was sent; this route takes none (`invalid_body`): any body, whatever its media type or size, is this 400 (spec 4.1 rule 7), answered while the body is read, before authentication, when it is not JSON or over the size limit.',
);
const UNAVAILABLE = '`service_unavailable`: the orchestrator did not answer, or the evidence needed to trust the call is not there yet (the grant change the gateway authenticated with, or the connection configuration, has not reached the orchestrator); retry shortly.';

const callerOf = (p: ApplicationPrincipal): SyncCallerV1 => ({
  applicationId: p.applicationId,
  connectionId: p.connectionId,
  credentialVersion: p.credentialVersion,
  connectionToken: { id: p.connectionTokenId, tokenVersion: p.tokenVersion },
});

/**
 * Retry and cancel take no body (spec 4.1 rule 7): anything parsed — even `{}` or `null` — is
 * refused. Read from the request rather than with @Body(), so the document declares no body.
 */
/** `startFrom`, read by the one request date-time parser (http/instant.ts), in canonical form. */
function startFromOf(raw: string): string {
  const parsed = parseInstant(raw);
  if (!parsed.ok) throw invalid('invalid_body', 'body', 'startFrom', parsed.reason);
  return parsed.iso;
}

@ApiTags('syncs')
@Controller('v1/syncs')
export class SyncsController {
  private readonly cursors: SyncCursorCodec;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.cursors = new SyncCursorCodec(settings.cursorSecret);
  }

  @Post()
  @HttpCode(201)
  @ApplicationAuth('sync.create')
  @ApiOperation({
    operationId: 'createSync',
    summary: 'Create a sync of the connection',
    description: [
      'Optional JSON body with at most one selector: `startFrom` (date-time) or `lookbackDays` (fractional days before now). Without one, the',
      "application's first sync on the connection starts now and later ones start at the requestedAt of its previous sync there that did not fail or",
      'get cancelled; an explicit selector must start before the request time. Collection needs the connection active,',
      'unified collection on and at least one purpose enabled; the sync covers every enabled purpose (vehicles, groupMemberships, trips) for the',
      'explicitly approved vehicles. The plan is one unit per purpose × approved vehicle, trips additionally per one-day slice of',
      `[startFrom, requestedAt); a plan over ${SYNC_PLAN.maxUnits} units or ${SYNC_PLAN.maxBytes} bytes of serialized units is rejected whole.`,
      'Request idempotency is not offered: after a lost response, list the syncs before creating again.',
    ].join(' '),
  })
  @ApiBody({ type: CreateSyncDto, required: false })
  @ApiZodResponse(201, syncRecordV1)
  @ApiResponse({
    status: 400,
    description:
      'Malformed body (a whitespace-only one included), not a JSON object, unknown property or bad value, e.g. a `providerRequests` item that is not one of its values (`invalid_body`); both `startFrom` and `lookbackDays` (`conflicting_selectors`); an explicit `startFrom` not before the request time or a `lookbackDays` under a millisecond, or only the trips purpose enabled and the interval empty, e.g. the default of a first sync (`empty_interval`); a query parameter, which this route does not take (`invalid_query`).',
    type: ErrorBodyDto,
  })
  @err(
    409,
    'Non-empty `providerRequests` (`provider_requests_not_supported`, only once every field is valid: a request that is also a 400 gets the 400); an enabled purpose the provider cannot serve, nothing created (`unsupported_purpose`); no explicitly approved vehicle (`empty_selection`); the application already has as many open syncs as it may (`too_many_open_syncs`, catalog `limits.openSyncsPerApplication`).',
  )
  @err(422, `The plan exceeds ${SYNC_PLAN.maxUnits} units or ${SYNC_PLAN.maxBytes} bytes; nothing is created or truncated (\`sync_plan_too_large\`).`)
  @err(503, `Unified collection off, the connection not active, or no purpose enabled (\`gate_disabled\`); ${UNAVAILABLE}`)
  async create(@Principal('application') principal: ApplicationPrincipal, @OptionalBody() dto: CreateSyncDto): Promise<SyncRecordV1> {
    const startFrom = dto.startFrom === undefined ? undefined : startFromOf(dto.startFrom);
    if (dto.startFrom !== undefined && dto.lookbackDays !== undefined) throw new ApiError('conflicting_selectors');
    // A non-empty providerRequests is refused by the orchestrator (409) after it has validated the
    // selectors against the request time, so no conflict is answered for a request that is a 400.
    const reply = await this.contexts.request(RPCS.sync.create, {
      caller: callerOf(principal),
      ...(startFrom !== undefined ? { startFrom } : {}),
      ...(dto.lookbackDays !== undefined ? { lookbackDays: dto.lookbackDays } : {}),
      ...(dto.providerRequests?.length ? { providerRequests: dto.providerRequests } : {}),
    });
    return reply.sync;
  }

  @Get()
  @ApplicationAuth('sync.read')
  @ApiOperation({
    operationId: 'listSyncs',
    summary: "List this application's syncs of the connection",
    description:
      'Newest requestedAt first, then id. `next` is present while more syncs follow and absent on the last page (the paging convention of every list). The first page fixes the creation horizon: syncs created later never appear on later pages of the same walk. The status filter is evaluated live. Cursors expire after 15 minutes and on any credential or grant change.',
  })
  @ApiZodResponse(200, syncPageV1)
  @err(400, 'Unknown, repeated or out-of-range parameter, e.g. limit outside 1-100 (`invalid_query`); a cursor that is malformed, tampered, expired, from other filters or issued before a credential or grant change (`invalid_cursor`).')
  @err(503, UNAVAILABLE)
  async list(@Principal('application') principal: ApplicationPrincipal, @Query() query: ListSyncsQueryDto): Promise<SyncPageV1> {
    const limit = limitOf(query.limit, PAGE_RANGES.syncs);
    // Accepted (issues are always empty); read like every other expand, repeats counting once.
    parseExpand(query.expand, SYNC_EXPANDABLE);
    const status = query.status as SyncStatusV1 | undefined;
    const position = query.cursor === undefined ? undefined : this.cursors.decode(principal, status, query.cursor);
    if (query.cursor !== undefined && !position) throw new ApiError('invalid_cursor');
    const reply = await this.contexts.request(RPCS.sync.list, { caller: callerOf(principal), limit, ...(status ? { status } : {}), ...(position ?? {}) });
    const last = reply.syncs.at(-1);
    const next = reply.hasMore && last ? this.cursors.encode(principal, status, { horizon: reply.horizon, after: { requestedAt: last.requestedAt, id: last.id } }) : undefined;
    return { syncs: reply.syncs, ...nextPageLink(next) };
  }

  @Get(':id')
  @ApplicationAuth('sync.read')
  @ApiOperation({ operationId: 'getSync', summary: 'Read one sync' })
  @ApiParam({ name: 'id', description: 'Sync id (`sync_` + 26 Crockford base32 characters).', schema: { type: 'string' } })
  @ApiZodResponse(200, syncRecordV1)
  @NOT_FOUND
  @err(503, UNAVAILABLE)
  async get(@Principal('application') principal: ApplicationPrincipal, @EntityId('sync', 'id') syncId: string): Promise<SyncRecordV1> {
    return (await this.contexts.request(RPCS.sync.get, { caller: callerOf(principal), syncId })).sync;
  }

  @Post(':id/retry')
  @RouteConfig(NO_BODY_ROUTE)
  @HttpCode(200)
  @ApplicationAuth('sync.retry')
  @ApiOperation({
    operationId: 'retrySync',
    summary: 'Retry a failed sync',
    description:
      'Only from `failed`. Keeps the request, interval, selection and purposes; attempts + 1; every unit needs a fresh data receipt. The sync is open again, so it counts against the open-sync cap like a create (catalog `limits.openSyncsPerApplication`). No body.',
  })
  @ApiParam({ name: 'id', description: 'Sync id.', schema: { type: 'string' } })
  @ApiOkResponse({ type: SyncControlDto, description: 'Retry accepted; the sync is `requested` again.' })
  @NO_BODY
  @NOT_FOUND
  @err(409, 'Retrying would reopen one sync more than the application may have open; the sync stays `failed` (`too_many_open_syncs`, catalog `limits.openSyncsPerApplication`).')
  @err(422, 'The sync is not `failed` (`sync_state_conflict`).')
  @err(503, `Unified collection off, the connection not active, or a purpose of the sync disabled (\`gate_disabled\`); ${UNAVAILABLE}`)
  async retry(@Req() req: AuthenticatedRequest, @Principal('application') principal: ApplicationPrincipal, @EntityId('sync', 'id') syncId: string): Promise<SyncControlDto> {
    requireNoBody(req);
    await this.contexts.request(RPCS.sync.retry, { caller: callerOf(principal), syncId });
    return { id: syncId, message: 'Sync retry requested' };
  }

  @Post(':id/cancel')
  @RouteConfig(NO_BODY_ROUTE)
  @HttpCode(200)
  @ApplicationAuth('sync.cancel')
  @ApiOperation({
    operationId: 'cancelSync',
    summary: 'Cancel an open sync',
    description:
      'Only from `requested` or `in_progress`; works while collection is paused. The sync becomes `failed` with failureReason `cancelled` (never completed); units already leased by a collector keep their lease until it expires. No body.',
  })
  @ApiParam({ name: 'id', description: 'Sync id.', schema: { type: 'string' } })
  @ApiOkResponse({ type: SyncControlDto, description: 'Cancellation accepted; the sync is `failed` with failureReason `cancelled`.' })
  @NO_BODY
  @NOT_FOUND
  @err(422, 'The sync is `completed` or `failed` (`sync_state_conflict`).')
  @err(503, UNAVAILABLE)
  async cancel(@Req() req: AuthenticatedRequest, @Principal('application') principal: ApplicationPrincipal, @EntityId('sync', 'id') syncId: string): Promise<SyncControlDto> {
    requireNoBody(req);
    await this.contexts.request(RPCS.sync.cancel, { caller: callerOf(principal), syncId });
    return { id: syncId, message: 'Sync cancellation requested' };
  }
}
