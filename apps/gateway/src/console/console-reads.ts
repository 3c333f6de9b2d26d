/**
 * What the operator console shows, read from the owning contexts through the RPCs declared in
 * libs/messaging (RPCS) — the same ones the public routes use (telemetry latest, locations and
 * utilization, directory vehicles) plus the orchestrator's operator run list — and dead letters
 * from the gateway's dead-letter role (RPCS.deadLetters, decision 0046: the engine `npm run dlq`
 * runs, in the one process whose NATS user may read the DLQ stream and publish replays; this
 * process may only ask). Never another context's schema. A reply body is parsed with the public schema it carries, so a page
 * renders exactly what an integrator would read.
 * Every read that fails becomes a `ReadProblem` with a reason the page shows (the context is
 * unavailable, the NATS user may not read the DLQ, …): a page never invents a value it could not read.
 */
import { Injectable } from '@nestjs/common';
import {
  connectionFreshnessV1,
  coreVehicleV1,
  fleetLocationV1,
  RPCS,
  telemetryV1,
  type ConnectionFreshnessV1,
  type DeadLetterOperatorV1,
  type DeadLetterSummaryV1,
  type DiscardOutcome,
  type FleetLocationV1,
  type JsonText,
  type OperatorRunV1,
  type ReplayOutcome,
  type TelemetryV1,
  type UtilizationV1,
} from '@switchyard/messaging';
import { z } from 'zod';
import { ContextClient } from '../services/context-client.service.js';

/** A read the page could not make, with the reason it shows instead of a value. */
export interface ReadProblem {
  problem: string;
  detail: string;
}
export type Read<T> = { ok: true; value: T } | ({ ok: false } & ReadProblem);

/** Most vehicles the map and the name lookup walk (ten pages of 100): a console page, not an export. */
export const FLEET_LIMIT = 1000;
const PAGE = 100;
const PAGE_BYTES = 1_048_576;
const DAY_MS = 86_400_000;

const decoder = new TextDecoder();
const bodyOf = <T extends z.ZodType>(schema: T, body: JsonText): z.output<T> => schema.parse(JSON.parse(typeof body === 'string' ? body : decoder.decode(body)));

/** Who answers a read: the owning context, or the gateway's dead-letter role (its own process, decision 0046). */
const ANSWERS = {
  context: { problem: 'context_unavailable', detail: 'the owning context did not answer' },
  deadLetters: { problem: 'dead_letters_unavailable', detail: 'the dead-letter role (gateway/dead-letters) did not answer — is it running? (docs/deploy.md, "Operator console")' },
} as const;

/** Why a read failed, in words an operator can act on; the error's own code when it has one. */
function problemOf(error: unknown, from: keyof typeof ANSWERS): ReadProblem {
  const code = (error as { code?: unknown } | null)?.code;
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'BusTimeoutError' || name === 'BusUnavailableError') return { problem: ANSWERS[from].problem, detail: `${ANSWERS[from].detail} (${message})` };
  if (/permissions? violation|authorization/i.test(message)) return { problem: 'nats_permission_denied', detail: "a NATS user may not do this (docs/deploy.md, \"NATS users\")" };
  if (typeof code === 'string') return { problem: code, detail: message };
  return { problem: 'read_failed', detail: message };
}

async function attempt<T>(read: () => Promise<T>, from: keyof typeof ANSWERS = 'context'): Promise<Read<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    return { ok: false, ...problemOf(error, from) };
  }
}

@Injectable()
export class ConsoleReads {
  constructor(private readonly contexts: ContextClient) {}

  runs(connectionId: string, limit = 20): Promise<Read<OperatorRunV1[]>> {
    return attempt(async () => (await this.contexts.request(RPCS.operator.runs, { connectionId, limit })).runs);
  }

  /** The latest stored location of every visible vehicle (telemetry.read.locations, page by page). */
  locations(connectionId: string): Promise<Read<FleetLocationV1[]>> {
    return attempt(async () => {
      const found: FleetLocationV1[] = [];
      let position: { horizon?: string; after?: string } = {};
      while (found.length < FLEET_LIMIT) {
        const reply = await this.contexts.request(RPCS.telemetry.locations, { connectionId, limit: PAGE, maxBytes: PAGE_BYTES, ...position });
        found.push(...bodyOf(z.array(fleetLocationV1), reply.body));
        if (!reply.meta.hasMore || !reply.meta.next) break;
        position = { horizon: reply.meta.horizon, after: reply.meta.next };
      }
      return found;
    });
  }

  /**
   * The connection's freshness per signal (telemetry.read.freshness, issue 27): data age, provider
   * and pipeline lag, sample interval and coverage, each figure known or an UnknownFigure with its
   * reason — the read an integrator calls as GET /v1/connections/{id}/freshness.
   */
  freshness(connectionId: string): Promise<Read<ConnectionFreshnessV1>> {
    return attempt(async () => bodyOf(connectionFreshnessV1, (await this.contexts.request(RPCS.telemetry.freshness, { connectionId })).body));
  }

  /** Vehicle names by id (directory.read.vehicles.list, assets view), for labels. */
  vehicleNames(connectionId: string): Promise<Read<Map<string, string>>> {
    return attempt(async () => {
      const names = new Map<string, string>();
      let position: { horizon?: string; after?: string } = {};
      while (names.size < FLEET_LIMIT) {
        const reply = await this.contexts.request(RPCS.directory.vehicles.list, { connectionId, limit: PAGE, maxBytes: PAGE_BYTES, view: 'assets', expand: { groups: false }, ...position });
        for (const v of bodyOf(z.array(coreVehicleV1), reply.body)) names.set(v.id, v.name);
        if (!reply.meta.hasMore || !reply.meta.next) break;
        position = { horizon: reply.meta.horizon, after: reply.meta.next };
      }
      return names;
    });
  }

  telemetry(connectionId: string, vehicleId: string): Promise<Read<TelemetryV1>> {
    return attempt(async () => bodyOf(telemetryV1, (await this.contexts.request(RPCS.telemetry.latest, { connectionId, vehicleId })).body));
  }

  /** Utilization over the last 7 whole UTC days up to now, bucketed per day (telemetry.read.usage.utilization). */
  utilization(connectionId: string, vehicleId: string, now = Date.now()): Promise<Read<UtilizationV1>> {
    const endTime = new Date(now).toISOString();
    const startTime = new Date(Math.floor(now / DAY_MS) * DAY_MS - 6 * DAY_MS).toISOString();
    return attempt(async () => (await this.contexts.request(RPCS.telemetry.usage.utilization, { connectionId, vehicleId, startTime, endTime, buckets: { size: 'day', timeZone: 'UTC' } })).utilization);
  }

  /** The oldest dead letters, without payloads (dead-letters.list). */
  deadLetters(limit: number): Promise<Read<DeadLetterSummaryV1[]>> {
    return attempt(async () => (await this.contexts.request(RPCS.deadLetters.list, { limit })).deadLetters, 'deadLetters');
  }

  /** Replays one dead letter for this operator (dead-letters.replay; the role logs who asked). */
  replay(seq: number, operator: DeadLetterOperatorV1): Promise<Read<ReplayOutcome>> {
    return attempt(() => this.contexts.request(RPCS.deadLetters.replay, { seq, operator }), 'deadLetters');
  }

  /** Discards one dead letter for this operator (dead-letters.discard). */
  discard(seq: number, operator: DeadLetterOperatorV1): Promise<Read<DiscardOutcome>> {
    return attempt(() => this.contexts.request(RPCS.deadLetters.discard, { seq, operator }), 'deadLetters');
  }
}
