/** Serves `directory.read.vehicles.list|get|metadata` (libs/messaging directory-read-vehicles.v1.ts) from VehiclesReadService. */
import { Inject, Injectable } from '@nestjs/common';
import { DIRECTORY_VEHICLES_RPCS, type Subscription } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { VehiclesReadService } from '../services/vehicles-read.service.js';
import { DirectoryReadHandler } from './read.handler.js';

@Injectable()
export class VehiclesReadHandler extends DirectoryReadHandler {
  private readonly vehicles: VehiclesReadService;

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime);
    this.vehicles = new VehiclesReadService(runtime.orm);
  }

  protected endpoints(): Subscription[] {
    return [
      this.serve(DIRECTORY_VEHICLES_RPCS.list, (em, request) => this.vehicles.list(em, request)),
      this.serve(DIRECTORY_VEHICLES_RPCS.get, (em, request) => this.vehicles.get(em, request)),
      this.serve(DIRECTORY_VEHICLES_RPCS.metadata, (em, request) => this.vehicles.metadata(em, request)),
    ];
  }
}
