import { parseArgs } from 'node:util';

// Command-line options and the two run lengths. Full: SQLite, its soak and the server variants,
// about a quarter of an hour on the 2-core machine with the build. Quick: SQLite only, shorter
// rounds and a short soak.

export const VARIANTS = ['sqlite', 'postgres', 'postgres+redis', 'mysql', 'postgres+redis-2nodes'] as const;
export type Variant = (typeof VARIANTS)[number];
/** Every variant: the server engines on a shorter plan than SQLite's. */
export const DEFAULT_FULL_VARIANTS: readonly Variant[] = VARIANTS;

/** Lengths of the interleaved measurements of one variant. */
export interface RoundPlan {
  /** Seconds of load per target before its measured rounds (JIT, connection pools), not counted. */
  warmupS: number;
  /** Interleaved rounds per measurement (direct, bare proxy, gateway in rotating order); medians are kept. */
  rounds: number;
  /** Seconds of each 64-connection round (whole seconds: wrk takes no fractions). */
  roundS: number;
  /** Seconds of each one-connection round. */
  oneConnS: number;
  /** Seconds of back-to-back streams per round for the time to first byte. */
  ttfbS: number;
}

/** How one variant is measured: its round lengths, and which targets and phases it has. */
export interface VariantPlan extends RoundPlan {
  /** Direct calls never touch the database: when false they are measured in the SQLite rounds only. */
  direct: boolean;
  /** Whether the 1000-slow-stream phase runs. */
  slowStreamPhase: boolean;
}

/** The soak: steady paced load through a fresh gateway process while its memory is sampled. */
export interface SoakOptions {
  durationS: number;
  /** The first part, left out of the memory trend (JIT, pools, caches, heap sizing). */
  warmupS: number;
  /** Memory floors are taken per window this long: longer than the collector's saw-tooth. */
  floorWindowS: number;
  /** A floor is a level memory held this long (see report/memory-trend.ts). */
  floorHoldS: number;
  /** Chat and streams take turns, this many seconds each. */
  segmentS: number;
  connections: number;
  /** Each connection's pause after a reply: keeps the load steady and below saturation. */
  pauseMs: number;
  sampleS: number;
}

/** The soak length: a shorter soak exercises the code but is not judged against the target. */
export const SOAK_TARGET_S = 300;

/** The round lengths are the SQLite variant's; `server` has the PostgreSQL variants' own. */
export interface RunOptions extends RoundPlan {
  mode: 'quick' | 'full';
  /**
   * The server-engine variants' plan: three rounds, as SQLite's, but shorter ones, without direct
   * calls (they never touch the database) and without the 1000-stream phase. One round per figure
   * left their ratios at the mercy of a single disturbance.
   */
  server: VariantPlan;
  slowStreams: number;
  slowIntervalMs: number;
  slowHoldS: number;
  /** SQLite variant only; absent with --no-soak. */
  soak: SoakOptions | undefined;
  connections: number;
  variants: Variant[];
  /** Gateway log level: `warn` keeps per-request access lines out of the measurement. */
  logLevel: string;
  /** Run the gateway under --cpu-prof and print where its time goes. */
  profile: boolean;
  /** Keep the run directory (logs, databases, nginx config) instead of deleting it. */
  keep: boolean;
  /** Where the results JSON goes. */
  out: string | undefined;
  /** Use the fallbacks (Node upstream, autocannon) even when nginx and wrk are installed. */
  noNative: boolean;
  /** The Node binary the gateway runs on; absent: the one running the bench. */
  node: string | undefined;
  /** A second Node binary: the SQLite variant's chat, stream and slow-stream phases also measure a gateway on it. */
  compareNode: string | undefined;
  /** The second gateway's Node options instead of those of `npm start`. */
  compareFlags: string[] | undefined;
  /** Another checkout whose built gateway (server/dist) is the second gateway: two builds side by side. */
  compareRoot: string | undefined;
}

export const USAGE = `npm run bench [-- options]
  --quick              about 2 minutes: SQLite only, shorter rounds, a 20 s soak
  --variants <list>    comma list of ${VARIANTS.join(', ')}
                       (default: ${DEFAULT_FULL_VARIANTS.join(', ')}; a server that does not answer is skipped)
  --no-soak            leave out the soak (${SOAK_TARGET_S / 60} minutes of steady load on SQLite, memory sampled)
  --log-level <level>  gateway LOG_LEVEL (default warn)
  --profile            run the gateway with --cpu-prof and print its hottest functions
  --no-native          use the Node upstream and autocannon even if nginx and wrk are installed
  --node <binary>      run the gateway on this Node binary (default: the one running the bench)
  --compare-node <binary>
                       also run a gateway on this Node binary, measured in the same chat and stream
                       rounds as the first and in the slow streams after it (its own data directory
                       and database, its own Redis keys; no soak; not in the two-node variant)
  --compare-flags="<node options>"
                       the second gateway's Node options instead of those of npm start ("" for none)
  --compare-root <dir> also run the gateway built in another checkout (its server/dist, its
                       node_modules), in the same rounds: a change weighed against the build before it
  --keep               keep the run directory (logs, databases)
  --out <file>         results file (default bench/results/latest.json)`;

export function parseRunOptions(argv: readonly string[]): RunOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      variants: { type: 'string' },
      'no-soak': { type: 'boolean', default: false },
      'log-level': { type: 'string', default: 'warn' },
      profile: { type: 'boolean', default: false },
      'no-native': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      out: { type: 'string' },
      node: { type: 'string' },
      'compare-node': { type: 'string' },
      'compare-flags': { type: 'string' },
      'compare-root': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) throw new UsageError(USAGE, true);
  const quick = values.quick === true;
  let variants: Variant[] = quick ? ['sqlite'] : [...DEFAULT_FULL_VARIANTS];
  if (values.variants) {
    const asked = values.variants.split(',').map((v) => v.trim());
    const unknown = asked.filter((v) => !(VARIANTS as readonly string[]).includes(v));
    if (unknown.length > 0) throw new UsageError(`unknown variant ${unknown.join(', ')}\n${USAGE}`);
    variants = asked as Variant[];
  }
  return {
    mode: quick ? 'quick' : 'full',
    warmupS: quick ? 1 : 2,
    rounds: quick ? 2 : 3,
    roundS: quick ? 2 : 3,
    oneConnS: quick ? 1 : 2,
    ttfbS: quick ? 0.5 : 1,
    server: quick
      ? { warmupS: 1, rounds: 2, roundS: 2, oneConnS: 1, ttfbS: 0.5, direct: true, slowStreamPhase: true }
      : { warmupS: 1, rounds: 3, roundS: 3, oneConnS: 1, ttfbS: 0.5, direct: false, slowStreamPhase: false },
    slowStreams: 1000,
    slowIntervalMs: quick ? 80 : 150,
    slowHoldS: quick ? 3 : 8,
    // 32 connections, each pausing 40 ms after a reply: at most 800 requests/s, a third of what
    // the SQLite gateway serves flat out. Quick: long enough to run the code, too short to judge.
    soak:
      values['no-soak'] === true
        ? undefined
        : {
            durationS: quick ? 20 : SOAK_TARGET_S,
            warmupS: quick ? 5 : 60,
            floorWindowS: quick ? 5 : 60,
            floorHoldS: quick ? 2 : 10,
            segmentS: quick ? 5 : 15,
            connections: 32,
            pauseMs: 40,
            sampleS: 1,
          },
    connections: 64,
    variants,
    logLevel: values['log-level'] ?? 'warn',
    profile: values.profile === true,
    keep: values.keep === true,
    out: values.out,
    noNative: values['no-native'] === true,
    node: values.node,
    compareNode: values['compare-node'],
    compareFlags: compareFlags(values['compare-flags'], values['compare-node'] ?? values['compare-root']),
    compareRoot: values['compare-root'],
  };
}

/** `--compare-flags` as options for the second gateway; it weighs nothing without one. */
function compareFlags(given: string | undefined, secondGateway: string | undefined): string[] | undefined {
  if (given === undefined) return undefined;
  if (secondGateway === undefined)
    throw new UsageError(`--compare-flags needs --compare-node or --compare-root\n${USAGE}`);
  const flags = given.split(/\s+/).filter((f) => f !== '');
  const bad = flags.filter((f) => !f.startsWith('--'));
  if (bad.length > 0)
    throw new UsageError(`--compare-flags takes Node options (--name[=value]): ${bad.join(' ')}`);
  return flags;
}

export class UsageError extends Error {
  constructor(
    message: string,
    /** Asked for with --help: not a failure. */
    readonly help = false,
  ) {
    super(message);
  }
}
