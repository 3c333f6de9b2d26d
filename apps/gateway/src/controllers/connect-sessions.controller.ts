/**
 * POST /v1/connections/{id}/connect-sessions, GET …/connect-sessions/{sessionId} and
 * POST /v1/connections/{id}/disconnect (spec 2.8, 3, 4.3, 5, 7, 8; decisions 0013, 0022).
 * The guard answers 401/404 first: every route here needs the key's `manage` grant (spec 4.3 rule
 * 1, spec 5 rule 3) and a connection that is not disconnected (decision 0013), so a second
 * disconnect is 404 like every route of a disconnected connection.
 * Bodies: creating a session takes none; disconnect takes none or `{}`; anything else is 400
 * `invalid_body`.
 */
import { Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { connectSessionV1, disconnectV1, sessionStatusV1, type ConnectSessionV1, type DisconnectV1, type SessionStatusV1 } from '@switchyard/messaging';
import type { FastifyRequest } from 'fastify';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { AuthenticatedRequest, ConsumerPrincipal } from '../auth/principal.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { ApiError } from '../http/api-error.js';
import { EntityId } from '../http/entity-ids.js';
import { NO_BODY_ROUTE } from '../http/error.filter.js';
import { requireNoBody } from '../http/no-body.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { CONNECT_SESSION_RATE, ConnectSessionService } from '../services/connect-session.service.js';

const err = (status: number, description: string, headers?: Record<string, { description: string; schema: { type: 'integer' } }>) =>
  ApiResponse({ status, description, type: ErrorBodyDto, ...(headers ? { headers } : {}) });

function bodyOf(req: AuthenticatedRequest): unknown {
  return (req as { body?: unknown }).body;
}

@ApiTags('connections')
@Controller('v1/connections/:id')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class ConnectSessionsController {
  constructor(private readonly sessions: ConnectSessionService) {}

  @Post('connect-sessions')
  // Any body, JSON or not, within the size limit or over it, is 400 invalid_body (decision 0016).
  @RouteConfig(NO_BODY_ROUTE)
  @HttpCode(200)
  @ConsumerAuth('manage')
  @ApiOperation({
    operationId: 'createConnectSession',
    summary: 'Create a connect session: a ten-minute link where the fleet customer authorizes the provider account',
    description: [
      'No body. Needs a consumer key with the `manage` grant on the connection, and the connection paused first (creating a link never pauses it).',
      'A Geotab connection also needs the operator-approved database and server binding.',
      'Creating a session is not authorization: poll the session status until `complete`. The link belongs to the consumer key that created it.',
      `At most ${CONNECT_SESSION_RATE.max} sessions per consumer key and connection in ${CONNECT_SESSION_RATE.windowSeconds / 60} minutes.`,
    ].join(' '),
  })
  @ApiZodResponse(200, connectSessionV1)
  @err(400, 'A body was sent; this route takes none (`invalid_body`): any body, whatever its media type or size, answered while the body is read, before authentication, when it is not JSON or over the size limit.')
  @err(409, 'The connection is not paused (`pause_connection_before_connect`), or a Geotab connection has no operator-approved database and server binding (`geotab_account_setup_required`).')
  @err(429, 'Session rate limit of this consumer key on this connection (`rate_limited`); retry after `Retry-After` seconds.', {
    'Retry-After': { description: 'Seconds until a new session may be created.', schema: { type: 'integer' } },
  })
  async create(@Req() req: AuthenticatedRequest & FastifyRequest, @Principal() principal: ConsumerPrincipal): Promise<ConnectSessionV1> {
    requireNoBody(req);
    const origin = `${req.protocol}://${req.headers.host ?? 'localhost'}`;
    return this.sessions.create(principal, origin);
  }

  @Get('connect-sessions/:sessionId')
  @ConsumerAuth('manage')
  @ApiOperation({
    operationId: 'getConnectSession',
    summary: 'Read the status of a connect session',
    description: 'Only the consumer key that created the session sees it; any other key, and an unknown or malformed id, get 404. `expired` ten minutes after creation whatever the state short of `complete`.',
  })
  @ApiParam({ name: 'sessionId', description: 'Session id (uuid).', schema: { type: 'string' } })
  @ApiZodResponse(200, sessionStatusV1)
  async status(@Principal() principal: ConsumerPrincipal, @EntityId('session', 'sessionId') sessionId: string): Promise<SessionStatusV1> {
    return this.sessions.status(principal, sessionId);
  }

  @Post('disconnect')
  @HttpCode(200)
  @ConsumerAuth('manage')
  @ApiOperation({
    operationId: 'disconnectConnection',
    summary: "Disconnect: disable the connection's local access and collection and destroy its provider credentials",
    description:
      'No body, or an empty JSON object. Every route of the connection answers 404 afterwards — including a second disconnect — until the operator re-activates it after a new connect session (decision 0013).',
  })
  @ApiBody({ required: false, schema: { type: 'object', additionalProperties: false, description: 'Optional; must be empty.' } })
  @ApiZodResponse(200, disconnectV1)
  @err(400, 'The body is not empty (`invalid_body`).')
  async disconnect(@Req() req: AuthenticatedRequest, @Principal() principal: ConsumerPrincipal): Promise<DisconnectV1> {
    const body = bodyOf(req);
    const empty = body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
    if (!empty) throw new ApiError('invalid_body', {}, { in: 'body', reason: 'not_empty' });
    return this.sessions.disconnect(principal.connectionId);
  }
}
