/**
 * GET /v1/connections/{id} and GET /v1/connections/{id}/capabilities (spec 2.8, 4.3).
 * The guard has already answered 401/404 (404 also for a disconnected connection, whose local access
 * is disabled); a connection that vanished between the grant check and the read is a 404 as well.
 */
import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { capabilitiesFor, type ProviderCapabilities } from '@switchyard/providers';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { ConnectionRepository } from '../db/repositories/connection.repository.js';
import { CapabilitiesDto } from '../dto/capabilities.dto.js';
import { ConnectionDto } from '../dto/connection.dto.js';
import { ApiError } from '../http/api-error.js';

@ApiTags('connections')
@Controller('v1/connections/:id')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class ConnectionsController {
  constructor(private readonly connections: ConnectionRepository) {}

  @Get()
  @ConsumerAuth('read')
  @ApiOperation({
    operationId: 'getConnection',
    summary: 'Read the connection and its collection health',
    description: 'A disconnected connection has its local access disabled and answers 404 like every other route of the connection, so `status` reads `active` or `paused` here.',
  })
  @ApiOkResponse({ type: ConnectionDto })
  async get(@Principal() principal: ConsumerPrincipal): Promise<ConnectionDto> {
    const { environment: _environment, ...connection } = await this.load(principal.connectionId);
    return connection;
  }

  @Get('capabilities')
  @ConsumerAuth('read')
  @ApiOperation({ operationId: 'getCapabilities', summary: "Read what the connection's provider adapter supports" })
  @ApiOkResponse({ type: CapabilitiesDto })
  async capabilities(@Principal() principal: ConsumerPrincipal): Promise<ProviderCapabilities & { id: string }> {
    const connection = await this.load(principal.connectionId);
    return { id: connection.id, ...capabilitiesFor(connection.provider) };
  }

  private async load(id: string) {
    const connection = await this.connections.findById(id);
    if (!connection) throw new ApiError('not_found');
    return connection;
  }
}
