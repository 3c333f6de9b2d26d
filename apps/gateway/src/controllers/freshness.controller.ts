/**
 * GET /v1/connections/{id}/freshness — data freshness per signal of the connection (issue 27 item
 * 3; decision 0041): an addition beyond the contract's 36 operations, marked as such
 * (openapi/addition.ts) and listed in the catalog; a stored read served by telemetry-ingest over
 * `telemetry.read.freshness` (no provider contact). The guard authorizes (consumer key with the `read` grant on the connection,
 * else 404, spec 5 rule 4); the context answers ConnectionFreshness as JSON text, forwarded as is.
 */
import { Controller, Get } from '@nestjs/common';
import { ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { connectionFreshnessV1, RPCS } from '@switchyard/messaging';
import { ConsumerAuth } from '../auth/auth.guards.js';
import { Principal } from '../auth/principal.decorator.js';
import type { ConsumerPrincipal } from '../auth/principal.js';
import { ErrorBodyDto } from '../dto/error.dto.js';
import { jsonText, type JsonBody } from '../http/json-body.js';
import { apiAddition } from '../openapi/addition.js';
import { ApiZodResponse } from '../openapi/zod-schemas.js';
import { ContextClient } from '../services/context-client.service.js';

const freshnessAddition = apiAddition('(data freshness, issue 27; decision 0041; listed in the catalog).');

@ApiTags('freshness')
@Controller('v1/connections/:id')
@ApiParam({ name: 'id', description: 'Connection id (uuid).', schema: { type: 'string' } })
export class FreshnessController {
  constructor(private readonly contexts: ContextClient) {}

  @Get('freshness')
  @ConsumerAuth('read')
  @freshnessAddition(
    'Read how fresh the connection\'s stored data is, per signal',
    'getConnectionFreshness',
    [
      'How fresh the stored data of each signal the connection collects is — data age (now − the newest stored observedAt of each vehicle), provider lag (fetchedAt − observedAt), pipeline lag (commit − fetchedAt), sample interval (the median gap between a vehicle\'s readings) and coverage (vehicles with a reading in the last collection interval).',
      'Served from stored data (no provider contact), over the approved vehicles the connection\'s reads show. A figure that cannot be computed is an UnknownFigure with its reason, never a zero; a signal without a stored reading is `missing` and has no age.',
      'Needs the consumer key\'s `read` grant on the connection. Takes no query parameter (`invalid_query`).',
    ].join(' '),
  )
  @ApiZodResponse(200, connectionFreshnessV1)
  @ApiResponse({ status: 400, description: 'Any query parameter (`invalid_query`).', type: ErrorBodyDto })
  async freshness(@Principal() principal: ConsumerPrincipal): Promise<JsonBody> {
    return jsonText(connectionFreshnessV1, (await this.contexts.request(RPCS.telemetry.freshness, { connectionId: principal.connectionId })).body);
  }
}
