// The sandbox flow through @switchyard/sdk, plain Node ESM (Node 20.3+), no TypeScript needed:
// create a sync, wait for it, list trips with their vehicle and driver expanded, read a vehicle's
// telemetry, walk the fault feed. Prints one JSON line per step.
//
//   npm start                                   # in another terminal: the sandbox
//   npm run example:sdk [-- <sandbox-credentials.json>]   # default .switchyard/sandbox-credentials.json
//
// Outside this repository: `npm install @switchyard/sdk` (or the tarball of `npm pack` in libs/sdk)
// and run this file with the same argument.
import { readFileSync } from 'node:fs';
import { createClient, SwitchyardApiError } from '@switchyard/sdk';

const file = process.argv[2] ?? '.switchyard/sandbox-credentials.json';
const credentials = JSON.parse(readFileSync(file, 'utf8'));
const connection = credentials.connections[0];
const print = (step, value) => console.log(JSON.stringify({ step, ...value }));

const client = createClient({
  baseUrl: credentials.baseUrl,
  consumerKey: credentials.consumerKey, // pt_…: every read route
  applicationSecret: credentials.applicationSecret, // sk_…: the sync routes …
  connectionToken: connection.connectionToken, // … with the connection's ct_… token
  timeoutMs: 15_000,
});

try {
  // 1. A sync of the connection (a POST: never retried by the SDK, since no route honours an idempotency key).
  const created = await client.syncs.create();
  print('sync created', { id: created.id, status: created.status });

  // 2. Wait for it: completed or failed (getSync is a GET, retried on 429/503 with Retry-After).
  let sync = created;
  const deadline = Date.now() + 120_000;
  while (sync.status === 'requested' || sync.status === 'in_progress') {
    if (Date.now() > deadline) throw new Error(`sync ${sync.id} still ${sync.status} after 2 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    sync = await client.syncs.get(sync.id);
  }
  print('sync finished', { id: sync.id, status: sync.status, progress: sync.progress, failureReason: sync.failureReason });

  // 3. Every trip of the connection, vehicle and driver expanded (sent as expand=vehicle,driver), across pages.
  let trips = 0;
  const vehicles = new Set();
  for await (const trip of client.trips.list(connection.id, { expand: ['vehicle', 'driver'], limit: 50 })) {
    trips++;
    if (typeof trip.vehicle === 'object' && trip.vehicle?.id) vehicles.add(trip.vehicle.id);
  }
  print('trips', { count: trips, vehicles: vehicles.size });

  // 4. Telemetry of the first vehicle of the roster (one page is enough: await gives the first page).
  const roster = await client.vehicles.list(connection.id, { limit: 1 });
  const first = (roster.vehicles ?? roster.results ?? [])[0];
  if (first) {
    const telemetry = await client.vehicles.telemetry(connection.id, first.id);
    print('telemetry', { vehicleId: telemetry.vehicleId, location: telemetry.location.status, odometer: telemetry.odometer.status });
  } else {
    print('telemetry', { vehicleId: null });
  }

  // 5. The fault feed from its start until it has nothing more; keep nextCursor to resume later.
  let events = 0;
  let resumeAt;
  for await (const page of client.faults.events(connection.id, { limit: 100 }).pages()) {
    events += page.events.length;
    resumeAt = page.nextCursor;
  }
  print('fault feed', { events, resumeAt });
} catch (error) {
  if (error instanceof SwitchyardApiError) print('error', { status: error.status, code: error.code, requestId: error.requestId, retryAfter: error.retryAfter, detail: error.detail });
  else print('error', { message: String(error) });
  process.exitCode = 1;
}
