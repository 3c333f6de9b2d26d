/**
 * Entity ids minted in PostgreSQL (read-sql.ts `entityIdSql`, used by the vehicle reads to mint the
 * group ids of reported memberships) equal libs/domain `entityId` — the one derivation of decision
 * 0003 — for generated references: every kind and provider, upper-case connection ids, source ids
 * with quotes, multi-byte and astral characters, lengths around the length prefix's bytes.
 * Mutations tried: the connection not lower-cased → fails; the two leading zero bits dropped (the
 * 128 bits read from the first character) → fails.
 */
import { describe, expect, it } from '@jest/globals';
import { ENTITY_KINDS, entityId, PROVIDERS } from '@switchyard/domain';
import { useMigratedSchema } from '@switchyard/testing/jest';
import fc from 'fast-check';
import { directoryMigrations } from '../src/db/migrations/index.js';
import { entityIdSql } from '../src/db/repositories/read-sql.js';

const db = useMigratedSchema('directory', directoryMigrations);

describe('entityIdSql', () => {
  it('mints the ids libs/domain entityId mints', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENTITY_KINDS),
        fc.uuid().chain((u) => fc.constantFrom(u, u.toUpperCase())),
        fc.constantFrom(...PROVIDERS),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }).filter((s) => !s.includes('\u0000')),
        async (kind, connectionId, provider, sourceId) => {
          const [row] = await db.sql<{ id: string }>(`select ${entityIdSql(kind, 'q.c', 'q.p', 'q.s')} as id from (select ?::text as c, ?::text as p, ?::text as s) q`, [connectionId, provider, sourceId]);
          expect(row?.id).toBe(entityId(kind, { connectionId, provider, sourceId }));
        },
      ),
      { numRuns: 100 },
    );
  });
});
