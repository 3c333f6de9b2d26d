/**
 * Units of work for code that has no HTTP request around it: NATS handlers, JetStream
 * consumers, timers, CLIs.
 *
 * Invariant: each call gets its own forked EntityManager (its own identity map) inside its own
 * RequestContext, and the returned promise settles only after the work is flushed — committed —
 * so a consumer that acks after `await withRequestContext(...)` never acks uncommitted work.
 * `allowGlobalContext: false` (createOrm) makes a forgotten wrapper throw instead of sharing state.
 */
import { RequestContext } from '@mikro-orm/core';
import type { Orm } from './orm.js';

/** The EntityManager type handed to units of work (PostgreSQL flavour: has `execute`). */
export type Em = Orm['em'];

/**
 * Runs `fn` with a fresh EntityManager and flushes it before resolving. Each flush is atomic on
 * its own; use inTransaction() when raw SQL (em.execute, bulkUpsert) and entity changes must
 * commit together.
 */
export async function withRequestContext<T>(orm: Orm, fn: (em: Em) => Promise<T>): Promise<T> {
  const em = orm.em.fork();
  return RequestContext.create(em, async () => {
    const result = await fn(em);
    await em.flush();
    return result;
  });
}

/**
 * Runs `fn` in one database transaction on a fresh EntityManager: everything `fn` does through
 * `em` — entity changes (flushed at the end) and `em.execute` / bulkUpsert — commits together when
 * it resolves and rolls back when it throws (the error is rethrown).
 */
export async function inTransaction<T>(orm: Orm, fn: (em: Em) => Promise<T>): Promise<T> {
  const em = orm.em.fork();
  return RequestContext.create(em, () => em.transactional((tx) => fn(tx)));
}
