/**
 * GET /v1/connections/{id}/faults and …/fault-events (spec 2.9, 4.4, 6; consumer key with a read
 * grant on the connection, else 404), served by fault-feed over `faults.read.*` (RPCS.faults):
 * - Faults: the open occurrences of visible vehicles in the order they opened, `nextCursor` a
 *   stored-read cursor over the open sequence, through the one pager of the stored lists
 *   (stored-read-pager.ts; its `{s}` cursor: no snapshot);
 * - FaultEvents: opened/cleared transitions after the cursor's sequence, `nextCursor` always
 *   present and durable (fault-cursor.ts), `hasMore` when more were available. A cursor before the
 *   retention horizon is 400 `cursor_beyond_retention`; malformed, tampered or another
 *   connection's is 400 `invalid_cursor`. docs/faults.md explains the guarantees.
 */
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FAULT_EVENT_RETENTION_DAYS, FAULT_EVENTS_PAGE, FAULTS_PAGE } from '@switchyard/contracts';
import { faultEventsPageV1, faultSequencePositionV1, faultsPageV1, nextCursorLink, RPCS } from '@switchyard/messaging';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { ListFaultEventsQueryDto, ListFaultsQueryDto } from '../dto/fault.dto.js';
import { ApiError } from '../http/api-error.js';
import { jsonObject, raw, type JsonBody } from '../http/json-body.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { ContextClient } from '../services/context-client.service.js';
import { FaultEventCursorCodec } from '../services/fault-cursor.js';
import { limitOf } from '../services/read-query.js';
import { StoredReadPager } from '../services/stored-read-pager.js';

@ApiTags('faults')
@Controller('v1/connections/:id')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class FaultsController {
  private readonly openPages: StoredReadPager<string>;
  private readonly eventCursors: FaultEventCursorCodec;

  constructor(
    private readonly contexts: ContextClient,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.openPages = new StoredReadPager(settings, { route: 'GET /v1/connections/{id}/faults', position: faultSequencePositionV1, range: FAULTS_PAGE, cursor: { horizon: false, key: 's' } });
    this.eventCursors = new FaultEventCursorCodec(settings.cursorSecret);
  }

  @Get('faults')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'listFaults',
    summary: 'List open fault occurrences',
    description: [
      "The connection's currently open fault occurrences from stored data (no provider contact), in the order they opened. Faults of vehicles hidden by the connection's include/exclude lists or status filter never appear.",
      'An occurrence open during the whole walk appears exactly once; one opened during the walk appears at its end; one cleared during it may be absent (the fault-events feed reports it).',
      `Pass \`nextCursor\` back as \`cursor\`; it is null on the last page. At most ${FAULTS_PAGE.max} per page.`,
    ].join(' '),
  })
  @ApiZodResponse(200, faultsPageV1)
  @ApiResponse({
    status: 400,
    description: `Unknown, repeated or malformed parameter, limit outside ${FAULTS_PAGE.min}-${FAULTS_PAGE.max} (\`invalid_query\`); a cursor that is malformed, tampered, expired, of another connection or key, or issued before a grant change (\`invalid_cursor\`).`,
    type: ErrorBodyDto,
  })
  async list(@Principal() principal: ConsumerPrincipal, @Query() query: ListFaultsQueryDto): Promise<JsonBody> {
    // The open faults need no byte budget (fault-feed: at most FAULTS_PAGE.max small items) and keep no snapshot.
    const { reply, link } = await this.openPages.page(principal, query, {}, ({ limit, after }) =>
      this.contexts.request(RPCS.faults.open, { connectionId: principal.connectionId, limit, ...(after !== undefined ? { after } : {}) }),
    );
    return jsonObject(faultsPageV1, { faults: raw(reply.body), ...nextCursorLink(link.next) });
  }

  @Get('fault-events')
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'listFaultEvents',
    summary: 'Read the fault transition feed',
    description: [
      'Opened and cleared transitions of fault occurrences in strictly increasing per-connection `sequence` (commit order), from stored data. Transitions of vehicles hidden by the connection\'s visibility rules are left out (the sequence then skips them).',
      '`nextCursor` is durable: store it and pass it as `cursor` (next week too, with any key of the connection) to receive every later event exactly once, in order; no event committed later can carry a smaller sequence.',
      `Without a cursor the feed starts at the oldest retained event. Events are kept ${FAULT_EVENT_RETENTION_DAYS} days; a cursor older than that is 400 \`cursor_beyond_retention\` — re-read the open faults and start again without a cursor.`,
      `\`hasMore\` is true while more events are already available (a page can be short, even empty, when it skipped hidden vehicles); when false, poll again later. At most ${FAULT_EVENTS_PAGE.max} per page.`,
    ].join(' '),
  })
  @ApiZodResponse(200, faultEventsPageV1)
  @ApiResponse({
    status: 400,
    description: `Unknown, repeated or malformed parameter, limit outside ${FAULT_EVENTS_PAGE.min}-${FAULT_EVENTS_PAGE.max} (\`invalid_query\`); a cursor that is malformed, tampered or of another connection (\`invalid_cursor\`); a cursor before the ${FAULT_EVENT_RETENTION_DAYS}-day retention (\`cursor_beyond_retention\`).`,
    type: ErrorBodyDto,
  })
  async events(@Principal() principal: ConsumerPrincipal, @Query() query: ListFaultEventsQueryDto): Promise<JsonBody> {
    const limit = limitOf(query.limit, FAULT_EVENTS_PAGE);
    const after = query.cursor === undefined ? undefined : this.eventCursors.decode(principal.connectionId, query.cursor);
    if (query.cursor !== undefined && after === undefined) throw new ApiError('invalid_cursor');
    const { meta, body } = await this.contexts.request(RPCS.faults.events, { connectionId: principal.connectionId, limit, ...(after !== undefined ? { after } : {}) });
    if (meta.beyondRetention) throw new ApiError('cursor_beyond_retention');
    return jsonObject(faultEventsPageV1, { events: raw(body), nextCursor: this.eventCursors.encode(principal.connectionId, meta.last), hasMore: meta.hasMore });
  }
}
