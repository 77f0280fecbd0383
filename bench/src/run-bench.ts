import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPool } from 'mysql2/promise';
import pg from 'pg';
import { BareProxy } from './bare-proxy.js';
import { type BenchDatabase, ledgerTotals } from './gateway/bench-database.js';
import { type GatewayConfig, GatewayProcess, nodeVersionOf } from './gateway/gateway-process.js';
import { NginxBalancer } from './gateway/nginx-balancer.js';
import { type PreparedGateway, prepareGateway } from './gateway/prepare-gateway.js';
import { BENCH_MODEL, SLOW_MODEL, scenarioSummary } from './gateway/scenario.js';
import { AutocannonLoad } from './load/autocannon-load.js';
import type { LoadGenerator } from './load/load-generator.js';
import { runSlowStreams } from './load/slow-streams.js';
import { WrkLoad, wrkVersion } from './load/wrk-load.js';
import { CHAT_PATH, type ChatTarget, type MeasureContext, measureChat, measureStreams } from './measure.js';
import { PhaseClock } from './phase-clock.js';
import { machineTicks, namedProcessesTicks, othersShare, processTicks } from './processes/cpu-time.js';
import {
  type AccountingCheck,
  checkAccounting,
  isSettled,
  type LedgerSnapshot,
} from './report/accounting.js';
import { type CpuProfile, summarizeProfile } from './report/cpu-profile-summary.js';
import { logComplaints } from './report/gateway-log.js';
import { evaluateTargets } from './report/report-table.js';
import type { BenchResults, TargetResult, VariantResult } from './report/results.js';
import { type RunOptions, VARIANTS, type Variant, type VariantPlan } from './run-options.js';
import { runSoak } from './soak.js';
import { chatRequestBody } from './upstream/canned-replies.js';
import type { FakeUpstream, ReplyMode } from './upstream/fake-upstream.js';
import { NginxUpstream, nginxVersion } from './upstream/nginx-upstream.js';
import { NodeUpstream } from './upstream/node-upstream.js';

// One benchmark run: the fake upstreams and the bare proxy, the slow-stream baselines, then the
// gateway on each database variant, with the direct calls and the bare proxy measured in the same
// interleaved rounds as it, and its books checked after every phase.

const ROOT_PASSWORD = 'bench-root-password';
const SETTLE_TIMEOUT_MS = 60_000;

export interface RunEnvironment {
  repoRoot: string;
  env: NodeJS.ProcessEnv;
  say: (line: string) => void;
}

/**
 * Two identical fast upstreams: `provider` only ever hears from the gateway, so its request count
 * is exactly the gateway's upstream calls (the no-lost-settlement check); `shared` serves the direct
 * calls and the bare proxy, which run in the same rounds.
 */
interface Upstreams {
  provider: FakeUpstream;
  shared: FakeUpstream;
  slow: NodeUpstream;
}

async function useMode(u: Upstreams, mode: ReplyMode): Promise<void> {
  await Promise.all([u.provider.useMode(mode), u.shared.useMode(mode)]);
}

/** Placeholder keys of the gateway's length for the baselines, so every target gets the same bytes. */
function placeholderKeys(n: number): string[] {
  return Array.from({ length: n }, () => `sk-${randomBytes(36).toString('base64url').slice(0, 48)}`);
}

async function upstreamCount(u: Upstreams): Promise<number> {
  return (await u.provider.requestCount()) + (await u.slow.requestCount());
}

/** The books of every gateway measured against the same upstreams, summed, and the upstreams' count. */
async function snapshot(
  dbs: readonly BenchDatabase[],
  u: Upstreams,
  gateways: readonly GatewayProcess[],
): Promise<LedgerSnapshot> {
  // The gateways first: a call abandoned after the upstream's count was read is not yet counted.
  let abandonedCalls = 0;
  let settlementsPending = 0;
  for (const g of gateways) {
    const c = await g.relayCounters();
    abandonedCalls += c.abandoned;
    settlementsPending += c.pending;
  }
  const upstreamRequests = await upstreamCount(u);
  const sum = { ...(await ledgerTotals(dbs[0]!)), upstreamRequests, abandonedCalls, settlementsPending };
  for (const db of dbs.slice(1)) {
    const t = await ledgerTotals(db);
    for (const k of Object.keys(t) as (keyof typeof t)[]) sum[k] += t[k];
  }
  return sum;
}

/**
 * The two-node variant's control: the bare proxy alone, and two bare proxies behind nginx as the two
 * gateways are, in the same chat rounds (report/results.ts, `bareSplit`).
 */
async function measureBareSplit(
  runDir: string,
  upstreamOrigin: string,
  bare: ChatTarget,
  ctx: MeasureContext,
  bodies: { chatBody: string },
): Promise<NonNullable<VariantResult['bareSplit']>> {
  const second = await BareProxy.start(runDir, upstreamOrigin, 'fast-b');
  const balancer = await NginxBalancer.start(
    runDir,
    'bare-balancer',
    [bare.origin, second.origin],
    '/__ping',
  );
  try {
    const two: ChatTarget = {
      label: 'two bare proxies',
      origin: balancer.origin,
      keys: bare.keys,
      proc: bare.proc,
      extraProcs: [second.proc],
      balancer: balancer.proc,
    };
    // Three rounds whatever the plan: a ratio of two short figures needs more than one.
    const rounds = Math.max(3, ctx.options.rounds);
    const [one, split] = await measureChat(
      { ...ctx, options: { ...ctx.options, rounds } },
      [bare, two],
      bodies.chatBody,
    );
    return { one: one!, two: split! };
  } finally {
    await balancer.stop();
    await second.stop();
  }
}

/** Waits until every request the upstream saw since `before` has settled in the database, or gives up. */
async function waitSettled(
  dbs: readonly BenchDatabase[],
  u: Upstreams,
  before: LedgerSnapshot,
  gateways: readonly GatewayProcess[],
): Promise<LedgerSnapshot> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let now = await snapshot(dbs, u, gateways);
  while (!isSettled(before, now) && Date.now() < deadline) {
    await sleep(100);
    now = await snapshot(dbs, u, gateways);
  }
  return now;
}

async function reachable(host: string, port: number, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A fresh PostgreSQL schema for one variant, or the reason there is none. */
async function freshPostgres(
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; drop: () => Promise<void> } | string> {
  const server = env.BENCH_POSTGRES_URL ?? env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const u = new URL(server);
  if (!(await reachable(u.hostname, Number(u.port || 5432)))) return `PostgreSQL not reachable at ${u.host}`;
  const schema = `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  try {
    await admin.connect();
    await admin.query(`create schema ${schema}`);
  } catch (err) {
    return `PostgreSQL refused: ${(err as Error).message}`;
  } finally {
    await admin.end().catch(() => {});
  }
  const url = new URL(server);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

/** A fresh MySQL/MariaDB database for the mysql variant, or the reason there is none. */
async function freshMysql(
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; drop: () => Promise<void> } | string> {
  const server = env.BENCH_MYSQL_URL ?? env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
  const u = new URL(server);
  if (!(await reachable(u.hostname, Number(u.port || 3306)))) return `MySQL not reachable at ${u.host}`;
  const name = `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = createPool({ uri: server, connectionLimit: 1 });
  try {
    await admin.query(`create database ${name} character set utf8mb4 collate utf8mb4_bin`);
  } catch (err) {
    return `MySQL refused: ${(err as Error).message}`;
  } finally {
    await admin.end().catch(() => {});
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = createPool({ uri: server, connectionLimit: 1 });
      await c.query(`drop database if exists ${name}`);
      await c.end();
    },
  };
}

/** The Redis URL for the redis variant (database 11 unless one is named), or the reason there is none. */
async function redisUrl(env: NodeJS.ProcessEnv): Promise<string | { skip: string }> {
  const given = env.BENCH_REDIS_URL ?? env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const u = new URL(given);
  if (!(await reachable(u.hostname, Number(u.port || 6379))))
    return { skip: `Redis not reachable at ${u.host}` };
  if (u.pathname === '' || u.pathname === '/') u.pathname = '/11';
  return u.toString();
}

/** A checkout named by its commit (and a mark when its files differ from it), else by its folder. */
function buildName(root: string): string {
  try {
    const sha = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    return dirty ? `${sha}+changes` : sha;
  } catch {
    return path.basename(path.resolve(root));
  }
}

function newestProfile(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return files[0];
}

export async function runBench(o: RunOptions, run: RunEnvironment): Promise<BenchResults> {
  const { say } = run;
  // A wrong binary fails here, not minutes into the run.
  const nodes = {
    gateway: nodeVersionOf(o.node),
    compare: o.compareNode ? nodeVersionOf(o.compareNode) : undefined,
  };
  say(`gateway on Node ${nodes.gateway}${nodes.compare ? `, compared with Node ${nodes.compare}` : ''}`);
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-'));
  say(`run directory: ${runDir}${o.keep ? '' : ' (deleted at the end; --keep keeps it)'}`);
  const skipped: string[] = [];
  const clock = new PhaseClock(say);
  const stoppers: (() => Promise<void>)[] = [];
  const sample = () => ({ machine: machineTicks(), own: processTicks('self', true) });
  const idleStart = sample();
  await sleep(1000);
  const runStart = sample();
  const othersBefore = othersShare(idleStart, runStart);
  if (othersBefore > 0.1) {
    say(
      `warning: other processes are using ${Math.round(othersBefore * 100)}% of the CPU; the figures will be noisy`,
    );
  }
  try {
    // ---- tools and fixed processes ----
    const nginx = o.noNative ? undefined : nginxVersion();
    const wrk = o.noNative ? undefined : wrkVersion();
    const why = (tool: string, pkg: string) =>
      o.noNative ? '--no-native' : `${tool} not installed (apt-get install ${pkg})`;
    if (!nginx) skipped.push(`${why('nginx', 'nginx-light')}: the Node fake upstream was used`);
    if (!wrk) skipped.push(`${why('wrk', 'wrk')}: autocannon and the sequential client were used`);
    const startFast = (name: string): Promise<FakeUpstream> =>
      nginx ? NginxUpstream.start(runDir, nginx, name) : NodeUpstream.start(runDir, 'fast', name);
    const shared = await startFast('shared');
    stoppers.push(() => shared.stop());
    const provider = await startFast('provider');
    stoppers.push(() => provider.stop());
    const slow = await NodeUpstream.start(runDir, 'slow', 'slow', { intervalMs: o.slowIntervalMs });
    stoppers.push(() => slow.stop());
    const upstreams: Upstreams = { provider, shared, slow };
    const bare = await BareProxy.start(runDir, shared.origin, 'fast');
    stoppers.push(() => bare.stop());
    const load: LoadGenerator = wrk ? new WrkLoad(runDir, wrk) : new AutocannonLoad();
    const ctx: MeasureContext = { options: o, load, oneConnection: wrk ? 'load' : 'sequential', say };
    say(`upstream: ${shared.description}; load: ${load.description}`);

    const chatBody = chatRequestBody(BENCH_MODEL, false);
    const streamBody = chatRequestBody(BENCH_MODEL, true);
    const slowBody = chatRequestBody(SLOW_MODEL, true);
    const keys = placeholderKeys(200);
    const slowSpec = {
      path: CHAT_PATH,
      body: slowBody,
      streams: o.slowStreams,
      holdS: o.slowHoldS,
      chunkIntervalMs: o.slowIntervalMs,
    };

    // ---- slow streams, straight to the upstream and through the bare proxy (measured once) ----
    say(`baselines: ${o.slowStreams} slow streams`);
    const { slowDirect, slowBare } = await clock.time('baselines: slow streams', async () => {
      const slowDirect = await runSlowStreams({ ...slowSpec, origin: slow.origin, keys });
      say(`  direct: ${slowDirect.flowingMean} flowing, TTFB p99 ${slowDirect.ttfbP99Ms} ms`);
      const bareSlow = await BareProxy.start(runDir, slow.origin, 'slow');
      stoppers.push(() => bareSlow.stop());
      const slowBare = await runSlowStreams({
        ...slowSpec,
        origin: bareSlow.origin,
        keys,
        proc: bareSlow.proc,
        probeUrl: `${bareSlow.origin}/__ping`,
      });
      say(`  bare proxy: RSS ${slowBare.rssPeakMb} MiB, ${slowBare.flowingMean} flowing`);
      await bareSlow.stop();
      return { slowDirect, slowBare };
    });

    // ---- per database variant: the gateway, with direct calls and the bare proxy in the same rounds ----
    const baselines = {
      direct: { label: 'direct', origin: shared.origin, keys } satisfies ChatTarget,
      bare: { label: 'bare proxy', origin: bare.origin, keys, proc: bare.proc } satisfies ChatTarget,
    };
    const variants: VariantResult[] = [];
    for (const v of VARIANTS) {
      if (!o.variants.includes(v)) skipped.push(`${v}: not in this run (--variants adds it)`);
    }
    for (const variant of o.variants) {
      const result = await runVariant(variant, {
        o,
        run,
        runDir,
        ctx,
        upstreams,
        skipped,
        baselines,
        bodies: { chatBody, streamBody },
        slowSpec,
        clock,
        nodes,
      });
      if (result) variants.push(result);
    }

    const targets = variants.flatMap((v) => evaluateTargets(v));
    // Every child has exited (and been waited for) before the run's own CPU is read.
    for (const stop of stoppers.reverse()) await stop();
    stoppers.length = 0;
    const othersDuring = othersShare(runStart, sample());
    const cpus = os.cpus();
    return {
      schema: 1,
      generatedAt: new Date().toISOString(),
      mode: o.mode,
      machine: {
        cpus: cpus.length,
        cpuModel: cpus[0]?.model.trim() ?? 'unknown',
        memoryGb: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        os: `${os.type()} ${os.release()}`,
        othersCpuPercent: {
          before: Math.round(othersBefore * 1000) / 10,
          during: Math.round(othersDuring * 1000) / 10,
        },
      },
      tools: {
        upstream: shared.description,
        load: load.description,
        latency:
          ctx.oneConnection === 'load' ? `${load.description}, 1 connection` : 'sequential undici client',
      },
      scenario: {
        ...scenarioSummary(),
        gatewayLogLevel: o.logLevel,
        connections: o.connections,
        warmupS: o.warmupS,
        rounds: o.rounds,
        roundS: o.roundS,
        oneConnectionRoundS: o.oneConnS,
        ttfbRoundS: o.ttfbS,
        slowStreams: o.slowStreams,
        slowStreamChunkIntervalMs: o.slowIntervalMs,
        slowStreamHoldS: o.slowHoldS,
        soak: o.soak ?? 'left out (--no-soak)',
      },
      slowBaselines: { direct: slowDirect, bare: slowBare },
      variants,
      skipped,
      targets,
      timings: clock.timings,
    };
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => {});
    if (!o.keep) rmSync(runDir, { recursive: true, force: true });
  }
}

interface VariantDeps {
  o: RunOptions;
  run: RunEnvironment;
  runDir: string;
  ctx: MeasureContext;
  upstreams: Upstreams;
  skipped: string[];
  baselines: { direct: ChatTarget; bare: ChatTarget };
  bodies: { chatBody: string; streamBody: string };
  slowSpec: { path: string; body: string; streams: number; holdS: number; chunkIntervalMs: number };
  clock: PhaseClock;
  /** The versions of the gateway's Node and of the compared one. */
  nodes: { gateway: string; compare: string | undefined };
}

async function runVariant(variant: Variant, d: VariantDeps): Promise<VariantResult | undefined> {
  const { o, run, runDir, ctx, upstreams, skipped, baselines, bodies, slowSpec, clock, nodes } = d;
  const say = run.say;
  const dataDir = path.join(runDir, `data-${variant.replace('+', '-')}`);
  mkdirSync(dataDir, { recursive: true });
  let databaseUrl = `sqlite:${path.join(dataDir, 'switchyard.db')}`;
  let redis: string | undefined;
  let dropSchema: (() => Promise<void>) | undefined;
  if (variant !== 'sqlite') {
    const pgDb = variant === 'mysql' ? await freshMysql(run.env) : await freshPostgres(run.env);
    if (typeof pgDb === 'string') {
      skipped.push(`${variant}: ${pgDb}`);
      say(`skipping ${variant}: ${pgDb}`);
      return undefined;
    }
    databaseUrl = pgDb.url;
    dropSchema = pgDb.drop;
  }
  const twoNodes = variant === 'postgres+redis-2nodes';
  if (twoNodes && !nginxVersion()) {
    skipped.push(`${variant}: nginx is not installed (apt-get install nginx-light)`);
    say(`skipping ${variant}: nginx is not installed`);
    return undefined;
  }
  if (variant.startsWith('postgres+redis')) {
    const r = await redisUrl(run.env);
    if (typeof r !== 'string') {
      skipped.push(`${variant}: ${r.skip}`);
      say(`skipping ${variant}: ${r.skip}`);
      await dropSchema?.();
      return undefined;
    }
    redis = r;
  }
  const profileDir = o.profile
    ? path.join(run.repoRoot, 'bench', 'results', 'profiles', variant.replace('+', '-'))
    : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const config: GatewayConfig = {
    label: variant.replace('+', '-'),
    repoRoot: run.repoRoot,
    dataDir,
    databaseUrl,
    redisUrl: redis,
    rootPassword: ROOT_PASSWORD,
    logLevel: o.logLevel,
    cpuProfileDir: profileDir,
    node: o.node,
  };
  say(`gateway (${variant}): setting up the scenario`);
  const t0 = Date.now();
  await useMode(upstreams, 'json');
  const prepared = await clock.time(`${variant}: setup`, () =>
    prepareGateway(runDir, config, { fast: upstreams.provider.origin, slow: upstreams.slow.origin }, say),
  );
  const setupS = Math.round((Date.now() - t0) / 100) / 10;
  const { gateway, db, keys } = prepared;
  const node = nodes.gateway;
  // The two-node variant: a second gateway on the same database and Redis (its own data directory,
  // so its own node id, with the first one's secrets), and nginx in front of both.
  let second: { gateway: GatewayProcess; balancer: NginxBalancer } | undefined;
  if (twoNodes) {
    const secondDir = `${dataDir}-b`;
    mkdirSync(secondDir, { recursive: true });
    copyFileSync(path.join(dataDir, 'secrets.json'), path.join(secondDir, 'secrets.json'));
    const g2 = await GatewayProcess.start(
      runDir,
      { ...config, label: `${config.label}-b`, dataDir: secondDir },
      1,
    );
    const balancer = await NginxBalancer.start(runDir, 'balancer', [gateway.origin, g2.origin]);
    second = { gateway: g2, balancer };
  }
  const databaseTicks =
    variant === 'sqlite'
      ? undefined
      : () =>
          namedProcessesTicks(
            variant === 'mysql'
              ? ['mariadbd', 'mysqld']
              : variant.startsWith('postgres+redis')
                ? ['postgres', 'redis-server']
                : ['postgres'],
          );
  const firstGateway: ChatTarget = {
    label: `gateway (${variant}, Node ${node})`,
    origin: gateway.origin,
    keys,
    proc: gateway.proc,
    ...(databaseTicks ? { databaseTicks } : {}),
  };
  const target: ChatTarget = second
    ? {
        ...firstGateway,
        origin: second.balancer.origin,
        extraProcs: [second.gateway.proc],
        balancer: second.balancer.proc,
      }
    : firstGateway;
  // Two nodes are weighed against the first gateway alone in the same rounds (results.ts, `oneNode`).
  const oneNode: ChatTarget | undefined = second
    ? { ...firstGateway, label: `one node (${variant}, Node ${node})` }
    : undefined;
  // The same gateway on another Node, or another build of it, in the same rounds: the comparison
  // is not at the mercy of what the machine did between two runs.
  let compared: { prepared: PreparedGateway; target: ChatTarget; node: string } | undefined;
  let dropCompareSchema: (() => Promise<void>) | undefined;
  if (!twoNodes && (o.compareNode || o.compareRoot)) {
    const build = o.compareRoot ? ` build ${buildName(o.compareRoot)}` : '';
    const compareNode = `${nodes.compare ?? node}${build}`;
    const label = `${config.label}-compare`;
    const compareDir = `${dataDir}-compare`;
    // A server engine: a database of its own on the same server, and its own Redis keys.
    let compareUrl = `sqlite:${path.join(compareDir, 'switchyard.db')}`;
    if (variant !== 'sqlite') {
      const fresh = variant === 'mysql' ? await freshMysql(run.env) : await freshPostgres(run.env);
      if (typeof fresh === 'string') throw new Error(`the compared gateway has no database: ${fresh}`);
      compareUrl = fresh.url;
      dropCompareSchema = fresh.drop;
    }
    const compareConfig: GatewayConfig = {
      ...config,
      label,
      dataDir: compareDir,
      databaseUrl: compareUrl,
      ...(redis ? { redisKeyPrefix: 'compare:' } : {}),
      node: o.compareNode ?? o.node,
      nodeFlags: o.compareFlags,
      repoRoot: o.compareRoot ?? config.repoRoot,
    };
    say(`gateway (${variant}, Node ${compareNode}): setting up the scenario`);
    const p = await clock.time(`${variant}: setup on Node ${compareNode}`, () =>
      prepareGateway(
        runDir,
        compareConfig,
        { fast: upstreams.provider.origin, slow: upstreams.slow.origin },
        say,
      ),
    );
    compared = {
      prepared: p,
      node: compareNode,
      target: {
        label: `gateway (${variant}, Node ${compareNode}${o.compareFlags ? ` [${o.compareFlags.join(' ') || 'no flags'}]` : ''})`,
        origin: p.gateway.origin,
        keys: p.keys,
        proc: p.gateway.proc,
        ...(databaseTicks ? { databaseTicks } : {}),
      },
    };
  }
  const dbs = compared ? [db, compared.prepared.db] : [db];
  const accounting: AccountingCheck[] = [];
  // The server engines get the short plan; SQLite keeps the full rounds.
  const plan: VariantPlan =
    variant === 'sqlite'
      ? {
          warmupS: o.warmupS,
          rounds: o.rounds,
          roundS: o.roundS,
          oneConnS: o.oneConnS,
          ttfbS: o.ttfbS,
          direct: true,
          slowStreamPhase: true,
        }
      : o.server;
  const { warmupS, roundS, oneConnS, ttfbS } = plan;
  // A ratio of two short figures needs more than one round: three at least for the two nodes.
  const rounds = oneNode ? Math.max(3, plan.rounds) : plan.rounds;
  const measureCtx: MeasureContext = { ...ctx, options: { ...o, warmupS, rounds, roundS, oneConnS, ttfbS } };
  const result: VariantResult = {
    variant,
    direct: {},
    bare: {},
    gateway: {},
    accounting,
    setupS,
    plan,
    node,
  };
  const gateways = [target, ...(compared ? [compared.target] : []), ...(oneNode ? [oneNode] : [])];
  const targets = plan.direct
    ? [baselines.direct, baselines.bare, ...gateways]
    : [baselines.bare, ...gateways];
  const slots = new Map<ChatTarget, object>([
    [baselines.direct, result.direct],
    [baselines.bare, result.bare],
    [target, result.gateway],
  ]);
  if (compared) {
    result.compare = { node: compared.node, gateway: {} };
    slots.set(compared.target, result.compare.gateway);
  }
  if (oneNode) {
    result.oneNode = {};
    slots.set(oneNode, result.oneNode);
  }
  const keep = (figures: readonly object[]) => {
    for (const [i, f] of figures.entries()) Object.assign(slots.get(targets[i]!)!, f);
  };
  // Each phase is checked on its own: the snapshot before it, and the one once all has settled.
  // Every gateway process of the variant, for its counters (the soak's joins it when it starts).
  const live: GatewayProcess[] = [gateway];
  if (second) live.push(second.gateway);
  if (compared) live.push(compared.prepared.gateway);
  let before = await snapshot(dbs, upstreams, live);
  // Once a phase has failed to settle, waiting again in it would only repeat the timeout.
  let stuck = false;
  const startPhase = async () => {
    before = await snapshot(dbs, upstreams, live);
    stuck = false;
  };
  const settled = async () => {
    const now = await waitSettled(dbs, upstreams, before, live);
    if (!isSettled(before, now) && !stuck) {
      stuck = true;
      say(`  the gateway did not settle within ${SETTLE_TIMEOUT_MS / 1000} s`);
    }
    return now;
  };
  const check = async (phase: string) => accounting.push(checkAccounting(phase, before, await settled()));
  // The gateway settles after replying; the next run starts once the previous one's backlog is written.
  target.drain = async () => {
    if (!stuck) await settled();
  };
  if (compared) compared.target.drain = target.drain;
  if (oneNode) oneNode.drain = target.drain;
  let soakGateway: GatewayProcess | undefined;
  try {
    await clock.time(`${variant}: chat`, async () => {
      keep(await measureChat(measureCtx, targets, bodies.chatBody));
      await check('chat');
    });

    await clock.time(`${variant}: stream`, async () => {
      await useMode(upstreams, 'sse');
      await startPhase();
      keep(await measureStreams(measureCtx, targets, bodies.streamBody));
      await check('stream');
    });

    if (second)
      await clock.time(`${variant}: bare proxies split`, async () => {
        await useMode(upstreams, 'json');
        result.bareSplit = await measureBareSplit(
          runDir,
          upstreams.shared.origin,
          baselines.bare,
          measureCtx,
          bodies,
        );
      });

    if (plan.slowStreamPhase)
      await clock.time(`${variant}: slow streams`, async () => {
        // One gateway after the other: both would not fit the machine's memory and CPU at once.
        const measured: [ChatTarget, GatewayProcess, TargetResult][] = [[target, gateway, result.gateway]];
        if (compared && result.compare)
          measured.push([compared.target, compared.prepared.gateway, result.compare.gateway]);
        for (const [t, g, slot] of measured) {
          await startPhase();
          const slowResult = await runSlowStreams({
            ...slowSpec,
            origin: g.origin,
            keys: t.keys,
            proc: g.proc,
            probeUrl: `${g.origin}/api/status`,
          });
          slot.slow = slowResult;
          say(
            `  ${t.label} slow streams: RSS ${slowResult.rssPeakMb} MiB, ${slowResult.flowingMean} flowing, loop delay p99 ${slowResult.loopDelay?.p99Ms} ms`,
          );
          await check(t === target ? 'slow streams' : `slow streams, ${t.label}`);
        }
      });
    // The second gateway sits out the soak, which judges one process's memory over minutes.
    await compared?.prepared.gateway.stop();

    const soak = variant === 'sqlite' ? o.soak : undefined;
    if (soak) {
      await clock.time(`${variant}: soak`, async () => {
        // A fresh process, so the trend is the soak's own and not the slow streams' high-water mark.
        // It is not profiled: a profile of minutes of soak would bury the measured phases.
        say(`gateway (${variant}): ${soak.durationS} s soak on a fresh process`);
        await gateway.stop();
        soakGateway = await GatewayProcess.start(runDir, { ...config, cpuProfileDir: undefined }, 3);
        live.push(soakGateway);
        await startPhase();
        result.gateway.soak = await runSoak({
          ...soak,
          load: ctx.load,
          origin: soakGateway.origin,
          keys,
          proc: soakGateway.proc,
          bodies: { chat: bodies.chatBody, stream: bodies.streamBody },
          useMode: (mode) => useMode(upstreams, mode),
          say,
        });
        await check('soak');
      });
    }
    for (const a of accounting) if (!a.ok) say(`  accounting ${a.phase}: ${a.problems.join('; ')}`);
  } finally {
    await clock.time(`${variant}: stop`, async () => {
      await second?.balancer.stop();
      await second?.gateway.stop();
      await gateway.stop();
      await soakGateway?.stop();
      await compared?.prepared.gateway.stop();
      await compared?.prepared.db.close();
      await db.close();
      await dropSchema?.().catch(() => {});
      await dropCompareSchema?.().catch(() => {});
    });
  }
  const logs = [gateway, soakGateway, compared?.prepared.gateway, second?.gateway].map((g) =>
    g ? readFileSync(g.proc.logFile, 'utf8') : '',
  );
  result.log = logComplaints(logs.join('\n'));
  if (result.log.warnings + result.log.errors > 0) {
    say(`  the gateway logged ${result.log.warnings} warnings and ${result.log.errors} errors:`);
    for (const m of result.log.messages) say(`    ${m.count} x ${m.level}: ${m.msg}`);
  }
  if (profileDir) {
    const file = newestProfile(profileDir);
    if (file) {
      const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, 25);
      say(`cpu profile (${variant}): ${file}, ${summary.busyMs} ms busy`);
      for (const a of summary.areas) say(`  ${String(a.share).padStart(5)}%  ${a.name}`);
      say('  hottest functions (self time):');
      for (const f of summary.functions) say(`  ${String(f.share).padStart(5)}%  ${f.name}`);
    }
  }
  return result;
}
