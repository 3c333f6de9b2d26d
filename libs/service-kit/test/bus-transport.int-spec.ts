/**
 * The bus transport (src/transport/bus-transport.ts) on both bus implementations: a small Nest
 * app binds a probe handler with `@MessagePattern` / `@EventPattern` to names of the index, and
 * the suite checks what the transport owns. Each case names the mutation that makes it fail:
 * - typed RpcErrors reach the requester as they are, anything else as `internal_error`
 *   (without BusErrorPassThrough, Nest's filter flattens every error: `not_found` is lost);
 * - a handler's PoisonMessage dead-letters with its reason, a RetryLater redelivers and then acks
 *   (without the pass-through, the poison is naked and retried instead of dead-lettered);
 * - handlers run under the message's correlation id (without `inContext`, none is current);
 * - while migrations are pending, request/reply answers `service_unavailable` except a
 *   `beforeMigrations` handler, and no durable consumer is subscribed until they are applied
 *   (without the gate the probe runs; without `whenMigrated` the consumer takes the message early);
 * - a pattern that the index does not declare fails the start (without resolveBinding's check the
 *   handler would silently never be bound);
 * - close() drains: a handler in flight finishes and its message is acked, never redelivered.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Module } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  ALL_STREAMS,
  CONSUMERS,
  createBus,
  currentCorrelation,
  deadLetterSubject,
  EVENTS,
  PoisonMessage,
  RetryLater,
  RpcError,
  RPCS,
  silentLogger,
  subjectFor,
  type ConnectionConfigV1,
  type Consumes,
  type DeadLetterV1,
  type GetTripReplyV1,
  type GetTripRequestV1,
  type MessageBus,
} from '@switchyard/messaging';
import { randomUUID } from 'node:crypto';
import { types } from 'node:util';
import { startService, type RunningService, type ServiceDefinition } from '../src/bootstrap.js';
import { ContextKitModule } from '../src/context/context-kit.module.js';
import { ConnectionConfigEntity } from '../src/context/db/connection-config.entity.js';
import { Migration0001ConnectionConfigProjection } from './connection-config.migration.js';
import { createLogger } from '../src/logger.js';
import { MeasuredBus } from '../src/metrics/bus-metrics.js';
import { BusContext } from '../src/transport/bus-context.js';
import { cleanup, databaseUrl, eventually, natsUrl, uniqueSuffix } from './support.js';

interface Seen {
  revision: number;
  deliveryCount: number;
  correlationId: string | undefined;
  finished: boolean;
}

/** What the probe saw, per test run of the suite (reset in beforeAll). */
const probe = { seen: [] as Seen[], rpcCorrelation: undefined as string | undefined, rpcCalls: 0, slowMs: 0 };

const NOT_FOUND_TRIP = `trp_${'0'.repeat(26)}`;

@Controller()
class ProbeHandler {
  @MessagePattern(RPCS.directory.trips.get.subject)
  async get(@Payload() request: GetTripRequestV1): Promise<GetTripReplyV1> {
    probe.rpcCalls++;
    probe.rpcCorrelation = currentCorrelation()?.correlationId;
    if (request.tripId === NOT_FOUND_TRIP) throw new RpcError('not_found', 'probe');
    throw new Error('probe failure');
  }

  @EventPattern<Consumes<'connectionConfig'>>(CONSUMERS.connectionConfig.durable)
  async config(@Payload() config: ConnectionConfigV1, @Ctx() ctx: unknown): Promise<void> {
    const seen: Seen = { revision: config.revision, deliveryCount: BusContext.deliveryOf(ctx, config).deliveryCount, correlationId: currentCorrelation()?.correlationId, finished: false };
    probe.seen.push(seen);
    if (config.revision === 2) throw new PoisonMessage('probe_poison', 'told to');
    if (config.revision === 3 && seen.deliveryCount === 1) throw new RetryLater(50, 'once');
    if (config.revision === 4) await new Promise((resolve) => setTimeout(resolve, probe.slowMs));
    seen.finished = true;
  }
}

@Module({ imports: [ContextKitModule.forContext({ connectionConfig: false })], controllers: [ProbeHandler] })
class ProbeModule {}

const probeService: ServiceDefinition = { service: 'directory', entities: [ConnectionConfigEntity], migrations: [Migration0001ConnectionConfigProjection], module: ProbeModule };

@Controller()
class UndeclaredHandler {
  @MessagePattern('directory.read.nothing')
  nothing(): Record<string, never> {
    return {};
  }
}

@Module({ controllers: [UndeclaredHandler] })
class UndeclaredModule {}

function config(revision: number): ConnectionConfigV1 {
  return {
    connectionId: randomUUID(),
    provider: 'motive',
    environment: 'sandbox',
    status: 'active',
    unifiedCollection: true,
    purposes: { vehicles: true, groupMemberships: false, trips: true },
    approvedVehicleIds: [],
    includeVehicleIds: [],
    excludeVehicleIds: [],
    includeStatuses: ['active'],
    optIns: { groupInventory: false, vehicleMetadata: true, extendedTelemetry: false },
    approvedGroupIds: [],
    selectedSignals: [],
    revision,
    updatedAt: new Date().toISOString(),
  };
}

const KINDS = ['jetstream', 'in-process'] as const;

describe.each(KINDS)('bus transport over the %s bus', (kind) => {
  const suffix = uniqueSuffix();
  const schema = `directory_${suffix}`;
  const namespace = `transport-${suffix}`;
  const busFor = (name: string): Promise<MessageBus> =>
    kind === 'jetstream' ? createBus({ kind, servers: natsUrl, name, namespace, logger: silentLogger }) : createBus({ kind, namespace, logger: silentLogger });
  // The probe's failures are expected: keep them out of the test output.
  const logger = createLogger({ service: 'directory', level: 'silent' });
  let serviceBus: MessageBus;
  let client: MessageBus;
  let service: RunningService | undefined;
  const start = (migrateOnStart: boolean, definition = probeService) =>
    startService(definition, { databaseUrl, bus: serviceBus, environment: 'sandbox', schema, allServiceSchemas: [schema], migrateOnStart, logger });
  const publish = (c: ConnectionConfigV1, correlationId = `corr-${c.revision}`) =>
    client.publish(EVENTS.connectionConfigChanged, subjectFor(EVENTS.connectionConfigChanged.subject, c.connectionId), c, { msgId: `${c.connectionId}:${c.revision}`, headers: { correlationId } });

  beforeAll(async () => {
    probe.seen = [];
    probe.rpcCalls = 0;
    serviceBus = await busFor('transport-service');
    await serviceBus.ensureStreams(ALL_STREAMS); // the provisioning step (decision 0033)
    client = await busFor('transport-client');
  });

  afterAll(async () => {
    await service?.close();
    await client?.close();
    await serviceBus?.close();
    await cleanup(schema, namespace);
  });

  it('refuses to start a handler whose pattern the index does not declare', async () => {
    await expect(start(false, { ...probeService, module: UndeclaredModule })).rejects.toThrow(/'directory\.read\.nothing'\) is not declared/);
  });

  it('while migrations are pending: request/reply is service_unavailable (ping still answers), and no consumer takes a message', async () => {
    service = await start(false);
    const request = { connectionId: randomUUID(), tripId: NOT_FOUND_TRIP, expand: { vehicle: false, driver: false } };
    await expect(client.request(RPCS.directory.trips.get, request, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(probe.rpcCalls).toBe(0);
    expect(await client.request(RPCS.ping.directory, {}, { timeoutMs: 2_000 })).toMatchObject({ ready: false });
    await publish(config(1));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(probe.seen).toEqual([]);
    await service.close();
    service = undefined;
  });

  it('once migrated: consumes what waited, under the publisher correlation id', async () => {
    service = await start(true);
    // Tracing off (no OTEL_* endpoint in the test environment): no traced wrapper (a Proxy, decision 0040); the service's bus is
    // only the metrics' MeasuredBus over the bus itself (decision 0041).
    expect([types.isProxy(service.runtime.bus), service.runtime.bus instanceof MeasuredBus, service.runtime.tracing]).toEqual([false, true, undefined]);
    await eventually(() => expect(probe.seen).toEqual([{ revision: 1, deliveryCount: 1, correlationId: 'corr-1', finished: true }]));
  });

  it('passes typed RpcErrors through, answers internal_error for anything else, and runs the handler under the caller correlation id', async () => {
    const request = { connectionId: randomUUID(), tripId: NOT_FOUND_TRIP, expand: { vehicle: false, driver: false } };
    await expect(client.request(RPCS.directory.trips.get, request, { headers: { correlationId: 'caller-1' } })).rejects.toMatchObject({ code: 'not_found' });
    expect(probe.rpcCorrelation).toBe('caller-1');
    await expect(client.request(RPCS.directory.trips.get, { ...request, tripId: `trp_${'1'.repeat(26)}` })).rejects.toMatchObject({ code: 'internal_error' });
    expect(await client.request(RPCS.ping.directory, {})).toMatchObject({ service: 'directory', ready: true });
  });

  it('dead-letters a PoisonMessage with its reason and redelivers a RetryLater', async () => {
    const letters: DeadLetterV1[] = [];
    const durable = CONSUMERS.connectionConfig.durable.replace('{service}', 'directory');
    const dlq = await client.consume(
      { durable: `probe-dlq-${kind}`, event: EVENTS.deadLetter, filterSubject: deadLetterSubject('EVENTS', durable), ackWaitMs: 5_000, maxDeliver: 3, maxAckPending: 8 },
      async ({ payload }) => {
        letters.push(payload);
      },
    );
    try {
      await publish(config(2));
      await publish(config(3));
      await eventually(() => expect(letters.map((l) => l.reason)).toEqual(['probe_poison']));
      await eventually(() => expect(probe.seen.filter((s) => s.revision === 3).map((s) => [s.deliveryCount, s.finished])).toEqual([[1, false], [2, true]]));
      expect(probe.seen.filter((s) => s.revision === 2)).toHaveLength(1);
    } finally {
      await dlq.drain();
    }
  });

  it('close() drains: a handler in flight finishes and its message is not delivered again', async () => {
    probe.slowMs = 400;
    await publish(config(4));
    await eventually(() => expect(probe.seen.some((s) => s.revision === 4)).toBe(true));
    await service!.close();
    service = undefined;
    expect(probe.seen.filter((s) => s.revision === 4)).toEqual([expect.objectContaining({ deliveryCount: 1, finished: true })]);
    if (kind === 'in-process') return; // nothing outlives the in-process broker's subscribers
    service = await start(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(probe.seen.filter((s) => s.revision === 4)).toHaveLength(1);
  });
});
