/** Serves `directory.read.trips.list|get` (libs/messaging directory-read-trips.v1.ts) from TripsReadService. */
import { Inject, Injectable } from '@nestjs/common';
import { DIRECTORY_TRIPS_RPCS, type Subscription } from '@switchyard/messaging';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { TripsReadService } from '../services/trips-read.service.js';
import { DirectoryReadHandler } from './read.handler.js';

@Injectable()
export class TripsReadHandler extends DirectoryReadHandler {
  private readonly trips: TripsReadService;

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime) {
    super(runtime);
    this.trips = new TripsReadService(runtime.orm);
  }

  protected endpoints(): Subscription[] {
    return [this.serve(DIRECTORY_TRIPS_RPCS.list, (em, request) => this.trips.list(em, request)), this.serve(DIRECTORY_TRIPS_RPCS.get, (em, request) => this.trips.get(em, request))];
  }
}
