/**
 * The Samsara simulator (sandbox) as a benchmark child process, so its CPU and memory are its own:
 * Samsara's published rate limits (token buckets: 150 req/s per token, 200 per org, per-endpoint
 * tiers), one account per token in `fixture.simulator.tokens`, a fleet of
 * `fixture.simulator.vehicles` vehicles (seed `fixture.simulator.seed`) and a clock fixed at
 * `fixture.simulator.nowMs` (factor 0: the data does not move while a run measures), the `/_sim`
 * control API on (its `/_sim/stats` counts what the provider side saw, 429s included).
 */
import { createFleet, fixedClock, samsaraSimulator, startSimulator } from '@switchyard/sandbox';

export async function start(fixture) {
  const { tokens, vehicles, seed, nowMs } = fixture.simulator;
  const sim = await startSimulator(samsaraSimulator, {
    port: 0,
    host: '127.0.0.1',
    fleet: createFleet({ seed, vehicles }),
    clock: fixedClock(nowMs),
    accounts: tokens.map((id) => ({ id })),
    controlApi: true,
  });
  return { url: sim.url, close: () => sim.close() };
}
