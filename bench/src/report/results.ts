import type { PhaseTiming } from '../phase-clock.js';
import type { VariantPlan } from '../run-options.js';
import type { AccountingCheck } from './accounting.js';
import type { LogComplaints } from './gateway-log.js';
import type { MemoryTrend } from './memory-trend.js';

// The shape of bench/results/latest.json. Times in milliseconds, memory in MiB.

/** One run of the load generator at a fixed number of connections. */
export interface LoadResult {
  connections: number;
  durationS: number;
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Answers with a status outside 2xx/3xx. */
  non2xx: number;
  /** Connect, read and write errors and timeouts. */
  errors: number;
  /**
   * CPU the proxy process spent per request (user + system, microseconds): unlike throughput, it
   * hardly moves when other processes share the machine.
   */
  proxyCpuUsPerRequest?: number;
  /**
   * CPU of the database server's processes per request (PostgreSQL, MariaDB; read from /proc, so it
   * includes whatever else used that server during the round).
   */
  databaseCpuUsPerRequest?: number;
  /** CPU of the load balancer in front of several gateways per request (not in `proxyCpuUsPerRequest`). */
  balancerCpuUsPerRequest?: number;
  /**
   * Seconds after the run ended until every request was settled in the database (gateway only):
   * work the gateway deferred past its replies, which a longer run would pile up.
   */
  backlogS?: number;
  /** Event-loop delay inside the proxy during the run (perf_hooks histogram, preloaded by the bench). */
  proxyLoopDelay?: LoopDelay;
  /** Requests per second of each interleaved round (the result is their median). */
  roundsRps?: number[];
}

export interface LoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface StreamLoadResult extends LoadResult {
  /** Content chunks delivered per second (streams/s x chunks per stream). */
  chunksPerSec: number;
}

/** Time to the first body byte of a streamed reply, one connection, requests back to back. */
export interface TtfbResult {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  /** Streams that did not carry every content chunk, or failed. */
  badStreams: number;
}

export interface SlowStreamsResult {
  streams: number;
  chunkIntervalMs: number;
  holdS: number;
  started: number;
  completed: number;
  failed: number;
  /** Streams receiving chunks at the sample instants during the hold (all of them, ideally). */
  flowingMin: number;
  flowingMean: number;
  ttfbP50Ms: number;
  ttfbP99Ms: number;
  /** Resident memory of the proxy process; absent for direct calls. */
  rssIdleMb?: number;
  rssPeakMb?: number;
  rssAfterMb?: number;
  /** Event-loop delay seen inside the process (perf_hooks histogram, preloaded by the bench). */
  loopDelay?: LoopDelay;
  /** A light GET sent every 20 ms from outside: its latency idle and under the load. */
  probe?: { idleP50Ms: number; loadP50Ms: number; loadP99Ms: number; loadMaxMs: number };
}

/** One sample of the gateway during the soak. */
export interface SoakSample {
  /** Seconds since the soak started. */
  tS: number;
  rssMb: number;
  heapUsedMb: number;
  /** Event-loop delay in the window since the previous sample. */
  loopP99Ms: number;
  loopMaxMs: number;
}

/**
 * Minutes of steady, paced load (chat and streams taking turns) through a fresh gateway process,
 * its memory sampled throughout. The trends leave out the warm-up.
 */
export interface SoakResult {
  /** Planned length; the memory target is judged only on a soak of its full length. */
  durationS: number;
  elapsedS: number;
  warmupS: number;
  /** Seconds of chat, then of streams, in turn. */
  segmentS: number;
  connections: number;
  /** Pause of each connection after a reply before its next request. */
  pauseMs: number;
  sampleS: number;
  /** The memory floors are the lowest level of each window this long... */
  floorWindowS: number;
  /** ... that memory held for this long. */
  floorHoldS: number;
  requests: number;
  rps: number;
  /** The chat and the stream segments, combined like rounds (`roundsRps` has every segment's rate). */
  chat: LoadResult;
  stream: LoadResult;
  rss: MemoryTrend;
  heapUsed: MemoryTrend;
  /** The RSS floors' slope over the request rate: what each request would leave behind if it were a leak. */
  rssSlopeBytesPerRequest: number;
  /** After the warm-up: the median of the sample windows' p99, and the largest delay. */
  loopDelay: { p99Ms: number; maxMs: number };
  samples: SoakSample[];
}

export interface TargetResult {
  json64?: LoadResult;
  json1?: LoadResult;
  stream64?: StreamLoadResult;
  ttfb?: TtfbResult;
  slow?: SlowStreamsResult;
  soak?: SoakResult;
}

/** One gateway variant, with the direct and bare-proxy figures measured in the same rounds. */
export interface VariantResult {
  /** `sqlite`, `postgres`, `postgres+redis`, `mysql`, `postgres+redis-2nodes` (two gateways behind nginx). */
  variant: string;
  direct: TargetResult;
  bare: TargetResult;
  gateway: TargetResult;
  /** Per phase: every upstream request settled once, with its log row. */
  accounting: AccountingCheck[];
  /** Start-up and setup time, for the curious. */
  setupS: number;
  /** The round lengths and phases this variant was measured with (the server engines get shorter ones). */
  plan?: VariantPlan;
  /** Warnings and errors the gateway logged while it was measured. */
  log?: LogComplaints;
  /** The Node version the gateway ran on. */
  node?: string;
  /** A second gateway on another Node (--compare-node), measured in the same chat and stream rounds. */
  compare?: { node: string; gateway: TargetResult };
  /**
   * The two-node variant's control: the bare proxy alone against two bare proxies behind the same
   * kind of nginx, in the same chat rounds. They share nothing, so what two cost more per request
   * than one is what splitting the load over two processes costs on this machine.
   */
  bareSplit?: { one: TargetResult; two: TargetResult };
  /**
   * The two-node variant's reference: the first gateway alone, called directly, in the same rounds as
   * the two behind nginx (the other one idle). Two nodes are judged against it, not against another
   * variant measured minutes earlier, when the machine may have run at another speed.
   */
  oneNode?: TargetResult;
}

/** The slow-stream figures of direct calls and the bare proxy, measured once before the variants. */
export interface SlowBaselines {
  direct: SlowStreamsResult;
  bare: SlowStreamsResult;
}

export interface BenchResults {
  schema: 1;
  generatedAt: string;
  mode: 'quick' | 'full';
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    node: string;
    os: string;
    /** Percent of the machine's CPU used by other processes: in the second before, and during the run. */
    othersCpuPercent: { before: number; during: number };
  };
  tools: { upstream: string; load: string; latency: string };
  scenario: Record<string, unknown>;
  slowBaselines: SlowBaselines;
  variants: VariantResult[];
  /** Variants or measurements left out, with the reason. */
  skipped: string[];
  targets: TargetCheck[];
  /** Wall-clock seconds of each phase, in the order they ran (the build before the run excluded). */
  timings?: PhaseTiming[];
}

export interface TargetCheck {
  variant: string;
  target: string;
  value: number | null;
  limit: string;
  ok: boolean;
  /** Why no verdict could be given (the measurement was too short to judge); `ok` is then false. */
  unjudged?: string;
}
