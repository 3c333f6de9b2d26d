/**
 * How a credential, grant or connection change reaches the principal caches (decision 0031), in
 * one place: `committingChange` runs the change in a transaction that NOTIFYs the gateway schema's
 * channel — every gateway process clears its cache when it commits — and, once it has committed,
 * clears at once the caches of the gateway running in this process on the same ORM (the HTTP
 * disconnect route, the sandbox launcher, tests), so the process that made a change never serves
 * the old state, not even for the milliseconds the notification takes.
 */
import type { Orm } from '@switchyard/persistence';
import { notifyCredentialsChanged } from '../db/repositories/credential-changes.repository.js';

const hooks = new WeakMap<Orm, Set<() => void>>();

/** Calls `hook` after every change committed through `orm`; returns the unsubscribe. */
export function onChangesCommittedThrough(orm: Orm, hook: () => void): () => void {
  const set = hooks.get(orm) ?? new Set();
  hooks.set(orm, set);
  set.add(hook);
  return () => set.delete(hook);
}

/** Runs `work` in a transaction that announces a credential change at its commit. */
export async function committingChange<T>(orm: Orm, work: (em: Orm['em']) => Promise<T>): Promise<T> {
  const result = await orm.em.fork().transactional(async (em) => {
    const value = await work(em);
    await notifyCredentialsChanged(em);
    return value;
  });
  for (const hook of hooks.get(orm) ?? []) hook();
  return result;
}
