/**
 * The refresh limit's one statement (migration 0013): claim the asset's slot when its last grant is
 * at least `intervalSeconds` old, else say how long until it frees.
 *
 * Why one conditional upsert: two processes claiming the same asset at once both reach the row's
 * lock; under READ COMMITTED the second re-evaluates the `where` on the first's new row version and
 * updates nothing, so exactly one claim wins without an advisory lock or a transaction. The wait is
 * read by a second statement, whose snapshot includes the winner's commit. The time is
 * the database's (`statement_timestamp()`), so processes with skewed clocks share one limit.
 */
import { tableNamer, type Orm } from '@switchyard/persistence';

export type SlotClaim = { granted: true } | { granted: false; retryAfterSeconds: number };

export class RefreshSlotRepository {
  private readonly table: string;

  constructor(private readonly orm: Orm) {
    this.table = tableNamer(orm)('refresh_slot');
  }

  async claim(connectionId: string, vehicleSourceId: string, intervalSeconds: number): Promise<SlotClaim> {
    const connection = this.orm.em.getConnection();
    const granted = await connection.execute<{ granted: boolean }[]>(
      `insert into ${this.table} as s (connection_id, vehicle_source_id, granted_at)
       values (?, ?, statement_timestamp())
       on conflict (connection_id, vehicle_source_id) do update set granted_at = excluded.granted_at
       where s.granted_at <= excluded.granted_at - make_interval(secs => ?)
       returning true as granted`,
      [connectionId, vehicleSourceId, intervalSeconds],
      'all',
    );
    if (granted.length > 0) return { granted: true };
    // A second statement: its snapshot sees the winner's commit (the upsert's may predate it).
    const rows = await connection.execute<{ wait_ms: number }[]>(
      `select (extract(epoch from (granted_at + make_interval(secs => ?) - statement_timestamp())) * 1000)::float8 as wait_ms
         from ${this.table} where connection_id = ? and vehicle_source_id = ?`,
      [intervalSeconds, connectionId, vehicleSourceId],
      'all',
    );
    const waitMs = rows[0]?.wait_ms ?? 0;
    return { granted: false, retryAfterSeconds: Math.min(intervalSeconds, Math.max(1, Math.ceil(waitMs / 1000))) };
  }
}
