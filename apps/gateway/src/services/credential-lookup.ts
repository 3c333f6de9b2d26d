/** Does a presented token still authenticate? Used by the sandbox launcher to decide whether to reseed. */
import type { Orm } from '@switchyard/persistence';
import { Application, ConsumerKey, OperatorCredential } from '../db/entities/index.js';
import { credentialMatches, parseCredential } from './credential-format.js';

export async function credentialExists(orm: Orm, token: string): Promise<boolean> {
  const parsed = parseCredential(token);
  if (!parsed) return false;
  const em = orm.em.fork();
  const row =
    parsed.kind === 'consumerKey'
      ? await em.findOne(ConsumerKey, { lookupId: parsed.lookupId, revokedAt: null })
      : parsed.kind === 'operatorKey'
        ? await em.findOne(OperatorCredential, { lookupId: parsed.lookupId, revokedAt: null })
        : parsed.kind === 'sandboxSecret' || parsed.kind === 'prodSecret'
          ? await em.findOne(Application, { lookupId: parsed.lookupId, revokedAt: null })
          : undefined;
  return !!row && credentialMatches(token, row.secretHash as Buffer);
}
