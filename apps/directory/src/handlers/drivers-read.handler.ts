/** Serves `directory.read.drivers.list|get` (libs/messaging directory-read-drivers.v1.ts) from DriversReadService. */
import { Inject, Injectable } from '@nestjs/common';
import { DIRECTORY_DRIVERS_RPCS, type Subscription } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { DriversReadService } from '../services/drivers-read.service.js';
import { DirectoryReadHandler } from './read.handler.js';

@Injectable()
export class DriversReadHandler extends DirectoryReadHandler {
  private readonly drivers: DriversReadService;

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime);
    this.drivers = new DriversReadService(runtime.orm);
  }

  protected endpoints(): Subscription[] {
    return [this.serve(DIRECTORY_DRIVERS_RPCS.list, (em, request) => this.drivers.list(em, request)), this.serve(DIRECTORY_DRIVERS_RPCS.get, (em, request) => this.drivers.get(em, request))];
  }
}
