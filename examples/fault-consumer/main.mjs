// `npm run example:fault-consumer -- [--durable <name>] [--replay]`: prints fault transitions as
// CloudEvents JSON lines. NATS_URL (default nats://127.0.0.1:4222), FAULTS_STREAM (default FAULTS),
// FAULTS_SUBJECTS (default fleet.faults.>). Stop with Ctrl-C; start again with the same --durable
// to resume; --replay prints everything the stream holds from its start and exits.
import { replayFaultTransitions, startFaultConsumer } from './fault-consumer.ts';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const servers = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const stream = process.env.FAULTS_STREAM ?? 'FAULTS';
const subjects = process.env.FAULTS_SUBJECTS ?? 'fleet.faults.>';
const print = (_transition, event) => console.log(JSON.stringify(event));

if (args.includes('--replay')) {
  const count = await replayFaultTransitions({ servers, stream, subjects, handle: print });
  console.error(`replayed ${count} transitions`);
} else {
  const consumer = await startFaultConsumer({ servers, stream, subjects, durable: option('--durable', 'fault-consumer-example'), handle: print, onGap: (c, expected, got) => console.error(`gap on ${c}: expected ${expected}, got ${got}`) });
  const stop = () => consumer.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
