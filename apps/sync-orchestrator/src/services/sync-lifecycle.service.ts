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
 */
import { Inject, Injectable } from '@nestjs/common';
import { newSyncId } from '@switchyard/domain';
import { RpcError, type ConnectionConfigV1, type CreateSyncRequestV1, type ListSyncsReplyV1, type ListSyncsRequestV1, type SyncCallerV1, type SyncRecordV1 } from '@switchyard/messaging';
import { inTransaction, type Em, type Orm } from '@switchyard/persistence';
import { capabilitiesFor } from '@switchyard/providers';
import { ORM } from '@switchyard/service-kit';
import { SyncRepository, type SyncOwner, type SyncRow } from '../db/repositories/sync.repository.js';
import { planSync, SYNC_PURPOSES, type SyncPurpose } from '../domain/sync-planner.js';
import { CANCELLED_FAILURE_REASON, nextStatus } from '../domain/sync-state.js';
import { recheckGrant } from './grant-recheck.js';
import { toSyncRecord } from './sync-record.js';

const DAY_MS = 86_400_000;

const ownerOf = (caller: SyncCallerV1): SyncOwner => ({ applicationId: caller.applicationId, connectionId: caller.connectionId });

function enabledPurposes(config: ConnectionConfigV1): SyncPurpose[] {
  return SYNC_PURPOSES.filter((p) => config.purposes[p]);
}

function gateOpen(config: ConnectionConfigV1): boolean {
  return config.status === 'active' && config.unifiedCollection;
}

@Injectable()
export class SyncLifecycleService {
  private readonly syncs = new SyncRepository();

  constructor(@Inject(ORM) private readonly orm: Orm) {}

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

      const purposes = enabledPurposes(config);
      if (!gateOpen(config) || purposes.length === 0) throw new RpcError('gate_disabled');
      const plan = planSync({
        purposes,
        vehicleSourceIds: config.approvedVehicleIds,
        startFrom,
        intervalEnd: requestedAt,
        support: capabilitiesFor(config.provider).fields,
      });
      if (!plan.ok) throw new RpcError(plan.error, plan.detail);

      const id = newSyncId(requestedAt);
      await this.syncs.insert(em, { id, owner: ownerOf(request.caller), requestedAt, startFrom, purposes }, plan.units);
      return toSyncRecord(await this.load(em, request.caller, id));
    });
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
      if (!gateOpen(config) || sync.purposes.some((p) => !config.purposes[p])) throw new RpcError('gate_disabled');
      await this.syncs.resetForRetry(em, syncId);
      return toSyncRecord(await this.load(em, caller, syncId));
    });
  }

  async cancel(caller: SyncCallerV1, syncId: string): Promise<SyncRecordV1> {
    return inTransaction(this.orm, async (em) => {
      await recheckGrant(em, caller, 'sync.cancel');
      const sync = await this.load(em, caller, syncId, true);
      if (!nextStatus(sync.status, 'cancel')) throw new RpcError('sync_state_conflict');
      await this.syncs.markCancelled(em, syncId, CANCELLED_FAILURE_REASON);
      return toSyncRecord(await this.load(em, caller, syncId));
    });
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
    // Spec 3 rule 5: the connection's first sync starts now, later ones at the previous requestedAt.
    const previous = await this.syncs.latestRequestedAt(em, request.caller.connectionId);
    return previous ? new Date(previous) : requestedAt;
  }
}
