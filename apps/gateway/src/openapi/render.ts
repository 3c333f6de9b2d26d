/**
 * Renders the OpenAPI document as the exact text committed in openapi/openapi.json (2-space JSON,
 * sorted keys, trailing newline), without a database or a bus: the module graph is built in Nest's
 * preview mode, which registers controllers but instantiates no provider.
 */
import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { BUS, LOGGER, ORM, RUNTIME } from '@switchyard/service-kit';
import { GatewayModule } from '../app.module.js';
import { GATEWAY_SETTINGS } from '../config.js';
import { buildOpenApiDocument } from './document.js';

@Global()
@Module({
  providers: [RUNTIME, BUS, ORM, LOGGER, GATEWAY_SETTINGS].map((token) => ({ provide: token, useValue: {} })),
  exports: [RUNTIME, BUS, ORM, LOGGER, GATEWAY_SETTINGS],
})
class PreviewRuntimeModule {}

@Module({ imports: [PreviewRuntimeModule, GatewayModule] })
class PreviewRootModule {}

export async function renderOpenApi(): Promise<string> {
  const app = await NestFactory.create(PreviewRootModule, new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  try {
    return `${JSON.stringify(buildOpenApiDocument(app, { strict: true }), null, 2)}\n`;
  } finally {
    await app.close();
  }
}
