/**
 * Retention of connect sessions (decision 0030; issue 25 item 2): a session's link lives ten
 * minutes, after which no step can move it, yet every row stayed. On service-kit's retention
 * schedule (every process, a pass a minute after start, then hourly) sessions whose link expired
 * more than CONNECT_SESSION_RETENTION_DAYS (30) ago are deleted in chunks of 10,000; GET of such a
 * session answers 404 like an unknown id. The per-connection session rate window (minutes) never
 * reaches that far back.
 */
import { Inject, Injectable } from '@nestjs/common';
import { pruneInChunks, RetentionService, RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../config.js';
import { ConnectSessionRepository } from '../db/repositories/connect-session.repository.js';

const DEFAULT_RETENTION_MS = 30 * 86_400_000;
const CHUNK = 10_000;

@Injectable()
export class ConnectSessionRetention extends RetentionService {
  protected readonly what = 'connect sessions';
  private readonly retentionMs: number;

  constructor(@Inject(RUNTIME) runtime: ServiceRuntime, @Inject(GATEWAY_SETTINGS) settings: GatewaySettings) {
    super(runtime);
    this.retentionMs = settings.connectSessionRetentionMs ?? DEFAULT_RETENTION_MS;
  }

  /** One pass at `now`; returns how many sessions went. */
  prune(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.retentionMs);
    return pruneInChunks(CHUNK, (limit) => new ConnectSessionRepository(this.runtime.orm.em.fork()).pruneExpiredBefore(before, limit));
  }
}
