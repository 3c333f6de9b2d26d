/**
 * Makes the service runtime (bus, ORM, logger) injectable everywhere in one app's module graph.
 * Global on purpose: it is the app's environment, not a feature.
 */
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { BUS, LOGGER, ORM, RUNTIME, type ServiceRuntime } from './runtime.js';

@Global()
@Module({})
export class RuntimeModule {
  static forRoot(runtime: ServiceRuntime): DynamicModule {
    const providers = [
      { provide: RUNTIME, useValue: runtime },
      { provide: BUS, useValue: runtime.bus },
      { provide: ORM, useValue: runtime.orm },
      { provide: LOGGER, useValue: runtime.logger },
    ];
    return { module: RuntimeModule, providers, exports: providers.map((p) => p.provide) };
  }
}
