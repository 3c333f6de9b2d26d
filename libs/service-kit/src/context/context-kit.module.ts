/**
 * What every context app imports: its ping endpoint and, when it keeps one, the connection
 * configuration projection.
 */
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { RpcDefinition } from '@switchyard/messaging';
import type { pingRequestV1, pingResponseV1 } from '@switchyard/messaging';
import { ConnectionConfigConsumer } from './connection-config.projection.js';
import { PING_RPC, PingHandler } from './ping.handler.js';

export interface ContextKitOptions {
  ping: RpcDefinition<typeof pingRequestV1, typeof pingResponseV1>;
  connectionConfig: boolean;
}

@Module({})
export class ContextKitModule {
  static forContext(options: ContextKitOptions): DynamicModule {
    const providers: Provider[] = [{ provide: PING_RPC, useValue: options.ping }, PingHandler];
    if (options.connectionConfig) providers.push(ConnectionConfigConsumer);
    return { module: ContextKitModule, providers, exports: options.connectionConfig ? [ConnectionConfigConsumer] : [] };
  }
}
