/**
 * Which methods each registered path answers, collected from Fastify's onRoute hook, so an
 * unmatched request can be told apart: a path no route has is 404 `not_found`, a path that exists
 * with other methods is 405 `method_not_allowed` with an `Allow` header (RFC 9110 15.5.6).
 * Invariant: the hook is installed before Nest registers its routes (configure runs before init),
 * so the table holds every route the router holds, including Fastify's implicit HEAD routes.
 */
import type { FastifyInstance } from 'fastify';

interface Entry {
  pattern: RegExp;
  methods: Set<string>;
  /** Per method, the route's Fastify config (e.g. NO_BODY_ROUTE). */
  configs: Map<string, unknown>;
}

/** `/v1/connections/:id` → /^\/v1\/connections\/[^/]+$/; `*` (static assets) matches the rest. */
function compile(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/** The table installed on each Fastify instance, for tests that walk every registered route. */
const installed = new WeakMap<object, RouteTable>();

export function routeTableOf(fastify: object): RouteTable | undefined {
  return installed.get(fastify);
}

export class RouteTable {
  private readonly entries = new Map<string, Entry>();

  /** Collects every route registered on `fastify` from now on. */
  install(fastify: FastifyInstance): this {
    installed.set(fastify, this);
    fastify.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) this.add(method, route.url, route.config);
    });
    return this;
  }

  /** Every registered method and route pattern (`/v1/syncs/:id`) with its config, in registration order. */
  routes(): { method: string; url: string; config: unknown }[] {
    return [...this.entries].flatMap(([url, entry]) => [...entry.methods].map((method) => ({ method, url, config: entry.configs.get(method) })));
  }

  add(method: string, url: string, config?: unknown): void {
    const entry = this.entries.get(url) ?? { pattern: compile(url), methods: new Set<string>(), configs: new Map<string, unknown>() };
    entry.methods.add(method.toUpperCase());
    if (config !== undefined) entry.configs.set(method.toUpperCase(), config);
    this.entries.set(url, entry);
  }

  /** Methods registered for the concrete path (query ignored; one trailing slash ignored, as the router does), sorted; empty when none. */
  methodsFor(url: string): string[] {
    const raw = url.split('?')[0] ?? '';
    const path = raw.length > 1 && raw.endsWith('/') ? raw.slice(0, -1) : raw;
    const found = new Set<string>();
    for (const entry of this.entries.values()) if (entry.pattern.test(path)) for (const m of entry.methods) found.add(m);
    return [...found].sort();
  }
}
