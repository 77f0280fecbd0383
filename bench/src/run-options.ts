import { parseArgs } from 'node:util';

// Command-line options and the two run lengths. Full: every variant, about 8 minutes on the
// 2-core machine. Quick: SQLite only and shorter rounds, about a minute and a half.

export const VARIANTS = ['sqlite', 'postgres', 'postgres+redis'] as const;
export type Variant = (typeof VARIANTS)[number];

export interface RunOptions {
  mode: 'quick' | 'full';
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
  slowStreams: number;
  slowIntervalMs: number;
  slowHoldS: number;
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
}

export const USAGE = `npm run bench [-- options]
  --quick              about 1.5 minutes: SQLite only, shorter rounds
  --variants <list>    comma list of ${VARIANTS.join(', ')} (default: all that are reachable)
  --log-level <level>  gateway LOG_LEVEL (default warn)
  --profile            run the gateway with --cpu-prof and print its hottest functions
  --no-native          use the Node upstream and autocannon even if nginx and wrk are installed
  --keep               keep the run directory (logs, databases)
  --out <file>         results file (default bench/results/latest.json)`;

export function parseRunOptions(argv: readonly string[]): RunOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      variants: { type: 'string' },
      'log-level': { type: 'string', default: 'warn' },
      profile: { type: 'boolean', default: false },
      'no-native': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) throw new UsageError(USAGE, true);
  const quick = values.quick === true;
  let variants: Variant[] = quick ? ['sqlite'] : [...VARIANTS];
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
    slowStreams: 1000,
    slowIntervalMs: quick ? 80 : 150,
    slowHoldS: quick ? 3 : 10,
    connections: 64,
    variants,
    logLevel: values['log-level'] ?? 'warn',
    profile: values.profile === true,
    keep: values.keep === true,
    out: values.out,
    noNative: values['no-native'] === true,
  };
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
