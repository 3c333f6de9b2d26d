/**
 * Pure derivation of fault occurrences and transitions from one batch, given the stored state of
 * the connection (open occurrences, watch marks, last clear per key). No I/O: FaultIngestService
 * loads the state, calls this, and writes the result in the batch's transaction.
 *
 * Rules:
 * - complete snapshots (Samsara, Motive), per vehicle in observedAt order: a key present and not
 *   open opens an occurrence; an open key absent from the snapshot clears at the snapshot's time
 *   (`snapshot_absent`); a snapshot not later than the vehicle's last applied one changes nothing
 *   (redelivery, out-of-order pages). Opens found by the FIRST snapshot of a vehicle are
 *   `bootstrap` (active before we watched) — this includes the first snapshot of a connection.
 * - explicit records (Geotab): the first record of a key opens (unless observed before the key's
 *   last clear — a late duplicate); a repeat updates last_observed_at; `dismissedAt` clears
 *   (`dismissed`). Opens from the connection's first fault-record pass are `bootstrap`: the
 *   collector sends a pass as one batch per vehicle, so the first batch's sync is remembered
 *   (watch scope `explicit-bootstrap:<syncId>`) and every batch of that sync bootstraps — not only
 *   whichever vehicle's batch happened to commit first. A batch without a sync: its own batch only.
 *   Geotab's own rule also clears a fault after a full ignition cycle without a repeat record;
 *   ignition cycles live in telemetry (engineState), which this context cannot read, so instead an
 *   occurrence with no repeat for FAULT_INACTIVITY_TIMEOUT_MS clears at last_observed_at + timeout
 *   (`inactivity_timeout`). GAP, written down: a fault that clears after one short ignition cycle
 *   stays open here until the timeout.
 *   The batch knows the vehicle's records up to `asOf` — the end of the window the collector read
 *   (batch `read.windowEnd`; the fetch time for a batch without it): the timeout is measured
 *   against it. A bootstrap pass (the collector reads it FAULT_INACTIVITY_TIMEOUT_MS back: every
 *   fault active by these rules has a record in it) says what was active when we started
 *   watching: an occurrence still open at its end opens at `asOf` (its start is unknown: "when we
 *   first watched", as a first snapshot's opens), and one that opened and cleared inside it ended
 *   before we watched — history, no occurrence and no transition.
 */
import { randomUUID } from 'node:crypto';
import { FAULT_INACTIVITY_TIMEOUT_MS } from '@switchyard/contracts';
import type { FaultRecordV1, FaultSnapshotV1 } from '@switchyard/messaging';

export type ClearedBy = 'snapshot_absent' | 'dismissed' | 'inactivity_timeout';

export interface Occurrence {
  id: string;
  vehicleSourceId: string;
  faultKey: string;
  code: string;
  description: string | null;
  model: 'complete_snapshot' | 'explicit_records';
  openedAt: string;
  lastObservedAt: string;
  clearedAt: string | null;
  clearedBy: ClearedBy | null;
  bootstrap: boolean;
  /** The J1939 occurrence count of the latest observation that reported one; null when none did. */
  occurrenceCount: number | null;
}

export interface TransitionDraft {
  occurrence: Occurrence;
  kind: 'opened' | 'cleared';
  observedAt: string;
  bootstrap: boolean;
  clearedBy: ClearedBy | null;
}

export interface FaultState {
  /** Open occurrences of the batch's model, keyed by `vehicle \u0000 faultKey`. */
  open: Map<string, Occurrence>;
  /** scope → last observedAt applied (`vehicle:<id>` for snapshots, `explicit` for records). */
  watch: Map<string, string>;
  /** Last clear per key (explicit records only). */
  lastCleared: Map<string, string>;
}

export interface Derivation {
  /** Occurrences created or changed, in first-touch order. */
  changed: Occurrence[];
  transitions: TransitionDraft[];
  /** Watch marks to store (scope → observedAt). */
  watch: Map<string, string>;
}

export const occurrenceKey = (vehicleSourceId: string, faultKey: string) => `${vehicleSourceId}\u0000${faultKey}`;
const ms = (iso: string) => Date.parse(iso);
const iso = (t: number) => new Date(t).toISOString();

class Recorder {
  readonly changed = new Map<string, Occurrence>();
  readonly transitions: TransitionDraft[] = [];
  readonly watch = new Map<string, string>();
  constructor(private readonly state: FaultState) {}

  open(model: Occurrence['model'], vehicleSourceId: string, code: { faultKey: string; code: string; description: string | null; occurrenceCount?: number }, at: string, bootstrap: boolean) {
    const occurrence: Occurrence = { id: randomUUID(), vehicleSourceId, ...code, model, openedAt: at, lastObservedAt: at, clearedAt: null, clearedBy: null, bootstrap, occurrenceCount: code.occurrenceCount ?? null };
    this.state.open.set(occurrenceKey(vehicleSourceId, code.faultKey), occurrence);
    this.changed.set(occurrence.id, occurrence);
    this.transitions.push({ occurrence, kind: 'opened', observedAt: at, bootstrap, clearedBy: null });
  }

  seen(occurrence: Occurrence, at: string, occurrenceCount: number | undefined) {
    if (ms(at) <= ms(occurrence.lastObservedAt)) return;
    occurrence.lastObservedAt = at;
    if (occurrenceCount !== undefined) occurrence.occurrenceCount = occurrenceCount;
    this.changed.set(occurrence.id, occurrence);
  }

  clear(occurrence: Occurrence, at: string, by: ClearedBy) {
    occurrence.clearedAt = at;
    occurrence.clearedBy = by;
    this.state.open.delete(occurrenceKey(occurrence.vehicleSourceId, occurrence.faultKey));
    this.state.lastCleared.set(occurrenceKey(occurrence.vehicleSourceId, occurrence.faultKey), at);
    this.changed.set(occurrence.id, occurrence);
    this.transitions.push({ occurrence, kind: 'cleared', observedAt: at, bootstrap: false, clearedBy: by });
  }

  /**
   * A bootstrap pass's outcome as of `asOf`: what it opened and still holds open opens at `asOf`;
   * what it opened and cleared again is history from before we watched and is forgotten.
   */
  watchedFrom(asOf: string) {
    const opened = new Set(this.transitions.filter((t) => t.kind === 'opened').map((t) => t.occurrence.id));
    const history = new Set(this.transitions.filter((t) => t.kind === 'cleared' && opened.has(t.occurrence.id)).map((t) => t.occurrence.id));
    this.transitions.splice(0, this.transitions.length, ...this.transitions.filter((t) => !history.has(t.occurrence.id)));
    for (const id of history) this.changed.delete(id);
    for (const t of this.transitions) {
      if (t.kind !== 'opened' || !t.bootstrap) continue;
      t.occurrence.openedAt = asOf;
      t.observedAt = asOf;
    }
  }

  result(): Derivation {
    return { changed: [...this.changed.values()], transitions: this.transitions, watch: this.watch };
  }
}

export function deriveFromSnapshots(state: FaultState, snapshots: readonly FaultSnapshotV1[]): Derivation {
  const rec = new Recorder(state);
  const ordered = [...snapshots].sort((a, b) => ms(a.observedAt) - ms(b.observedAt) || a.vehicleSourceId.localeCompare(b.vehicleSourceId));
  for (const snapshot of ordered) {
    const scope = `vehicle:${snapshot.vehicleSourceId}`;
    const last = rec.watch.get(scope) ?? state.watch.get(scope);
    if (last !== undefined && ms(snapshot.observedAt) <= ms(last)) continue;
    const bootstrap = last === undefined;
    const active = new Map(snapshot.active.map((c) => [c.faultKey, c]));
    for (const occurrence of [...state.open.values()]) {
      if (occurrence.vehicleSourceId !== snapshot.vehicleSourceId) continue;
      if (active.has(occurrence.faultKey)) rec.seen(occurrence, snapshot.observedAt, active.get(occurrence.faultKey)?.occurrenceCount);
      else rec.clear(occurrence, snapshot.observedAt, 'snapshot_absent');
    }
    for (const code of active.values()) {
      if (!state.open.has(occurrenceKey(snapshot.vehicleSourceId, code.faultKey))) rec.open('complete_snapshot', snapshot.vehicleSourceId, code, snapshot.observedAt, bootstrap);
    }
    rec.watch.set(scope, snapshot.observedAt);
  }
  return rec.result();
}

/** Watch scope marking the sync of the connection's first fault-record batch (its timestamp: that batch's fetchedAt). */
export const bootstrapScope = (syncId: string) => `explicit-bootstrap:${syncId}`;

/** `asOf`: the time the batch knows the vehicle's records up to (its read's window end, else its fetch time). */
export function deriveFromRecords(state: FaultState, records: readonly FaultRecordV1[], fetchedAt: string, syncId: string | null = null, asOf: string = fetchedAt): Derivation {
  const rec = new Recorder(state);
  const first = !state.watch.has('explicit');
  const bootstrap = first || (syncId !== null && state.watch.has(bootstrapScope(syncId)));
  if (first && syncId !== null) rec.watch.set(bootstrapScope(syncId), fetchedAt);
  const ordered = [...records].sort((a, b) => ms(a.observedAt) - ms(b.observedAt) || a.sourceId.localeCompare(b.sourceId));
  let latest = state.watch.get('explicit');
  for (const record of ordered) {
    const key = occurrenceKey(record.vehicleSourceId, record.faultKey);
    let occurrence = state.open.get(key);
    if (occurrence) rec.seen(occurrence, record.observedAt, record.occurrenceCount);
    else {
      const cleared = state.lastCleared.get(key);
      if (cleared === undefined || ms(record.observedAt) > ms(cleared)) {
        rec.open('explicit_records', record.vehicleSourceId, record, record.observedAt, bootstrap);
        occurrence = state.open.get(key);
      }
    }
    if (occurrence && record.dismissedAt !== null && ms(record.dismissedAt) >= ms(occurrence.openedAt)) rec.clear(occurrence, record.dismissedAt, 'dismissed');
    if (latest === undefined || ms(record.observedAt) > ms(latest)) latest = record.observedAt;
  }
  const now = ms(asOf);
  for (const occurrence of [...state.open.values()]) {
    if (occurrence.model !== 'explicit_records') continue;
    const expires = ms(occurrence.lastObservedAt) + FAULT_INACTIVITY_TIMEOUT_MS;
    if (expires < now) rec.clear(occurrence, iso(expires), 'inactivity_timeout');
  }
  if (bootstrap) rec.watchedFrom(iso(now));
  // The connection-level mark exists after the first batch even when it carried no records.
  rec.watch.set('explicit', latest ?? fetchedAt);
  return rec.result();
}
