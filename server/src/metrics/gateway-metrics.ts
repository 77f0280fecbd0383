import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { WriterLevels } from '../billing/kysely-ledger/kysely-ledger-store.js';
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
  /** The database ledger's group-commit writer (PostgreSQL, MySQL). */
  ledger?: () => WriterLevels;
  /** This node's quota leases: rows held, quota available in memory, reservations outstanding. */
  leases?: () => { leases: number; available: number; outstanding: number };
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
    /** A counter that follows a running total read at scrape time. */
    const total = (name: string, help: string, read: () => number) => {
      let seen = 0;
      new Counter({
        name,
        help,
        registers: [this.registry],
        collect() {
          const now = read();
          if (now > seen) this.inc(now - seen);
          seen = now;
        },
      });
    };
    const { pool, redisAvailable, deadLetters, pendingSettlements, draining, ledger, leases } = sources;
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
    if (ledger) {
      total(
        'switchyard_ledger_commits_total',
        'Ledger transactions committed by the group-commit writer',
        () => ledger().commits,
      );
      total(
        'switchyard_ledger_writes_committed_total',
        'Ledger writes (settlements, releases) committed; per commit, the batch size',
        () => ledger().committedJobs,
      );
      total(
        'switchyard_ledger_writes_failed_total',
        'Ledger writes that failed for good',
        () => ledger().failedJobs,
      );
      gauge('switchyard_ledger_writes_queued', 'Ledger writes submitted and not committed yet', (g) =>
        g.set(ledger().queued),
      );
      gauge('switchyard_ledger_lag_seconds', 'Age of the oldest ledger write not committed yet', (g) =>
        g.set(ledger().lagSeconds),
      );
      gauge(
        'switchyard_ledger_batch_gap_seconds',
        'Least time between two ledger commits of this node: LEDGER_BATCH_GAP_MS times the nodes sharing the database',
        (g) => g.set(ledger().gapSeconds),
      );
    }
    if (leases)
      gauge(
        'switchyard_quota_leases',
        "This node's quota leases: rows held, quota available in memory, reservations outstanding",
        (g) => {
          const l = leases();
          g.set({ level: 'rows' }, l.leases);
          g.set({ level: 'available' }, l.available);
          g.set({ level: 'outstanding' }, l.outstanding);
        },
        ['level'],
      );
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
