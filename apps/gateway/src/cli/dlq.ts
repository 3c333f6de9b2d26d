/**
 * Dead-letter operator CLI: `npm run dlq -- <command> [options]` (issue 14; docs/reliability.md).
 * Lists, inspects, replays and discards the dead letters of the DLQ stream (libs/messaging's
 * DeadLetters engine, on a connection of its own: DeadLetterStore — the operator console runs the
 * same engine on the gateway's bus). Prints JSON lines; never a payload in `list` (only in
 * `inspect`, which the operator asks for). Replay is idempotent: a replayed dead letter is removed
 * from the DLQ, so a second replay answers `not_found` and publishes nothing; discard removes one
 * without publishing it. Reads NATS_URL, NATS_NAMESPACE and the
 * NATS_* credentials like every app; without NATS_URL, the NATS and namespace `npm start` recorded in
 * `<SWITCHYARD_DATA_DIR>/local-stack.json` (and a clear refusal when that is the in-process bus). Exit code 0 on success, 1 on any error (reason on stderr).
 */
import { parseArgs } from 'node:util';
import { DeadLetterStore, type DeadLetterFilter } from '@switchyard/messaging';
import { createLogger, inProcessBus, loadConfig, natsAuth, natsEnvSchema, withLocalStack } from '@switchyard/service-kit';
import { z } from 'zod';

const USAGE = `usage: npm run dlq -- <command> [options]
  list [--subject <pattern>] [--reason <code>] [--consumer <durable>] [--from <iso>] [--to <iso>] [--limit <n>]
      dead letters, oldest first: sequence, stored time, original subject, consumer, reason, detail, delivery count
  inspect --seq <n>                 one dead letter with its payload
  replay --seq <n>                  publish it again to its original subject, then remove it from the DLQ
  replay --all [list filters]       the same for every dead letter the filters select
  discard --seq <n>                 remove it from the DLQ without publishing it
  discard --all [list filters]      the same for every dead letter the filters select
  (subjects take NATS wildcards: ingest.directory.*, events.>; times are RFC 3339)`;

const OPTIONS = {
  subject: { type: 'string' },
  reason: { type: 'string' },
  consumer: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  limit: { type: 'string' },
  seq: { type: 'string' },
  all: { type: 'boolean' },
} as const;

const envSchema = natsEnvSchema.safeExtend({ NATS_NAMESPACE: z.string().regex(/^([a-z0-9][a-z0-9-]*)?$/).default('') });

function instant(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms)) throw new Error(`--${name}: an RFC 3339 date-time, got "${value}"`);
  return new Date(ms);
}

function positive(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new Error(`--${name}: a positive integer, got "${value}"`);
  return Number(value);
}

export async function runDlqCli(argv: readonly string[], out: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { positionals, values } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  const command = positionals[0];
  if (!command || !['list', 'inspect', 'replay', 'discard'].includes(command) || positionals.length > 1) throw new Error(USAGE);
  const filter: DeadLetterFilter = {
    ...(values.subject ? { subject: values.subject } : {}),
    ...(values.reason ? { reason: values.reason } : {}),
    ...(values.consumer ? { consumer: values.consumer } : {}),
    ...(values.from ? { from: instant('from', values.from) } : {}),
    ...(values.to ? { to: instant('to', values.to) } : {}),
    ...(values.limit ? { limit: positive('limit', values.limit) } : {}),
  };
  const seq = positive('seq', values.seq);
  if (command === 'inspect' && seq === undefined) throw new Error('inspect needs --seq');
  if ((command === 'replay' || command === 'discard') && (seq === undefined) === !values.all) throw new Error(`${command} needs exactly one of --seq <n> or --all [filters]`);

  // Beside `npm start`, its NATS and namespace (local-stack.json) unless NATS_URL says otherwise.
  const local = withLocalStack(env);
  const inProcess = inProcessBus(local);
  if (inProcess) throw new Error(inProcess);
  const parsed = loadConfig(envSchema, local.env);
  const store = await DeadLetterStore.open({ servers: parsed.NATS_URL, namespace: parsed.NATS_NAMESPACE, auth: natsAuth(parsed), logger: createLogger({ service: 'gateway', level: 'warn' }) });
  try {
    if (command === 'list') {
      for (const { seq: n, storedAt, envelope } of await store.list(filter)) {
        const { payload: _payload, ...rest } = envelope;
        out(JSON.stringify({ seq: n, storedAt, ...rest }));
      }
    } else if (command === 'inspect' && seq !== undefined) {
      const letter = await store.get(seq);
      if (!letter) throw new Error(`no dead letter ${seq} (replayed, expired or never written)`);
      out(JSON.stringify(letter));
    } else if (command === 'replay' || command === 'discard') {
      const targets = seq !== undefined ? [seq] : (await store.list(filter)).map((l) => l.seq);
      for (const target of targets) out(JSON.stringify(command === 'replay' ? await store.replay(target) : await store.discard(target)));
    }
  } finally {
    await store.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    await runDlqCli(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
