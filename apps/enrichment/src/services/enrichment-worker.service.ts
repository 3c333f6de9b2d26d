/**
 * The background work after a VIN is learned (issue 16): due product rows are claimed from
 * `enrichment_product` (for update skip locked, leased) and produced; reads never wait on it.
 * - identity: decoded offline (VinIdentityDecoder over the vPIC data, opened on first use); the
 *   dataset failing to open is `failed` `dataset_unavailable`, retried after ENRICHMENT_RETRY_SECONDS;
 * - images, specifications, build: the product's standing first (no vendor → `disabled`, not
 *   licensed → `blocked`: configuration may have changed since the VIN was learned), then the
 *   vendor cache (fresh answers for the VIN), then one vendor request per VIN for the products
 *   still needed — if the budget has a token; otherwise the rows wait for it (due again when it
 *   refills). An answer other than a failure is cached for ENRICHMENT_CACHE_TTL_SECONDS and the
 *   row is due again when it expires (the value is refreshed; a failed refresh keeps the last
 *   good value and retries). A failure with no value yet is `failed` with its errorCode and is
 *   retried after Retry-After or ENRICHMENT_RETRY_SECONDS.
 * At its first pass a process re-queues the identities another adapter version decoded (a new
 * dataset package: what is served is decoded with the deployment's own data).
 * The loop polls every ENRICHMENT_POLL_MS, runs at once on `nudge()` (a VIN was learned), starts
 * after migrations and stops with the application.
 */
import { createHash } from 'node:crypto';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { EnrichmentProduct } from '@switchyard/messaging';
import { inTransaction } from '@switchyard/persistence';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { ENRICHMENT_SETTINGS, VENDOR_PRODUCTS, type EnrichmentSettings, type VendorProduct } from '../config.js';
import { EnrichmentRepository, type ProductRow, type ProductValue } from '../db/repositories/enrichment.repository.js';
import { VendorRepository } from '../db/repositories/vendor.repository.js';
import { IDENTITY_ADAPTER_VERSION, IDENTITY_SOURCE, VinIdentityDecoder } from '../identity/vin-identity.decoder.js';
import { VpicDatabase } from '../identity/vpic-database.js';
import { VendorClient, type VendorAnswer } from '../vendor/vendor.client.js';
import { vendorStanding } from './product-policy.js';
import { VENDOR_ADAPTER_VERSION, VENDOR_SOURCE } from './vendor-source.js';

const BATCH = 20;
const LEASE_MS = 120_000;

@Injectable()
export class EnrichmentWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly products = new EnrichmentRepository();
  private readonly vendorStore = new VendorRepository();
  private readonly client: VendorClient | undefined;
  private readonly account: string;
  private decoder: Promise<VinIdentityDecoder> | undefined;
  private database: VpicDatabase | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(ENRICHMENT_SETTINGS) private readonly settings: EnrichmentSettings,
  ) {
    const vendor = settings.vendor;
    this.client = vendor ? new VendorClient({ baseUrl: vendor.baseUrl, apiKey: vendor.apiKey, timeoutMs: vendor.timeoutMs }) : undefined;
    // The budget is per vendor account: the base URL and a hash of the key, never the key itself.
    this.account = vendor ? `${vendor.baseUrl}#${createHash('sha256').update(vendor.apiKey ?? '').digest('hex').slice(0, 12)}` : 'none';
  }

  onApplicationBootstrap(): void {
    this.schedule(this.settings.pollMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.database?.close();
  }

  /** Work is waiting (a VIN was learned): run now, or right after the pass in flight. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      if (!this.runtime.state.migrated) return this.schedule(this.settings.pollMs);
      this.running = this.drain()
        .catch((error: unknown) => this.runtime.logger.warn({ err: error }, 'enrichment worker pass failed, will retry'))
        .finally(() => {
          this.running = undefined;
          const again = this.again;
          this.again = false;
          this.schedule(again ? 0 : this.settings.pollMs);
        });
    }, delay);
  }

  private requeued = false;

  /** Works due rows until a pass finds fewer than a batch (the first pass first re-queues identities of another adapter version). */
  async drain(): Promise<void> {
    if (!this.requeued) {
      const count = await inTransaction(this.runtime.orm, (em) => this.products.requeueOtherVersions(em, 'identity', IDENTITY_ADAPTER_VERSION));
      this.requeued = true;
      if (count > 0) this.runtime.logger.info({ count, adapterVersion: IDENTITY_ADAPTER_VERSION }, 'identities of another adapter version re-queued for decoding');
    }
    while (!this.stopped) {
      const done = (await this.identityPass()) + (await this.vendorPass());
      if (done < BATCH) return;
    }
  }

  private claim(products: readonly EnrichmentProduct[]): Promise<ProductRow[]> {
    return inTransaction(this.runtime.orm, (em) => this.products.claimDue(em, products, BATCH, LEASE_MS));
  }

  private save(row: ProductRow, value: ProductValue, dueAt: Date | null): Promise<boolean> {
    return inTransaction(this.runtime.orm, (em) => this.products.saveValue(em, row.vehicle_id, row.product, row.vin, value, dueAt));
  }

  private identityDecoder(): Promise<VinIdentityDecoder> {
    this.decoder ??= VpicDatabase.open().then((db) => {
      this.database = db;
      return new VinIdentityDecoder(db);
    });
    return this.decoder;
  }

  private async identityPass(): Promise<number> {
    const rows = await this.claim(['identity']);
    for (const row of rows) {
      const base = { source: IDENTITY_SOURCE, adapterVersion: IDENTITY_ADAPTER_VERSION };
      try {
        const outcome = await (await this.identityDecoder()).decode(row.vin);
        await this.save(row, { ...base, ...outcome, fetchedAt: new Date().toISOString() }, null);
      } catch (error) {
        this.decoder = undefined;
        this.runtime.logger.warn({ err: error, vehicleId: row.vehicle_id }, 'identity decode failed');
        await this.save(row, { ...base, status: 'failed', data: null, fetchedAt: null, errorCode: 'dataset_unavailable' }, new Date(Date.now() + this.settings.retryMs));
      }
    }
    return rows.length;
  }

  private async vendorPass(): Promise<number> {
    const rows = await this.claim(VENDOR_PRODUCTS);
    const byVin = new Map<string, ProductRow[]>();
    for (const row of rows) {
      const standing = vendorStanding(this.settings, row.product as VendorProduct);
      if (standing !== undefined || row.vin === null || this.client === undefined) {
        const { status, errorCode } = standing ?? { status: 'disabled' as const, errorCode: 'vendor_not_configured' };
        await this.save(row, { status, data: null, source: VENDOR_SOURCE, adapterVersion: VENDOR_ADAPTER_VERSION, fetchedAt: null, errorCode }, null);
        continue;
      }
      byVin.set(row.vin, [...(byVin.get(row.vin) ?? []), row]);
    }
    for (const [vin, vinRows] of byVin) await this.enrichVin(vin, vinRows);
    return rows.length;
  }

  private async enrichVin(vin: string, rows: ProductRow[]): Promise<void> {
    const wanted = [...new Set(rows.map((r) => r.product as VendorProduct))];
    const cached = await this.vendorStore.cached(this.runtime.orm.em.fork(), vin, wanted);
    const answers = new Map<VendorProduct, { value: ProductValue; dueAt: Date | null }>();
    for (const c of cached) {
      answers.set(c.product as VendorProduct, {
        value: { status: c.status, data: c.data, source: VENDOR_SOURCE, adapterVersion: c.adapter_version, fetchedAt: c.fetched_at, errorCode: c.status === 'available' ? null : c.status === 'missing' ? 'vin_unknown' : 'vendor_not_entitled' },
        dueAt: new Date(Date.parse(c.fetched_at) + this.settings.cacheTtlMs),
      });
    }
    const ask = wanted.filter((p) => !answers.has(p));
    if (ask.length > 0 && this.client && this.settings.vendor) {
      const waitMs = await this.vendorStore.take(this.runtime.orm, this.account, this.settings.vendor.ratePerSecond, this.settings.vendor.burst);
      if (waitMs > 0) {
        // No token: the rows keep their value and come back when one is there.
        for (const row of rows.filter((r) => ask.includes(r.product as VendorProduct))) await this.reschedule(row, waitMs);
      } else {
        const fetchedAt = new Date();
        const fresh = await this.client.lookup(vin, ask);
        for (const product of ask) answers.set(product, await this.answerValue(vin, product, fresh[product], fetchedAt));
      }
    }
    for (const row of rows) {
      const answer = answers.get(row.product as VendorProduct);
      if (answer === undefined) continue;
      if (answer.value.status === 'failed' && row.status === 'available') {
        // A failed refresh keeps the last good value; asked again later.
        await this.reschedule(row, answer.dueAt ? answer.dueAt.getTime() - Date.now() : this.settings.retryMs);
        continue;
      }
      await this.save(row, answer.value, answer.dueAt);
    }
  }

  private async answerValue(vin: string, product: VendorProduct, answer: VendorAnswer, fetchedAt: Date): Promise<{ value: ProductValue; dueAt: Date | null }> {
    const base = { source: VENDOR_SOURCE, adapterVersion: VENDOR_ADAPTER_VERSION };
    if (answer.status === 'failed') {
      this.runtime.logger.warn({ product, errorCode: answer.errorCode }, 'enrichment vendor request failed');
      return { value: { ...base, status: 'failed', data: null, fetchedAt: null, errorCode: answer.errorCode }, dueAt: new Date(Date.now() + (answer.retryAfterMs ?? this.settings.retryMs)) };
    }
    const data = answer.status === 'available' ? answer.data : null;
    await this.vendorStore.remember(this.runtime.orm.em.fork(), vin, { product, status: answer.status, data, adapter_version: VENDOR_ADAPTER_VERSION }, fetchedAt, this.settings.cacheTtlMs);
    return {
      value: { ...base, status: answer.status, data, fetchedAt: fetchedAt.toISOString(), errorCode: answer.status === 'available' ? null : answer.errorCode },
      dueAt: new Date(fetchedAt.getTime() + this.settings.cacheTtlMs),
    };
  }

  private async reschedule(row: ProductRow, afterMs: number): Promise<void> {
    await this.save(
      row,
      { status: row.status, data: row.data, source: row.source, adapterVersion: row.adapter_version, fetchedAt: row.fetched_at, errorCode: row.error_code },
      new Date(Date.now() + Math.max(0, afterMs)),
    );
  }
}
