/**
 * The SQL of the VIN projection and the product rows (migration 0001).
 * - `applyVin`: keeps the highest `vin_sequence` per vehicle; when the VIN it brings differs from
 *   the stored one (or the vehicle is new) every product row is reset for the new VIN with the
 *   status the caller computed (pending, or missing_vin/invalid_vin right away) and `due_at` —
 *   a value produced for the old VIN is never served for the new one;
 * - `claimDue`: due product rows in due order, `for update skip locked` (several enrichment
 *   processes share the queue), claimed for `leaseMs` by moving `due_at` (a crashed worker's rows
 *   come back after the lease);
 * - `saveValue`: writes a produced value only if the row still belongs to the same VIN (a VIN
 *   change meanwhile wins);
 * - `profileOf`: the vehicle and its four rows, for reads.
 */
import type { EnrichmentProduct, EnrichmentStatus, VehicleVinChangedV1 } from '@switchyard/messaging';
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';

export interface ProductValue {
  status: EnrichmentStatus;
  data: unknown;
  source: string;
  adapterVersion: string | null;
  fetchedAt: string | null;
  errorCode: string | null;
}

export interface ProductReset extends ProductValue {
  product: EnrichmentProduct;
  /** When the worker should produce it; null: nothing to do. */
  dueAt: Date | null;
}

export interface ProductRow {
  vehicle_id: string;
  product: EnrichmentProduct;
  vin: string | null;
  status: EnrichmentStatus;
  data: unknown;
  source: string;
  adapter_version: string | null;
  fetched_at: string | null;
  error_code: string | null;
  attempts: number;
}

export interface VehicleRow {
  vehicle_id: string;
  connection_id: string;
  vin: string | null;
}

const PRODUCT_COLUMNS = `vehicle_id, product, vin, status, data, source, adapter_version, ${isoSql('fetched_at')} as fetched_at, error_code, attempts`;

export class EnrichmentRepository {
  /**
   * Applies one VIN event; returns 'ignored' (older or same sequence), 'same_vin' (newer sequence,
   * VIN unchanged: nothing to redo) or 'changed' (new vehicle or VIN: products reset).
   */
  async applyVin(em: Em, event: VehicleVinChangedV1, normalizedVin: string | null, resets: readonly ProductReset[]): Promise<'ignored' | 'same_vin' | 'changed'> {
    const t = tableNamer(em);
    const [before] = await query<{ vin: string | null }>(em, `select vin from ${t('enrichment_vehicle')} where vehicle_id = ? for update`, [event.vehicleId]);
    const applied = await query<{ vehicle_id: string }>(
      em,
      `insert into ${t('enrichment_vehicle')} as v (vehicle_id, connection_id, vin, vin_sequence, vin_changed_at) values (?, ?::uuid, ?, ?::bigint, ?::timestamptz)
       on conflict (vehicle_id) do update set vin = excluded.vin, vin_sequence = excluded.vin_sequence, vin_changed_at = excluded.vin_changed_at, received_at = now()
       where v.vin_sequence < excluded.vin_sequence
       returning vehicle_id`,
      [event.vehicleId, event.connectionId, normalizedVin, event.sequence, event.changedAt],
    );
    if (applied.length === 0) return 'ignored';
    if (before !== undefined && before.vin === normalizedVin) return 'same_vin';
    for (const r of resets) {
      await query(
        em,
        `insert into ${t('enrichment_product')} (vehicle_id, product, vin, status, data, source, adapter_version, fetched_at, error_code, due_at, attempts, updated_at)
         values (?, ?, ?, ?, ?::jsonb, ?, ?, ?::timestamptz, ?, ?::timestamptz, 0, now())
         on conflict (vehicle_id, product) do update set vin = excluded.vin, status = excluded.status, data = excluded.data, source = excluded.source,
           adapter_version = excluded.adapter_version, fetched_at = excluded.fetched_at, error_code = excluded.error_code, due_at = excluded.due_at, attempts = 0, updated_at = now()`,
        [event.vehicleId, r.product, normalizedVin, r.status, r.data === null ? null : JSON.stringify(r.data), r.source, r.adapterVersion, r.fetchedAt, r.errorCode, r.dueAt?.toISOString() ?? null],
      );
    }
    return 'changed';
  }

  /**
   * Makes due now every decoded identity produced by another adapter version (a new dataset package
   * or mapping): a deployment re-decodes what it serves with its own data. Returns how many.
   */
  async requeueOtherVersions(em: Em, product: EnrichmentProduct, adapterVersion: string): Promise<number> {
    const rows = await query<{ vehicle_id: string }>(
      em,
      `update ${tableNamer(em)('enrichment_product')} set due_at = now()
        where product = ? and status in ('available', 'missing', 'failed') and adapter_version is distinct from ? and due_at is null
        returning vehicle_id`,
      [product, adapterVersion],
    );
    return rows.length;
  }

  /** Up to `limit` due rows (of `products`), claimed for `leaseMs`. */
  async claimDue(em: Em, products: readonly EnrichmentProduct[], limit: number, leaseMs: number): Promise<ProductRow[]> {
    const t = tableNamer(em)('enrichment_product');
    return query<ProductRow>(
      em,
      `update ${t} p set due_at = now() + (? * interval '1 millisecond'), attempts = p.attempts + 1
         from (select vehicle_id, product from ${t} where due_at <= now() and product = any(?::text[]) order by due_at limit ? for update skip locked) d
        where p.vehicle_id = d.vehicle_id and p.product = d.product
        returning ${PRODUCT_COLUMNS.replace(/vehicle_id, product/, 'p.vehicle_id, p.product')}`,
      [leaseMs, `{${products.join(',')}}`, limit],
    );
  }

  /** Stores a produced value for the VIN it was produced for; `dueAt` schedules the next attempt (null: done). False when the VIN changed meanwhile. */
  async saveValue(em: Em, vehicleId: string, product: EnrichmentProduct, vin: string | null, value: ProductValue, dueAt: Date | null): Promise<boolean> {
    const rows = await query<{ vehicle_id: string }>(
      em,
      `update ${tableNamer(em)('enrichment_product')} set status = ?, data = ?::jsonb, source = ?, adapter_version = ?, fetched_at = ?::timestamptz, error_code = ?,
         due_at = ?::timestamptz, attempts = case when ?::timestamptz is null then 0 else attempts end, updated_at = now()
        where vehicle_id = ? and product = ? and vin is not distinct from ? returning vehicle_id`,
      [
        value.status,
        value.data === null ? null : JSON.stringify(value.data),
        value.source,
        value.adapterVersion,
        value.fetchedAt,
        value.errorCode,
        dueAt?.toISOString() ?? null,
        dueAt?.toISOString() ?? null,
        vehicleId,
        product,
        vin,
      ],
    );
    return rows.length > 0;
  }

  async vehicle(em: Em, connectionId: string, vehicleId: string): Promise<VehicleRow | undefined> {
    const [row] = await query<VehicleRow>(em, `select vehicle_id, connection_id::text as connection_id, vin from ${tableNamer(em)('enrichment_vehicle')} where vehicle_id = ? and connection_id = ?::uuid`, [
      vehicleId,
      connectionId,
    ]);
    return row;
  }

  async products(em: Em, vehicleId: string): Promise<ProductRow[]> {
    return query<ProductRow>(em, `select ${PRODUCT_COLUMNS} from ${tableNamer(em)('enrichment_product')} where vehicle_id = ?`, [vehicleId]);
  }
}
