/**
 * `events.connection.health.<connectionId>` v1: one observation of a connection's provider
 * collection — a collector job that fetched and published every page (`success`), or one that
 * stopped on a provider error (`failure`, with the provider's reason code). Published by the
 * sync-orchestrator, kept by the gateway on its connection row (spec 2.8 health fields) and by the
 * directory per stored dataset (dataset status `degraded`).
 *
 * `datasets` (optional, added compatibly): the directory datasets the job's work feeds — a failed
 * trips fetch is not a failure of the vehicles listing. `[]`: work that feeds none (telemetry,
 * faults). Absent (publishers before it): the observation counts for every dataset, the meaning
 * it had when health was per connection. The gateway's connection fields ignore it.
 *
 * Ordering invariant: `observedAt` orders observations of one connection and scope; `sequence`
 * (a PostgreSQL sequence in the orchestrator's schema, shared by every orchestrator process) breaks
 * ties and identifies the observation. A consumer never lets an observation older than the stored
 * `last_success_at` of its scope change anything, so redelivery and reordering cannot roll health
 * back.
 */
import { z } from 'zod';
import { DIRECTORY_DATASETS, type DirectoryDataset } from './directory-read.v1.js';

export const connectionHealthV1 = z
  .object({
    connectionId: z.uuid(),
    observedAt: z.iso.datetime({ offset: true }),
    outcome: z.enum(['success', 'failure']),
    /** The provider reason code (snake_case, e.g. `provider_auth_required`) on failure; null on success. */
    errorCode: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/)
      .nullable(),
    /** `core`: the unified collection (directory, telemetry, faults); `extended`: telemetry beyond it. */
    scope: z.enum(['core', 'extended']),
    /** When collection will next be tried after a retryable failure; null when unknown or not retried. */
    nextRetryAt: z.iso.datetime({ offset: true }).nullable(),
    /** Decimal text of a positive 64-bit integer, increasing per orchestrator database. */
    sequence: z.string().regex(/^[1-9]\d{0,18}$/),
    /** The directory datasets this observation is about; absent = every dataset (see above). */
    datasets: z
      .array(z.enum(DIRECTORY_DATASETS))
      .max(DIRECTORY_DATASETS.length)
      .refine((d) => new Set(d).size === d.length, { message: 'datasets are distinct' })
      .optional(),
  })
  .strict()
  .refine((e) => (e.outcome === 'failure') === (e.errorCode !== null), { message: 'errorCode is set exactly when outcome is failure', path: ['errorCode'] });

export type ConnectionHealthV1 = z.output<typeof connectionHealthV1>;

/** The directory datasets an observation is about: the ones it names, every dataset when it names none (an older publisher). */
export function healthDatasetsOf(event: Pick<ConnectionHealthV1, 'datasets'>): readonly DirectoryDataset[] {
  return event.datasets ?? DIRECTORY_DATASETS;
}
