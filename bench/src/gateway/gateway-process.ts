import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LOOP_MONITOR } from '../bare-proxy.js';
import { freePort, ManagedProcess, waitForHttp } from '../processes/managed-process.js';

export interface GatewayConfig {
  /** Names the log file: `sqlite`, `postgres`, ... */
  label: string;
  repoRoot: string;
  dataDir: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  /** Keeps a second gateway's Redis keys apart from the first's when both share one Redis. */
  redisKeyPrefix?: string;
  rootPassword: string;
  logLevel: string;
  /** When set, the gateway runs with --cpu-prof and writes its profile here on exit. */
  cpuProfileDir?: string;
  /** The Node binary; absent: the one running the bench. */
  node?: string;
  /** Node options instead of those of `npm start` (to weigh one of them). */
  nodeFlags?: readonly string[];
}

const GATEWAY_SCRIPT = 'server/dist/main.js';

/**
 * The Node options `npm start` runs the gateway with: what stands between `node` and the gateway's
 * script in the root package.json's start script, so the bench measures the gateway as it is run.
 */
export function startScriptNodeFlags(repoRoot: string): string[] {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const start = pkg.scripts?.start ?? '';
  const words = (start.split('&&').at(-1) ?? '').trim().split(/\s+/);
  const flags = words.slice(1, -1);
  if (words[0] !== 'node' || words.at(-1) !== GATEWAY_SCRIPT || flags.some((f) => !f.startsWith('--'))) {
    throw new Error(`the start script does not end with node [options] ${GATEWAY_SCRIPT}: ${start}`);
  }
  return flags;
}

/** What `node --version` prints for a Node binary (the bench's own when none is given). */
export function nodeVersionOf(binary: string | undefined): string {
  if (!binary) return process.version;
  return execFileSync(binary, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * The real gateway (`server/dist/main.js`), configured only through its documented environment
 * variables, run with the Node options of `npm start`, with the loop monitor preloaded.
 */
export class GatewayProcess {
  /** The last counters read, kept for when the process has stopped. */
  private counters: RelayCounters = { abandoned: 0, pending: 0 };

  private constructor(
    readonly proc: ManagedProcess,
    readonly origin: string,
    private readonly metricsToken: string,
  ) {}

  static async start(runDir: string, c: GatewayConfig, startNo: number): Promise<GatewayProcess> {
    const port = await freePort();
    const metricsToken = randomBytes(18).toString('base64url');
    mkdirSync(c.dataDir, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: c.dataDir,
      DATABASE_URL: c.databaseUrl,
      INITIAL_ROOT_PASSWORD: c.rootPassword,
      LOG_LEVEL: c.logLevel,
      API_RATE_LIMIT: '0',
      CRITICAL_RATE_LIMIT: '0',
      // The load generator is one address holding up to 1000 streams at once.
      MAX_CONNECTIONS_PER_IP: '0',
      SHUTDOWN_GRACE_MS: '30000',
      // The bench's upstreams listen on loopback.
      OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8,::1',
      // The accounting reads the calls abandoned by their clients and the settlements pending.
      METRICS_TOKEN: metricsToken,
      ...(c.redisUrl ? { REDIS_URL: c.redisUrl } : {}),
      ...(c.redisKeyPrefix ? { REDIS_KEY_PREFIX: c.redisKeyPrefix } : {}),
      // Quota leases are on by default; `QUOTA_LEASE_SLICE=0 npm run bench` measures without them.
      ...(process.env.QUOTA_LEASE_SLICE ? { QUOTA_LEASE_SLICE: process.env.QUOTA_LEASE_SLICE } : {}),
    };
    const profile = c.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${c.cpuProfileDir}`] : [];
    const proc = ManagedProcess.start({
      name: `gateway (${c.label})`,
      command: c.node ?? process.execPath,
      args: [
        ...(c.nodeFlags ?? startScriptNodeFlags(c.repoRoot)),
        ...profile,
        '--import',
        LOOP_MONITOR,
        path.join(c.repoRoot, GATEWAY_SCRIPT),
      ],
      cwd: c.repoRoot,
      env,
      logFile: path.join(runDir, `gateway-${c.label}-${startNo}.log`),
      ipc: true,
    });
    const origin = `http://127.0.0.1:${port}`;
    await waitForHttp(`${origin}/api/status`, proc, 60_000);
    return new GatewayProcess(proc, origin, metricsToken);
  }

  /**
   * Calls abandoned by their clients (answered 499, not billed) and settlements not committed yet,
   * from the gateway's /metrics. A stopped gateway keeps its last reading: it abandons nothing more.
   */
  async relayCounters(): Promise<RelayCounters> {
    if (!this.proc.running) return this.counters;
    const res = await fetch(`${this.origin}/metrics`, {
      headers: { authorization: `Bearer ${this.metricsToken}` },
    }).catch(() => undefined);
    if (!res?.ok) return this.counters;
    this.counters = parseRelayCounters(await res.text());
    return this.counters;
  }

  /** Graceful stop: the gateway drains its writer before it exits. */
  stop(): Promise<void> {
    return this.proc.stop(40_000);
  }
}

export interface RelayCounters {
  abandoned: number;
  pending: number;
}

/** The two figures the accounting needs, out of the Prometheus text format. */
export function parseRelayCounters(text: string): RelayCounters {
  let abandoned = 0;
  let pending = 0;
  for (const line of text.split('\n')) {
    // A sample line ends in its value after the last space.
    const value = Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
    if (line.startsWith('switchyard_relay_requests_total{') && line.includes('status="499"'))
      abandoned += value;
    else if (line.startsWith('switchyard_settlements_pending ')) pending = value;
  }
  return { abandoned, pending };
}
