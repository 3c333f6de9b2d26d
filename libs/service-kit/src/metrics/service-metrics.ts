/**
 * One service's metrics: its prom-client registry (default label `service`, Node's process
 * metrics) and the families of the catalog (catalog.ts), created on first use by their key — so no
 * code names a metric the catalog does not hold. `runtime.metrics` in every service.
 *
 * Two ways figures get in:
 * - counters and histograms are recorded where things happen; hot paths keep the labelled child
 *   (`child(…)`: one Map lookup instead of prom-client's per-call label hashing);
 * - gauges that need a read (a count in PostgreSQL, a consumer's backlog on the server) come from a
 *   `GaugeSource`, read when Prometheus scrapes — nothing runs between scrapes. A source's figures
 *   are kept `ttlMs` (several replicas of Prometheus, or the families of one source, share one
 *   read), its read is bounded by `timeoutMs`, and a read that fails or times out leaves its
 *   families empty in that scrape and counts `switchyard_metrics_collect_failures_total` — an
 *   unknown figure is absent, never a zero.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { METRIC_FAMILIES, type CounterKey, type GaugeKey, type HistogramKey, type MetricKey } from './catalog.js';

export interface GaugeSample {
  readonly family: GaugeKey;
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface GaugeSource {
  /** The `collector` label of a failed read. */
  readonly name: string;
  /** The families this source sets (each is reset to the source's figures at every scrape). */
  readonly families: readonly GaugeKey[];
  /** Reuse a read this long (default 1 s: one read per scrape however many families it feeds). */
  readonly ttlMs?: number;
  /** Longest a read may take before the scrape goes on without it (default 2 s). */
  readonly timeoutMs?: number;
  read(): Promise<readonly GaugeSample[]> | readonly GaugeSample[];
}

interface SourceState {
  readonly source: GaugeSource;
  at: number;
  last: readonly GaugeSample[] | undefined;
  pending: Promise<readonly GaugeSample[]> | undefined;
}

type Family = Counter | Gauge | Histogram;

/** A counter's series for fixed label values. */
export interface CounterChild {
  inc(value?: number): void;
}

/** A histogram's series for fixed label values. */
export interface HistogramChild {
  observe(value: number): void;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly families = new Map<MetricKey, Family>();
  private readonly sources = new Map<GaugeKey, SourceState[]>();
  private readonly children = new Map<string, unknown>();

  constructor(
    readonly service: string,
    options: { defaultMetrics?: boolean } = {},
  ) {
    this.registry.setDefaultLabels({ service });
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  counter(key: CounterKey): Counter {
    return this.family(key) as Counter;
  }

  histogram(key: HistogramKey): Histogram {
    return this.family(key) as Histogram;
  }

  /** A gauge set directly (a source-fed family is reset at every scrape: set it only through its source). */
  gauge(key: GaugeKey): Gauge {
    return this.family(key) as Gauge;
  }

  /** The child of `key` for these label values (in the catalog's label order), created once. */
  child(key: CounterKey, ...values: string[]): CounterChild;
  child(key: HistogramKey, ...values: string[]): HistogramChild;
  child(key: CounterKey | HistogramKey, ...values: string[]): CounterChild | HistogramChild {
    const id = `${key}\u0000${values.join('\u0000')}`;
    let found = this.children.get(id) as CounterChild | HistogramChild | undefined;
    if (!found) {
      const family = this.family(key) as Counter | Histogram;
      found = family.labels(...values) as CounterChild | HistogramChild;
      this.children.set(id, found);
    }
    return found;
  }

  /**
   * Creates these families now, so /metrics lists them (HELP and TYPE) before their first sample —
   * what a service declares is what it exports (system-tests metrics-catalog.int-spec.ts reads them).
   */
  declare(...keys: MetricKey[]): void {
    for (const key of keys) {
      if (key === 'collectFailures') this.failures();
      else this.family(key);
    }
  }

  /** Registers a scrape-time source of gauge figures (see the header). */
  addSource(source: GaugeSource): void {
    this.failures();
    const state: SourceState = { source, at: 0, last: undefined, pending: undefined };
    for (const key of source.families) {
      this.family(key);
      const list = this.sources.get(key) ?? [];
      list.push(state);
      this.sources.set(key, list);
    }
  }

  /** The exposition text of every family (what /metrics serves). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * The failure counter, registered with the first source so it is in every scrape. Its collect
   * waits for the reads in flight (started by the gauges' collects in the same scrape: prom-client
   * starts every family's collect before awaiting any), so a failure counts in the scrape it left empty.
   */
  private failures(): Counter {
    if (this.families.has('collectFailures')) return this.counter('collectFailures');
    const spec = METRIC_FAMILIES.collectFailures;
    const states = () => [...new Set([...this.sources.values()].flat())];
    const created = new Counter({
      name: spec.name,
      help: spec.help,
      labelNames: [...spec.labelNames],
      registers: [this.registry],
      async collect() {
        await null;
        await Promise.all(states().map((state) => state.pending));
      },
    });
    this.families.set('collectFailures', created);
    return created;
  }

  private family(key: MetricKey): Family {
    const existing = this.families.get(key);
    if (existing) return existing;
    const spec = METRIC_FAMILIES[key];
    const common = { name: spec.name, help: spec.help, labelNames: [...spec.labelNames], registers: [this.registry] };
    let created: Family;
    if (spec.type === 'counter') created = new Counter(common);
    else if (spec.type === 'histogram') created = new Histogram({ ...common, buckets: [...spec.buckets] });
    else {
      const sources = () => this.sources.get(key as GaugeKey) ?? [];
      const read = (state: SourceState) => this.read(state);
      created = new Gauge({
        ...common,
        // Only a source-fed family is reset and refilled at a scrape; a directly set one is left alone.
        async collect() {
          const states = sources();
          if (states.length === 0) return;
          const figures = await Promise.all(states.map(read));
          this.reset();
          for (const sample of figures.flat()) if (sample.family === key) this.set({ ...sample.labels }, sample.value);
        },
      });
    }
    this.families.set(key, created);
    return created;
  }

  private read(state: SourceState): Promise<readonly GaugeSample[]> {
    const { source } = state;
    if (state.last && Date.now() - state.at < (source.ttlMs ?? 1_000)) return Promise.resolve(state.last);
    state.pending ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${source.name}: no figures within ${source.timeoutMs ?? 2_000} ms`)), source.timeoutMs ?? 2_000);
          timer.unref();
        });
        const samples = await Promise.race([Promise.resolve().then(() => source.read()), timeout]);
        state.last = samples;
        state.at = Date.now();
        return samples;
      } catch {
        state.last = undefined;
        this.failures().inc({ collector: source.name });
        return [];
      } finally {
        clearTimeout(timer);
        state.pending = undefined;
      }
    })();
    return state.pending;
  }
}
