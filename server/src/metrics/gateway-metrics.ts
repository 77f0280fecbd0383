import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { RelayMetrics } from './relay-metrics.js';

/** What the gauges read at scrape time; each source is optional (a single SQLite node has no pool). */
export interface MetricSources {
  pool?: () => { total: number; idle: number; waiting: number };
  /** True while Redis answers (its breaker closed); absent without Redis. */
  redisAvailable?: () => boolean;
  /** Rows in settlement_dead_letters. */
  deadLetters?: () => Promise<number>;
  /** Calls whose settlement is not committed yet. */
  pendingSettlements?: () => number;
  draining?: () => boolean;
}

/** The registry /metrics serves: the relay's counters, Node's own (event-loop delay, heap, GC) and the gauges. */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly relay: RelayMetrics;

  constructor(nodeId: string, sources: MetricSources) {
    this.registry.setDefaultLabels({ node: nodeId });
    // Event-loop delay (nodejs_eventloop_lag_*), heap, GC, handles; sampled by perf_hooks.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
    this.relay = new RelayMetrics(this.registry);
    const gauge = (
      name: string,
      help: string,
      collect: (g: Gauge<string>) => void | Promise<void>,
      labelNames: string[] = [],
    ) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        async collect() {
          await collect(this);
        },
      });
    const { pool, redisAvailable, deadLetters, pendingSettlements, draining } = sources;
    if (pool)
      gauge(
        'switchyard_db_pool_connections',
        'Database pool connections by state (total, idle, waiting = queries queued for one)',
        (g) => {
          const p = pool();
          g.set({ state: 'total' }, p.total);
          g.set({ state: 'idle' }, p.idle);
          g.set({ state: 'waiting' }, p.waiting);
        },
        ['state'],
      );
    if (redisAvailable)
      gauge('switchyard_redis_up', '1 while Redis answers, 0 while its breaker is open', (g) =>
        g.set(redisAvailable() ? 1 : 0),
      );
    if (deadLetters)
      gauge(
        'switchyard_settlement_dead_letters',
        'Settlements the database refused (settlement_dead_letters rows)',
        async (g) => g.set(await deadLetters()),
      );
    if (pendingSettlements)
      gauge('switchyard_settlements_pending', 'Relay calls whose settlement is not committed yet', (g) =>
        g.set(pendingSettlements()),
      );
    if (draining)
      gauge('switchyard_draining', '1 once the node is stopping', (g) => g.set(draining() ? 1 : 0));
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
