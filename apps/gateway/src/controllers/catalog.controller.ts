/** GET /v1/catalog — fields, units, operations and limits (spec 2.12, 4.3). */
import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { buildCatalog } from '@switchyard/contracts';
import { PROVIDERS } from '@switchyard/domain';
import { capabilitiesFor } from '@switchyard/providers';
import { ConsumerKeyOnly } from '../auth/auth.guards.js';
import { CatalogDto } from '../dto/catalog.dto.js';

@ApiTags('catalog')
@Controller('v1/catalog')
export class CatalogController {
  private readonly catalog = buildCatalog({ providerSupport: Object.fromEntries(PROVIDERS.map((p) => [p, capabilitiesFor(p).fields])) });

  @Get()
  @ConsumerKeyOnly()
  @ApiOperation({ operationId: 'getCatalog', summary: 'Catalog of fields, units, operations and limits' })
  @ApiOkResponse({ type: CatalogDto })
  get(): CatalogDto {
    return this.catalog as unknown as CatalogDto;
  }
}
