/**
 * The three tables of a dataset's roster passes (decision 0014), one set per rostered dataset:
 * drivers (migration 0014) and vehicles (migration 0015). The text is what migration 0014 applied
 * for drivers, so generating it here changes no applied schema; each migration passes its names as
 * literals (never the repository's constants), so a later rename cannot change an applied migration.
 * - `<prefix>_sighting`: the members an unfinished pass carried so far (one row per pass and
 *   member), folded into the roster and deleted when its final page commits (`seen_at`, the newest
 *   batch fetch that carried the member, lets a completion drop what an abandoned pass left a day
 *   earlier);
 * - `<prefix>_pass`: one row per completed pass, `seq` counting completions per connection; its
 *   `created_xid` lets a walk find the pass that was current in its horizon snapshot. Rows older
 *   than the cursor lifetime are pruned;
 * - `<prefix>_roster`: the intervals of completed passes [from_seq, to_seq) that listed a member,
 *   closed (to_seq) by the first complete pass that no longer carries it. Only roster changes write
 *   rows; never pruned.
 * The primary keys are the only indexes: every read and write is one connection's prefix of them.
 */
export function rosterPassTablesSql(schema: string, { prefix, member }: { prefix: string; member: string }): string {
  const s = schema;
  const xid = `created_xid bigint not null default (pg_current_xact_id())::text::bigint`;
  return `
create table ${s}.${prefix}_sighting (
  connection_id uuid not null,
  pass_key text not null,
  ${member} text not null,
  seen_at timestamptz not null,
  primary key (connection_id, pass_key, ${member})
);

create table ${s}.${prefix}_pass (
  connection_id uuid not null,
  seq bigint not null,
  pass_key text not null,
  started_at timestamptz not null,
  fetched_at timestamptz not null,
  captured_at timestamptz not null,
  published_at timestamptz not null,
  ${xid},
  primary key (connection_id, seq)
);

create table ${s}.${prefix}_roster (
  connection_id uuid not null,
  ${member} text not null,
  from_seq bigint not null,
  to_seq bigint null,
  ${xid},
  primary key (connection_id, ${member}, from_seq)
);
`;
}
