/**
 * The setting every ingest context (directory, telemetry-ingest, fault-feed) shares: the ack wait
 * of its `ingest.<context>.*` durable, INGEST_ACK_WAIT_MS. Parsed once by the context's start
 * function (`startIngestContext`, before any connection or migration), so a bad value stops the
 * process with the one ConfigError message (main-runner.ts), and applied by the bus transport to
 * every INGEST durable the context consumes (`tuneConsumer`).
 *
 * The ack wait is how long JetStream waits for the ack of a delivered batch before it redelivers
 * it — after a consumer crash, the delay before that process's in-flight batches are retried —
 * and the drain deadline of the consumer at shutdown. It is server state of the durable: every
 * process provisions it at start (messaging provisioning.ts updates a durable whose ack wait
 * differs), so the processes of one context must share the value or the last one started wins.
 * Bounds: at least 5 s, well above a batch's handling (a few ms measured for 1,000-2,000 rows; in
 * fault-feed plus waiting on the connection's lock behind up to 15 other batches), so a slow batch
 * is not handed to a second process while the first still works on it; at most 10 min, below the orchestrator's
 * RECEIPT_WAIT_MS default (15 min), so a crashed batch is redelivered before its unit is collected
 * again.
 */
import { z } from 'zod';
import { startService, type RunningService, type ServiceDefinition, type StartOptions } from '../bootstrap.js';
import { STREAMS } from '@switchyard/messaging';
import type { Orm } from '@switchyard/persistence';
import { loadConfig } from '../config.js';
import { startLedgerRetention } from './ledger-retention.js';
import { startRetentionPasses } from '../retention.js';

export const DEFAULT_INGEST_ACK_WAIT_MS = 60_000;

export const ingestEnvSchema = z.object({
  INGEST_ACK_WAIT_MS: z.coerce.number().int().min(5_000).max(600_000).default(DEFAULT_INGEST_ACK_WAIT_MS),
});

export interface IngestSettings {
  /** Ack wait of the context's ingest durable (INGEST_ACK_WAIT_MS). */
  readonly ackWaitMs: number;
}

/** Parses the ingest variables of `env`; throws ConfigError naming each bad one. */
export function loadIngestSettings(env: NodeJS.ProcessEnv): IngestSettings {
  const parsed = loadConfig(ingestEnvSchema, env);
  return { ackWaitMs: parsed.INGEST_ACK_WAIT_MS };
}

export interface IngestContextStartOptions extends StartOptions {
  /** Environment to read INGEST_ACK_WAIT_MS from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** A context's own retention job beside the ledger's, on the same schedule (startRetentionPasses). */
export interface RetentionPass {
  /** Names the job in the logs. */
  what: string;
  /** One pass; returns how many rows (or partitions) went. */
  pass: (orm: Orm) => Promise<number>;
}

/**
 * Starts an ingest context with its settings parsed from `env` (the start function of each ingest
 * app), the batch ledger's retention and the context's own `retention` jobs, all stopped before
 * the service closes.
 */
export async function startIngestContext(def: ServiceDefinition, { env = process.env, ...options }: IngestContextStartOptions, retention: readonly RetentionPass[] = []): Promise<RunningService> {
  const { ackWaitMs } = loadIngestSettings(env);
  const running = await startService(def, {
    ...options,
    transport: {
      ...options.transport,
      // The caller's own tuning (tests: a small maxDeliver) first, then the ingest ack wait.
      tuneConsumer: (declared) => {
        const consumer = options.transport?.tuneConsumer?.(declared) ?? declared;
        return consumer.event.stream === STREAMS.INGEST.name ? { ...consumer, ackWaitMs } : consumer;
      },
    },
  });
  running.runtime.metrics.declare('ingestRecords', 'ingestBatches', 'ingestPipelineLag');
  const jobs = [startLedgerRetention(running.runtime), ...retention.map((job) => startRetentionPasses(running.runtime, job.what, job.pass))];
  return {
    runtime: running.runtime,
    app: running.app,
    url: running.url,
    internalUrl: running.internalUrl,
    async close() {
      for (const job of jobs) await job.stop();
      await running.close();
    },
  };
}
