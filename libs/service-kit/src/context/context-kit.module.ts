/**
 * What every context app imports: its ping endpoint and, when it keeps one, the connection
 * configuration projection's handler.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { ConnectionConfigHandler } from './connection-config.projection.js';
import { PingHandler } from './ping.handler.js';

export interface ContextKitOptions {
  connectionConfig: boolean;
}

@Module({})
export class ContextKitModule {
  static forContext(options: ContextKitOptions): DynamicModule {
    if (!options.connectionConfig) return { module: ContextKitModule, controllers: [PingHandler] };
    return { module: ContextKitModule, controllers: [PingHandler, ConnectionConfigHandler] };
  }
}
