/**
 * Liveness, readiness and Prometheus metrics, identical in every service. A context serves all three
 * on its one (internal) port; the gateway serves /metrics only on a second, internal listener
 * (bootstrap.ts, `metrics`), never on its public port.
 * Ready means: not shutting down, migrations applied, PostgreSQL answers `select 1` within 1 s,
 * and the bus connection is usable. Liveness only says the event loop runs.
 * With MIGRATE_ON_START=false the service starts with migrations possibly pending: readiness then
 * re-checks the migrations table (at most once a second) until none are pending, and
 * whenMigrated() lets consumers wait for that moment instead of failing on missing tables.
 */
import { Controller, Get, Header, HttpCode, Inject, Module, Res, type DynamicModule } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Registry } from 'prom-client';
import { pendingMigrations, pingDatabase } from '@switchyard/persistence';
import { RUNTIME, type ServiceRuntime } from './runtime.js';

const lastMigrationCheck = new WeakMap<ServiceRuntime, number>();

/** Sets `state.migrated` once no migration is pending; checks the database at most once a second. */
export async function refreshMigrated(runtime: ServiceRuntime): Promise<boolean> {
  if (runtime.state.migrated) return true;
  const now = Date.now();
  if (now - (lastMigrationCheck.get(runtime) ?? 0) < 1000) return false;
  lastMigrationCheck.set(runtime, now);
  const pending = await withTimeout(pendingMigrations(runtime.orm), 1000).catch(() => undefined);
  if (pending?.length === 0) runtime.state.migrated = true;
  return runtime.state.migrated;
}

/** Resolves once migrations are applied (at once when they are); false if the service stops first. */
export async function whenMigrated(runtime: ServiceRuntime, pollMs = 1000): Promise<boolean> {
  while (!runtime.state.shuttingDown) {
    if (await refreshMigrated(runtime)) return true;
    await new Promise((resolve) => setTimeout(resolve, pollMs).unref());
  }
  return false;
}

export interface ReadinessReport {
  ready: boolean;
  checks: { database: boolean; bus: boolean; migrations: boolean; shuttingDown: boolean };
}

export async function readiness(runtime: ServiceRuntime): Promise<ReadinessReport> {
  const database = await withTimeout(
    pingDatabase(runtime.orm).then(() => true),
    1000,
  ).catch(() => false);
  const checks = {
    database,
    bus: runtime.bus.isHealthy(),
    migrations: await refreshMigrated(runtime),
    shuttingDown: runtime.state.shuttingDown,
  };
  return { ready: database && checks.bus && checks.migrations && !checks.shuttingDown, checks };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e)),
    );
  });
}

/** The service's prom-client Registry (runtime.metrics.registry), injectable where only the text is needed. */
export const METRICS = Symbol('switchyard.metrics');

interface ReplyLike {
  status(code: number): ReplyLike;
  header(name: string, value: string): ReplyLike;
  send(body: unknown): void;
}

@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @Get('healthz')
  @HttpCode(200)
  healthz() {
    return { status: 'ok', service: this.runtime.service, instanceId: this.runtime.instanceId };
  }

  @Get('readyz')
  async readyz(@Res() reply: ReplyLike) {
    const report = await readiness(this.runtime);
    reply.status(report.ready ? 200 : 503).send({ status: report.ready ? 'ready' : 'not_ready', ...report });
  }
}

@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(@Inject(METRICS) private readonly registry: Registry) {}

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async metrics() {
    return this.registry.metrics();
  }
}

@Module({})
export class HealthModule {
  /**
   * `metrics: false` leaves /metrics out of this app (the gateway's public port); the registry is
   * still provided, so the app's own counters land in the one registry of the process.
   */
  static forRoot(registry: Registry, { metrics = true }: { metrics?: boolean } = {}): DynamicModule {
    const controllers = metrics ? [HealthController, MetricsController] : [HealthController];
    return { module: HealthModule, controllers, providers: [{ provide: METRICS, useValue: registry }], exports: [METRICS] };
  }
}
