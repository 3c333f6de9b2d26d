/**
 * Keeps every gateway process's principal cache honest (decision 0031): one PostgreSQL connection
 * per process LISTENs on the gateway's credential-change channel, and each notification — sent at
 * the commit of any credential, grant or connection change (credential-changes.repository.ts) —
 * clears the whole cache. Changes are operator actions, rare next to requests, so clearing
 * everything costs one lookup per credential in use and needs no bookkeeping of what depends on what.
 * A lost connection clears the cache and reconnects (250 ms doubling to 10 s); notifications sent
 * while it was down are lost, which the cache's TTL bounds (≤ 1 s). The connection is not part of
 * the ORM pool: a LISTEN holds it for the life of the process. A change committed through this
 * process's own ORM clears the cache right after its commit, before its notification arrives.
 */
import { createRequire } from 'node:module';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { RUNTIME, type ServiceRuntime } from '@switchyard/service-kit';
import { credentialChangesChannel, listenStatement } from '../db/repositories/credential-changes.repository.js';
import { onChangesCommittedThrough } from '../services/credential-change-hooks.js';
import { PrincipalCache } from './principal-cache.js';

/** The part of `pg`'s Client this file uses (`pg` ships no types here). */
interface ListenClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', listener: () => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
}
const { Client } = createRequire(import.meta.url)('pg') as { Client: new (options: { connectionString: string }) => ListenClient };

const RECONNECT_MS = { first: 250, max: 10_000 };

@Injectable()
export class CredentialChangeListener implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** The connection listening, or being connected; events of any older one are ignored. */
  private client: ListenClient | undefined;
  private retryMs = RECONNECT_MS.first;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private unhook: (() => void) | undefined;

  constructor(
    private readonly cache: PrincipalCache,
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  onApplicationBootstrap(): void {
    this.unhook = onChangesCommittedThrough(this.runtime.orm, () => this.cache.clear());
    void this.listen();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unhook?.();
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    // Not awaited: pg's end() of a connection that already failed never resolves.
    void client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    const client = new Client({ connectionString: this.runtime.orm.config.get('clientUrl') as string });
    this.client = client;
    client.on('notification', () => this.cache.clear());
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(listenStatement(credentialChangesChannel(this.runtime.orm)));
    } catch (error) {
      this.lost(client, error as Error);
      return;
    }
    if (this.client !== client) return;
    // Whatever changed before this connection listened was not heard: start from nothing.
    this.cache.clear();
    if (this.retryMs > RECONNECT_MS.first) this.runtime.logger.info('credential change listener reconnected');
    this.retryMs = RECONNECT_MS.first;
  }

  private lost(client: ListenClient, error?: Error): void {
    void client.end().catch(() => undefined);
    if (this.client !== client) return;
    this.client = undefined;
    this.cache.clear();
    if (this.stopped) return;
    if (this.retryMs === RECONNECT_MS.first) this.runtime.logger.warn({ err: error }, 'credential change listener lost its connection; the principal cache holds entries at most its TTL until it is back');
    this.timer = setTimeout(() => void this.listen(), this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(RECONNECT_MS.max, this.retryMs * 2);
  }
}
