/**
 * The SQL of the published VINs (migration 0017 `vehicle_vin`): after a vehicles batch wrote its
 * rows, `record` copies the committed VIN of each of the batch's vehicles from `vehicle` (so an older
 * batch the fetched-at guard refused changes nothing) and bumps a vehicle's sequence only when its
 * VIN differs; the relay's outbox reads and marks. Rows are claimed with `for update skip locked`,
 * so relays of several directory processes never publish the same row at once.
 */
import { isoSql, query, tableNamer, type Em } from '@switchyard/persistence';

export interface UnpublishedVinRow {
  vehicle_id: string;
  connection_id: string;
  vin: string | null;
  sequence: string;
  changed_at: string;
}

export class VehicleVinRepository {
  /** Records the stored VIN of these vehicles; returns how many are new or changed (to publish). */
  async record(em: Em, vehicleIds: readonly string[]): Promise<number> {
    if (vehicleIds.length === 0) return 0;
    const t = tableNamer(em);
    const rows = await query<{ vehicle_id: string }>(
      em,
      `insert into ${t('vehicle_vin')} as v (vehicle_id, connection_id, vin, sequence, changed_at)
       select id, connection_id, nullif(upper(btrim(vin)), ''), 1, now() from ${t('vehicle')} where id = any(?::text[])
       on conflict (vehicle_id) do update set vin = excluded.vin, sequence = v.sequence + 1, changed_at = now()
       where v.vin is distinct from excluded.vin
       returning vehicle_id`,
      [`{${vehicleIds.map((id) => `"${id}"`).join(',')}}`],
    );
    return rows.length;
  }

  /** Rows with a change not yet published (the outbox backlog gauge). */
  async countUnpublished(em: Em): Promise<number> {
    const [row] = await query<{ n: number }>(em, `select count(*)::int as n from ${tableNamer(em)('vehicle_vin')} where published_sequence < sequence`);
    return row?.n ?? 0;
  }

  async unpublished(em: Em, limit: number): Promise<UnpublishedVinRow[]> {
    return query<UnpublishedVinRow>(
      em,
      `select vehicle_id, connection_id, vin, sequence::text as sequence, ${isoSql('changed_at')} as changed_at
         from ${tableNamer(em)('vehicle_vin')} where published_sequence < sequence
        order by vehicle_id limit ? for update skip locked`,
      [limit],
    );
  }

  /** One statement for the whole batch: each row's mark moves to the sequence published (never back). */
  async markPublished(em: Em, rows: readonly { vehicle_id: string; sequence: string }[]): Promise<void> {
    if (rows.length === 0) return;
    await query(
      em,
      `update ${tableNamer(em)('vehicle_vin')} v set published_sequence = greatest(v.published_sequence, x.s)
         from unnest(?::text[], ?::bigint[]) as x(i, s) where v.vehicle_id = x.i`,
      [`{${rows.map((r) => `"${r.vehicle_id}"`).join(',')}}`, `{${rows.map((r) => r.sequence).join(',')}}`],
    );
  }
}
