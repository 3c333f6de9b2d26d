/**
 * The public sync use cases (spec 3, 4.1): create, get, list, retry, cancel. Each runs in one
 * database transaction that starts with the grant recheck (spec 5 rule 2) and ends with the write,
 * so a grant revoked before the commit either blocks the write or is applied after it — never in
 * between. Errors are RpcErrors carrying codes of the contracts table, rendered by the gateway.
 *
 * Gates (rule 4): create and retry need the connection `active`, unified collection on, and every
 * purpose of the sync enabled — at create the sync's purposes are the purposes enabled on the
 * connection (none → `gate_disabled`); at retry each purpose the sync was created with must still
 * be enabled. Reads and cancel ignore the gates.
 *
 * Internal runs (`createInternal`, `getInternal`, `latestInternal`, and `createScheduledRuns`, the
 * scheduler's port): the scheduled collection's runs, with the internal purposes (drivers, groups,
 * telemetryLatest, telemetryHistory, faults) beside the public ones. No application asks for them,
 * so there is no grant recheck; they are stored with `origin` ≠ `api` (the scheduler's:
 * SCHEDULED_ORIGIN) and no application, which keeps them out of every public read and out of the
 * public default startFrom. Both entry points go through one `internalScope` (gates, then
 * `internalPurposes`); each asked purpose is kept only when there is something to collect, and a
 * run with nothing left, or whose gates are closed, is not created and says why (`created: false`),
 * so a scheduler calling every few minutes needs no error handling for ordinary states.
 * `createInternal` plans one run (over the plan limit → `sync_plan_too_large`, like a public sync);
 * `createScheduledRuns` splits a window's plan into runs within the scheduler's run limits
 * (`splitPlan`, decision 0009) and writes them all on the scheduler's transaction, so the window's
 * runs and the claimed schedule row commit together.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { newSyncId } from '@switchyard/domain';
import { OPEN_SYNCS_PER_APPLICATION } from '@switchyard/contracts';
import { currentCorrelation, RpcError, type ConnectionConfigV1, type CreateSyncRequestV1, type ListSyncsReplyV1, type ListSyncsRequestV1, type SyncCallerV1, type SyncRecordV1 } from '@switchyard/messaging';
import { inTransaction, type Em, type Orm } from '@switchyard/persistence';
import { capabilitiesFor } from '@switchyard/providers';
import { ORM } from '@switchyard/service-kit';
import { SyncRepository, type SyncOwner, type SyncRow } from '../db/repositories/sync.repository.js';
import { internalPurposes, SCHEDULED_ORIGIN } from '../domain/collection-scope.js';
import { ALL_SYNC_PURPOSES, isPublicPurpose, planSync, splitPlan, SYNC_PURPOSES, type PlanFailure, type SyncPurpose } from '../domain/sync-planner.js';
import { CANCELLED_FAILURE_REASON, nextStatus } from '../domain/sync-state.js';
import { recordSyncOutcome } from './sync-outcomes.js';
import type { ScheduledRunCreator, ScheduledRunRequest, ScheduledRunResult } from '../scheduler/scheduled-run.port.js';
import { recheckGrant } from './grant-recheck.js';
import { SyncMetrics } from './sync-metrics.js';
import { toSyncRecord } from './sync-record.js';

const DAY_MS = 86_400_000;

const ownerOf = (caller: SyncCallerV1): SyncOwner => ({ applicationId: caller.applicationId, connectionId: caller.connectionId });

function enabledPurposes(config: ConnectionConfigV1): SyncPurpose[] {
  return SYNC_PURPOSES.filter((p) => config.purposes[p]);
}

/** What the scheduled collection (or any internal caller) asks for. */
export interface CreateInternalRunInput {
  readonly connectionId: string;
  /** Purposes to collect; any of ALL_SYNC_PURPOSES. */
  readonly purposes: readonly SyncPurpose[];
  /** Start of the interval; default: the intervalEnd of the connection's previous run of this origin, else intervalEnd (an empty interval). */
  readonly startFrom?: Date;
  /** Exclusive end of the interval; default now. */
  readonly intervalEnd?: Date;
  /** Who creates the run, stored as `sync.origin` (`^[a-z][a-z_]{0,31}$`, never `api`); scheduled collection is SCHEDULED_ORIGIN. */
  readonly origin: string;
}

/** An internal run as its creator sees it: the stored sync without application and attempts. */
export type InternalRun = Readonly<Omit<SyncRow, 'applicationId' | 'attempts'>>;

export type CreateInternalRunResult =
  | { readonly created: true; readonly run: InternalRun }
  /** `gate_disabled`: paused/disconnected, unified collection off, or nothing to collect; `service_unavailable`: configuration not projected yet; else the plan's failure. */
  | { readonly created: false; readonly reason: PlanFailure | 'service_unavailable'; readonly detail: string };

function toInternalRun(row: SyncRow): InternalRun {
  const { applicationId: _application, attempts: _attempts, ...run } = row;
  return run;
}

const ORIGIN = /^[a-z][a-z_]{0,31}$/;

/** Why an internal run was not created. */
type NotCreated = { created: false; reason: PlanFailure; detail: string };

function gateOpen(config: ConnectionConfigV1): boolean {
  return config.status === 'active' && config.unifiedCollection;
}

@Injectable()
export class SyncLifecycleService implements ScheduledRunCreator {
  private readonly syncs = new SyncRepository();

  constructor(
    @Inject(ORM) private readonly orm: Orm,
    @Optional() private readonly metrics?: SyncMetrics,
  ) {}

  async create(request: CreateSyncRequestV1): Promise<SyncRecordV1> {
    if (request.startFrom !== undefined && request.lookbackDays !== undefined) throw new RpcError('conflicting_selectors');
    return inTransaction(this.orm, async (em) => {
      const { credential, grant } = await recheckGrant(em, request.caller, 'sync.create');
      const config = await this.config(em, request.caller.connectionId, true);
      if (config.environment !== credential.environment) throw new RpcError('connection_forbidden');

      const requestedAt = new Date();
      const explicit = request.startFrom !== undefined || request.lookbackDays !== undefined;
      const startFrom = await this.startFrom(em, request, requestedAt);
      // Spec 5 rule 4: reaching before now on purpose is history; the default continuation
      // (previous requestedAt) only covers time the application already asked for.
      if (explicit && startFrom < requestedAt && !grant.history) throw new RpcError('history_forbidden');
      // An explicit selector asks for an interval: one that holds no time (startFrom now or later,
      // or lookbackDays under a millisecond) would complete at once with nothing collected.
      if (explicit && startFrom >= requestedAt) throw new RpcError('empty_interval', 'startFrom is not before the request time');
      // Every field of the request is valid from here on: only now the conflicts (409), first the
      // provider request workflows, which are not implemented.
      if (request.providerRequests !== undefined) throw new RpcError('provider_requests_not_supported');

      const purposes = enabledPurposes(config);
      if (!gateOpen(config) || purposes.length === 0) throw new RpcError('gate_disabled');
      await this.assertOpenSyncRoom(em, request.caller.applicationId);
      const plan = await this.planAndInsert(em, { owner: ownerOf(request.caller), origin: 'api', config, purposes, startFrom, intervalEnd: requestedAt, requestedAt });
      if (!plan.ok) throw new RpcError(plan.error, plan.detail);
      return toSyncRecord(await this.load(em, request.caller, plan.id));
    });
  }

  /**
   * Issue 14: an application keeps at most OPEN_SYNCS_PER_APPLICATION syncs open (requested or in
   * progress) at once — create and retry both open one. Counted under the application's advisory
   * lock (held to the commit), so concurrent creates and retries queue and the cap holds exactly.
   */
  private async assertOpenSyncRoom(em: Em, applicationId: string): Promise<void> {
    if ((await this.syncs.lockAndCountOpen(em, applicationId)) >= OPEN_SYNCS_PER_APPLICATION) throw new RpcError('too_many_open_syncs');
  }

  async get(caller: SyncCallerV1, syncId: string): Promise<SyncRecordV1> {
    return inTransaction(this.orm, async (em) => {
      await recheckGrant(em, caller, 'sync.read');
      return toSyncRecord(await this.load(em, caller, syncId));
    });
  }

  async list(request: ListSyncsRequestV1): Promise<ListSyncsReplyV1> {
    return inTransaction(this.orm, async (em) => {
      await recheckGrant(em, request.caller, 'sync.read');
      // The first page fixes the creation horizon; later pages carry it in their cursor.
      const horizon = request.horizon ?? (await this.syncs.currentHorizon(em));
      const rows = await this.syncs.page(em, ownerOf(request.caller), { limit: request.limit + 1, status: request.status, horizon, after: request.after });
      return { syncs: rows.slice(0, request.limit).map(toSyncRecord), horizon, hasMore: rows.length > request.limit };
    });
  }

  async retry(caller: SyncCallerV1, syncId: string): Promise<SyncRecordV1> {
    return inTransaction(this.orm, async (em) => {
      await recheckGrant(em, caller, 'sync.retry');
      const sync = await this.load(em, caller, syncId, true);
      if (!nextStatus(sync.status, 'retry')) throw new RpcError('sync_state_conflict');
      const config = await this.config(em, caller.connectionId, false);
      if (!gateOpen(config) || sync.purposes.some((p) => !isPublicPurpose(p) || !config.purposes[p])) throw new RpcError('gate_disabled');
      // A retry reopens the sync, so it counts against the same cap as a create, under the same
      // per-application lock (the retried sync is failed, not yet among the open ones counted).
      await this.assertOpenSyncRoom(em, caller.applicationId);
      await this.syncs.resetForRetry(em, syncId);
      return toSyncRecord(await this.load(em, caller, syncId));
    });
  }

  async cancel(caller: SyncCallerV1, syncId: string): Promise<SyncRecordV1> {
    const record = await inTransaction(this.orm, async (em) => {
      await recheckGrant(em, caller, 'sync.cancel');
      const sync = await this.load(em, caller, syncId, true);
      if (!nextStatus(sync.status, 'cancel')) throw new RpcError('sync_state_conflict');
      await this.syncs.markCancelled(em, syncId, CANCELLED_FAILURE_REASON);
      await recordSyncOutcome(em, syncId);
      return toSyncRecord(await this.load(em, caller, syncId));
    });
    // Only public syncs are cancelled (through the API), after the commit.
    this.metrics?.finished('api', 'failed', CANCELLED_FAILURE_REASON);
    return record;
  }

  /**
   * Creates an internal run (see the header) in one transaction that holds the connection's
   * configuration row lock, so concurrent calls for one connection queue and each continues from
   * the previous run's intervalEnd. Throws only for a malformed input or a database error.
   */
  async createInternal(input: CreateInternalRunInput): Promise<CreateInternalRunResult> {
    if (!ORIGIN.test(input.origin) || input.origin === 'api') throw new Error(`invalid internal origin ${JSON.stringify(input.origin)}`);
    const unknown = input.purposes.filter((p) => !(ALL_SYNC_PURPOSES as readonly string[]).includes(p));
    if (unknown.length > 0) throw new Error(`unknown purposes ${unknown.join(', ')}`);
    return inTransaction(this.orm, async (em): Promise<CreateInternalRunResult> => {
      const config = await this.syncs.lockConnectionConfig(em, input.connectionId);
      if (!config) return { created: false, reason: 'service_unavailable', detail: 'connection configuration not projected yet' };
      const requestedAt = new Date();
      const intervalEnd = input.intervalEnd ?? requestedAt;
      const previous = input.startFrom ? undefined : await this.syncs.latestInternal(em, input.connectionId, input.origin);
      const startFrom = input.startFrom ?? (previous ? new Date(previous.intervalEnd) : intervalEnd);
      const planned = await this.planInternal(em, { config, origin: input.origin, purposes: input.purposes, startFrom, intervalEnd, requestedAt });
      if (!planned.created) return planned;
      const row = await this.syncs.findInternal(em, planned.id);
      if (!row) throw new Error(`internal run ${planned.id} vanished in its own transaction`);
      return { created: true, run: toInternalRun(row) };
    });
  }

  /**
   * The scheduler's runs of one window (scheduled-run.port.ts), on the scheduler's transaction `em`
   * (the one holding the claimed schedule row), with origin SCHEDULED_ORIGIN; requestedAt is the
   * interval's end (the database clock of the claim). The window's plan is cut by `splitPlan` into
   * parts within `request.limits`, one run each, every unit in exactly one of them; all are
   * inserted here or none (a part refused by planSync would be a splitPlan bug: it throws, and the
   * scheduler's transaction rolls back, so no window is ever half created).
   */
  async createScheduledRuns(em: Em, request: ScheduledRunRequest): Promise<ScheduledRunResult> {
    const { config, startFrom, intervalEnd, limits } = request;
    const purposes = this.internalScope(config, request.purposes, startFrom, intervalEnd);
    if (!Array.isArray(purposes)) return purposes;
    const split = splitPlan({ purposes, vehicleSourceIds: config.approvedVehicleIds, startFrom, intervalEnd, support: capabilitiesFor(config.provider).fields, limits });
    if (!split.ok) return { created: false, reason: split.error, detail: split.detail };
    const owner = { applicationId: null, connectionId: config.connectionId };
    const syncIds: string[] = [];
    for (const part of split.parts) {
      const plan = await this.planAndInsert(em, {
        owner,
        origin: SCHEDULED_ORIGIN,
        config,
        purposes: part.purposes,
        vehicleSourceIds: part.vehicleSourceIds,
        startFrom,
        intervalEnd,
        requestedAt: intervalEnd,
        limits,
      });
      if (!plan.ok) throw new Error(`part ${syncIds.length + 1} of ${split.parts.length} of a split scheduled plan was refused: ${plan.detail}`);
      syncIds.push(plan.id);
    }
    return { created: true, syncIds };
  }

  /** The connection's newest internal run of `origin` (e.g. to skip a tick while it is still open); undefined: none yet. */
  async latestInternal(connectionId: string, origin: string): Promise<InternalRun | undefined> {
    return inTransaction(this.orm, async (em) => {
      const row = await this.syncs.latestInternal(em, connectionId, origin);
      return row && toInternalRun(row);
    });
  }

  /** An internal run's state (undefined: no such internal run). */
  async getInternal(syncId: string): Promise<InternalRun | undefined> {
    return inTransaction(this.orm, async (em) => {
      const row = await this.syncs.findInternal(em, syncId);
      return row && toInternalRun(row);
    });
  }

  /**
   * What an internal run may collect (createInternal, createScheduledRuns): the gates, then the
   * purposes left with something to collect (`internalPurposes`); or why nothing is created.
   */
  private internalScope(config: ConnectionConfigV1, asked: readonly SyncPurpose[], startFrom: Date, intervalEnd: Date): SyncPurpose[] | NotCreated {
    if (!gateOpen(config)) return { created: false, reason: 'gate_disabled', detail: `connection ${config.status}, unified collection ${config.unifiedCollection ? 'on' : 'off'}` };
    const purposes = internalPurposes(asked, config, capabilitiesFor(config.provider).fields, startFrom >= intervalEnd);
    return purposes.length > 0 ? purposes : { created: false, reason: 'gate_disabled', detail: 'nothing to collect for the asked purposes' };
  }

  /** One internal run (createInternal): `internalScope`, then `planAndInsert` under the plan limit. */
  private async planInternal(
    em: Em,
    p: { config: ConnectionConfigV1; origin: string; purposes: readonly SyncPurpose[]; startFrom: Date; intervalEnd: Date; requestedAt: Date },
  ): Promise<{ created: true; id: string } | NotCreated> {
    const purposes = this.internalScope(p.config, p.purposes, p.startFrom, p.intervalEnd);
    if (!Array.isArray(purposes)) return purposes;
    const plan = await this.planAndInsert(em, { ...p, owner: { applicationId: null, connectionId: p.config.connectionId }, purposes });
    return plan.ok ? { created: true, id: plan.id } : { created: false, reason: plan.error, detail: plan.detail };
  }

  /**
   * Plans [startFrom, intervalEnd) over the approved vehicles (or the given part of them) and stores
   * the sync and its units when the plan is accepted (public syncs, internal runs, scheduled parts).
   */
  private async planAndInsert(
    em: Em,
    p: {
      owner: { applicationId: string | null; connectionId: string };
      origin: string;
      config: ConnectionConfigV1;
      purposes: readonly SyncPurpose[];
      startFrom: Date;
      intervalEnd: Date;
      requestedAt: Date;
      /** A scheduled part's vehicles; default: every approved vehicle. */
      vehicleSourceIds?: readonly string[];
      /** Default: the plan limit (SYNC_PLAN). */
      limits?: { readonly maxUnits: number; readonly maxBytes: number };
    },
  ): Promise<{ ok: true; id: string } | { ok: false; error: PlanFailure; detail: string }> {
    const plan = planSync({
      purposes: p.purposes,
      vehicleSourceIds: p.vehicleSourceIds ?? p.config.approvedVehicleIds,
      startFrom: p.startFrom,
      intervalEnd: p.intervalEnd,
      support: capabilitiesFor(p.config.provider).fields,
      ...(p.limits ? { limits: p.limits } : {}),
    });
    if (!plan.ok) return plan;
    const id = newSyncId(p.requestedAt);
    await this.syncs.insert(em, { id, owner: p.owner, origin: p.origin, requestedAt: p.requestedAt, startFrom: p.startFrom, intervalEnd: p.intervalEnd, purposes: p.purposes, trace: currentCorrelation() }, plan.units);
    return { ok: true, id };
  }

  private async load(em: Em, caller: SyncCallerV1, syncId: string, lock = false): Promise<SyncRow> {
    const row = await this.syncs.find(em, ownerOf(caller), syncId, lock);
    if (!row) throw new RpcError('not_found');
    return row;
  }

  /** The projected configuration; missing means its event has not arrived: evidence unavailable. */
  private async config(em: Em, connectionId: string, lock: boolean): Promise<ConnectionConfigV1> {
    const config = lock ? await this.syncs.lockConnectionConfig(em, connectionId) : await this.syncs.connectionConfig(em, connectionId);
    if (!config) throw new RpcError('service_unavailable', 'connection configuration not projected yet');
    return config;
  }

  private async startFrom(em: Em, request: CreateSyncRequestV1, requestedAt: Date): Promise<Date> {
    if (request.startFrom !== undefined) return new Date(request.startFrom);
    if (request.lookbackDays !== undefined) {
      const start = new Date(requestedAt.getTime() - Math.round(request.lookbackDays * DAY_MS));
      if (Number.isNaN(start.getTime())) throw new RpcError('invalid_body', 'lookbackDays out of range');
      return start;
    }
    // Spec 3 rule 5: the application's first default starts now, later ones at the requestedAt of
    // its previous sync on the connection that did not fail or get cancelled (decision 0008).
    const previous = await this.syncs.latestDefaultBase(em, ownerOf(request.caller));
    return previous ? new Date(previous) : requestedAt;
  }
}
