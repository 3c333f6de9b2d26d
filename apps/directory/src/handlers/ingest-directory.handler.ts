/**
 * The durable consumer of `ingest.directory.*` (durable `directory-ingest`, one consumer group
 * shared by every directory process): each delivery goes through the ingest pipeline — one
 * transaction for records + ledger + provider cursor, then the receipt, then the ack.
 * maxAckPending 16: batches of different connections and pages commit in parallel; the
 * fetched-at guards make their order irrelevant. The ack wait is INGEST_ACK_WAIT_MS (default 60 s,
 * a 1,000-row batch takes a few ms measured); maxDeliver 10 then the DLQ. The lifecycle (start
 * after migrations, drain on shutdown, settlement) is the bus transport's.
 * A vehicles batch also recomputes the connection's hidden-vehicle set in its transaction
 * (vehicle-visibility.service.ts); the relay publishes a changed set after the commit. It also
 * records the stored VIN of each of its vehicles (vehicle-vin.repository.ts): a new or changed VIN
 * is published to enrichment on `events.vehicle.vin.*` after the commit (vehicle-vin-relay.service.ts). A drivers
 * or vehicles batch also takes its place in its pass, completing the driver directory or the
 * vehicle roster on its final page (roster-pass.service.ts, decisions 0014 and 0011); a vehicle
 * whose provider reports no status takes the status derived from that roster, and when the roster
 * changed every such status of the connection follows it, before the visibility recomputation
 * reads them (vehicle-roster-status.service.ts). The first
 * batch into a table without planner statistics gives it some after the commit
 * (first-statistics.service.ts).
 */
import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { CONSUMERS, type Consumes, type DirectoryBatchV1 } from '@switchyard/messaging';
import type { Em } from '@switchyard/persistence';
import { handleIngestDelivery, RUNTIME, BusContext, type ServiceRuntime } from '@switchyard/service-kit';
import { DirectoryIngestService } from '../services/directory-ingest.service.js';
import { RosterPassService } from '../services/roster-pass.service.js';
import { VehicleRosterStatusService } from '../services/vehicle-roster-status.service.js';
import { FirstStatistics } from '../services/first-statistics.service.js';
import { VehicleVinRelay } from '../services/vehicle-vin-relay.service.js';
import { VehicleVisibilityRelay } from '../services/vehicle-visibility-relay.service.js';
import { VehicleVinRepository } from '../db/repositories/vehicle-vin.repository.js';
import { VehicleVisibilityService } from '../services/vehicle-visibility.service.js';

@Controller()
export class IngestDirectoryHandler {
  private readonly ingest = new DirectoryIngestService();
  private readonly passes = new RosterPassService();
  private readonly rosterStatuses = new VehicleRosterStatusService();
  private readonly visibility: VehicleVisibilityService;
  private readonly statistics: FirstStatistics;
  /** A committed batch changed a visibility set; racy across concurrent batches by design: a missed flush is the relay's 1 s poll. */
  private visibilityChanged = false;
  private readonly vins = new VehicleVinRepository();
  /** A committed vehicles batch brought a new or changed VIN (same racy flag as above: the VIN relay's poll is the net). */
  private vinsChanged = false;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly relay: VehicleVisibilityRelay,
    private readonly vinRelay: VehicleVinRelay,
  ) {
    this.visibility = new VehicleVisibilityService(runtime.orm);
    this.statistics = new FirstStatistics(runtime.orm);
  }

  @EventPattern<Consumes<'directoryIngest'>>(CONSUMERS.directoryIngest.durable)
  async handle(@Payload() batch: DirectoryBatchV1, @Ctx() ctx: unknown): Promise<void> {
    await handleIngestDelivery(BusContext.deliveryOf(ctx, batch), {
      runtime: this.runtime,
      context: 'directory',
      apply: (em, batch) => this.apply(em, batch),
      afterCommit: () => this.afterCommit(),
    });
  }

  private async apply(em: Em, batch: DirectoryBatchV1): Promise<number> {
    // First, so the connection's pass lock is taken before any driver or vehicle row lock and the
    // visibility lock (no lock cycle).
    const rosterChanged = (batch.kind === 'drivers' || batch.kind === 'vehicles') && (await this.passes.record(em, batch));
    const records = await this.ingest.apply(em, batch, batch.kind === 'vehicles' ? await this.rosterStatuses.forBatch(em, batch) : undefined);
    if (batch.kind === 'vehicles' && rosterChanged) await this.rosterStatuses.follow(em, batch);
    this.statistics.wrote(batch.kind);
    if (batch.kind === 'vehicles' && (await this.visibility.recompute(em, batch.connectionId))) this.visibilityChanged = true;
    if (batch.kind === 'vehicles' && (await this.vins.record(em, this.ingest.vehicleIds(batch))) > 0) this.vinsChanged = true;
    return records;
  }

  /**
   * Publishes a changed set now and gives a fresh table its first statistics; a failure of either
   * is logged (the relay's poll retries the flush, the next batch the statistics): it must not nak
   * a committed batch.
   */
  private async afterCommit(): Promise<void> {
    await this.statistics.afterCommit().catch((error: unknown) => this.runtime.logger.warn({ err: error }, 'first statistics of a directory table failed; the next batch retries'));
    if (this.vinsChanged) {
      this.vinsChanged = false;
      await this.vinRelay.flush().catch((error: unknown) => this.runtime.logger.warn({ err: error }, 'vehicle vin flush failed; the relay poll retries'));
    }
    if (!this.visibilityChanged) return;
    this.visibilityChanged = false;
    await this.relay.flush().catch((error: unknown) => this.runtime.logger.warn({ err: error }, 'vehicle visibility flush failed; the relay poll retries'));
  }
}
