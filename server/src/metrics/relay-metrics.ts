import type { Registry } from 'prom-client';
import { type CounterCell, type HistogramCell, TallyCounter, TallyHistogram } from './tallies.js';

/** Seconds: from a fast cached reply to a long stream. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Paths seen before the route table is bounded: a client cannot grow it without limit. */
const MAX_ROUTES = 256;

interface RouteChildren {
  total: HistogramCell;
  upstream: HistogramCell;
  firstByte: HistogramCell;
}

interface CallChildren {
  requests: CounterCell;
  quota: CounterCell;
}

/**
 * The relay's per-call metrics. Every label set is resolved once and kept in nested maps, so a
 * call costs map lookups and plain additions: no label object and no label key string per call
 * (the relay serves ~20k calls/s per core).
 */
export class RelayMetrics {
  private readonly requests: TallyCounter;
  private readonly quota: TallyCounter;
  private readonly total: TallyHistogram;
  private readonly upstream: TallyHistogram;
  private readonly firstByte: TallyHistogram;
  /** One quota cell per model and channel, shared by the statuses and routes. */
  private readonly quotaCells = new Map<string, Map<number, CounterCell>>();
  private readonly routes = new Map<string, string>();
  private readonly byRoute = new Map<string, RouteChildren>();
  /** route -> model -> channel -> status -> children */
  private readonly calls = new Map<string, Map<string, Map<number, Map<number, CallChildren>>>>();

  constructor(registry: Registry) {
    this.requests = new TallyCounter(
      registry,
      'switchyard_relay_requests_total',
      'Relay calls answered, by route, model, channel (0: none chosen) and status',
    );
    this.quota = new TallyCounter(
      registry,
      'switchyard_quota_charged_total',
      'Quota charged by settled relay calls',
    );
    const histogram = (name: string, help: string) =>
      new TallyHistogram(registry, name, help, LATENCY_BUCKETS);
    this.total = histogram('switchyard_relay_duration_seconds', 'Relay call duration, start to settlement');
    this.upstream = histogram(
      'switchyard_relay_upstream_seconds',
      'Time spent on the answering upstream attempt, start to end of its reply',
    );
    this.firstByte = histogram(
      'switchyard_relay_first_byte_seconds',
      'Time from the call start to the first byte of the upstream reply',
    );
  }

  /** A settled call (the settlement point of the relay pipeline). */
  settled(
    path: string,
    model: string,
    channel: number,
    status: number,
    totalMs: number,
    upstreamMs: number,
    firstByteMs: number,
    quota: number,
  ): void {
    const route = this.routeOf(path);
    const c = this.callChildren(route, model, channel, status);
    c.requests.value++;
    if (quota > 0) c.quota.value += quota;
    const r = this.routeChildren(route);
    r.total.observe(totalMs / 1000);
    r.upstream.observe(upstreamMs / 1000);
    r.firstByte.observe(firstByteMs / 1000);
  }

  /** A call refused or failed before anything was charged. */
  failed(path: string, status: number): void {
    this.callChildren(this.routeOf(path), '', 0, status).requests.value++;
  }

  /** The route label of a path: models named in the path (Gemini's) folded into one label. */
  routeOf(path: string): string {
    let route = this.routes.get(path);
    if (route !== undefined) return route;
    const bare = path.split('?')[0] ?? '';
    route = bare.replace(/\/models\/[^/:]+(:[A-Za-z]+)?$/, '/models/:model$1');
    if (this.routes.size < MAX_ROUTES) this.routes.set(path, route);
    return route;
  }

  private routeChildren(route: string): RouteChildren {
    let r = this.byRoute.get(route);
    if (!r) {
      r = {
        total: this.total.cell({ route }),
        upstream: this.upstream.cell({ route }),
        firstByte: this.firstByte.cell({ route }),
      };
      this.byRoute.set(route, r);
    }
    return r;
  }

  private callChildren(route: string, model: string, channel: number, status: number): CallChildren {
    let byModel = this.calls.get(route);
    if (!byModel) {
      byModel = new Map();
      this.calls.set(route, byModel);
    }
    let byChannel = byModel.get(model);
    if (!byChannel) {
      byChannel = new Map();
      byModel.set(model, byChannel);
    }
    let byStatus = byChannel.get(channel);
    if (!byStatus) {
      byStatus = new Map();
      byChannel.set(channel, byStatus);
    }
    let c = byStatus.get(status);
    if (!c) {
      c = {
        requests: this.requests.cell({ route, model, channel: String(channel), status: String(status) }),
        quota: this.quotaCell(model, channel),
      };
      byStatus.set(status, c);
    }
    return c;
  }

  private quotaCell(model: string, channel: number): CounterCell {
    let byChannel = this.quotaCells.get(model);
    if (!byChannel) {
      byChannel = new Map();
      this.quotaCells.set(model, byChannel);
    }
    let cell = byChannel.get(channel);
    if (!cell) {
      cell = this.quota.cell({ model, channel: String(channel) });
      byChannel.set(channel, cell);
    }
    return cell;
  }
}
