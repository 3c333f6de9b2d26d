/**
 * What every context app imports: its ping endpoint and, when it keeps them, the connection
 * configuration projection's and the vehicle-visibility projection's handlers.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { ConnectionConfigHandler } from './connection-config.projection.js';
import { PingHandler } from './ping.handler.js';
import { VehicleVisibilityHandler } from './vehicle-visibility.projection.js';

export interface ContextKitOptions {
  connectionConfig: boolean;
  /** The directory's hidden-vehicle sets (contexts serving vehicle data; the table is in their migrations). */
  vehicleVisibility?: boolean;
}

@Module({})
export class ContextKitModule {
  static forContext(options: ContextKitOptions): DynamicModule {
    const controllers = [PingHandler, ...(options.connectionConfig ? [ConnectionConfigHandler] : []), ...(options.vehicleVisibility ? [VehicleVisibilityHandler] : [])];
    return { module: ContextKitModule, controllers };
  }
}
