/**
 * What every service is handed at start: its name, the message bus, its own ORM (own schema),
 * a logger, its metrics and the deployment environment. One process may host several services (the sandbox
 * launcher) — they then share one bus but never an ORM or a schema.
 */
import type { MessageBus } from '@switchyard/messaging';
import type { Orm } from '@switchyard/persistence';
import type { Logger } from './logger.js';
import type { ServiceTracing } from './tracing/service-tracing.js';
import type { ServiceMetrics } from './metrics/service-metrics.js';

export const RUNTIME = Symbol('switchyard.runtime');
export const BUS = Symbol('switchyard.bus');
export const ORM = Symbol('switchyard.orm');
export const LOGGER = Symbol('switchyard.logger');

export interface ServiceRuntime {
  /** Service name, e.g. `directory`. */
  readonly service: string;
  /** Unique per process start; shows which replica answered. */
  readonly instanceId: string;
  readonly environment: 'sandbox' | 'production';
  /** The process's bus as this service uses it: every call measured into `metrics` (metrics/bus-metrics.ts). */
  readonly bus: MessageBus;
  readonly orm: Orm;
  readonly logger: Logger;
  /** This service's metrics: its registry and the catalog's families (metrics/catalog.ts), served at /metrics. */
  readonly metrics: ServiceMetrics;
  /** Set once migrations are applied (readiness). */
  readonly state: { migrated: boolean; shuttingDown: boolean };
  /** The service's tracer when tracing is on (OTEL_*; decision 0040); absent when off. */
  readonly tracing?: ServiceTracing;
}
