import { performance } from 'node:perf_hooks';
import type { LoadGenerator } from './load/load-generator.js';
import { runSequential } from './load/sequential-client.js';
import { TICKS_PER_SECOND } from './processes/cpu-time.js';
import { readLoopStats } from './processes/loop-stats.js';
import type { ManagedProcess } from './processes/managed-process.js';
import { combineRounds, rotate } from './report/combine.js';
import type { LoadResult, StreamLoadResult, TtfbResult } from './report/results.js';
import { round, summarize } from './report/stats.js';
import type { RunOptions } from './run-options.js';
import { STREAM_CHUNKS } from './upstream/canned-replies.js';

// The measurements, the same for the three targets (direct, bare proxy, gateway): the same bodies,
// the same key rotation, the same load generator, in interleaved rounds (see report/combine.ts).

export const CHAT_PATH = '/v1/chat/completions';

export interface ChatTarget {
  label: string;
  origin: string;
  keys: readonly string[];
  /** The proxy process (absent for direct calls): its CPU time and event-loop delay are measured. */
  proc?: ManagedProcess;
  /**
   * Further processes whose CPU counts as the proxy's (a second gateway); the event-loop figures
   * stay those of `proc`.
   */
  extraProcs?: readonly ManagedProcess[];
  /** A load balancer in front of the gateways: its CPU is reported apart from theirs. */
  balancer?: ManagedProcess;
  /** CPU ticks of the database server the target writes to, when it has one. */
  databaseTicks?: () => number;
  /** Waits until the target has finished the work a run left behind (the gateway's settlements). */
  drain?: () => Promise<void>;
}

export interface MeasureContext {
  options: RunOptions;
  load: LoadGenerator;
  /** wrk is exact at one connection; the autocannon fallback is not, so the sequential client is used. */
  oneConnection: 'load' | 'sequential';
  say: (line: string) => void;
}

/** Lets the target catch up; returns the seconds that took (the backlog a run left). */
async function drain(t: ChatTarget): Promise<number> {
  const t0 = performance.now();
  await t.drain?.();
  return round((performance.now() - t0) / 1000, 2);
}

async function loadRun(
  ctx: MeasureContext,
  t: ChatTarget,
  body: string,
  connections: number,
  durationS: number,
) {
  return ctx.load.run({ origin: t.origin, path: CHAT_PATH, connections, durationS, body, keys: t.keys });
}

/**
 * Runs a round and adds the proxy's CPU time per request (and the database's and the balancer's),
 * read after the drain: settling is part of what a request costs; with `loop`, its event-loop delay.
 */
async function withCpu(t: ChatTarget, run: () => Promise<LoadResult>, loop: boolean): Promise<LoadResult> {
  if (t.proc && loop) await readLoopStats(t.proc); // a fresh window for this round
  const ticks = () => (t.proc?.cpuTicks() ?? 0) + (t.extraProcs ?? []).reduce((n, p) => n + p.cpuTicks(), 0);
  const before = t.proc ? ticks() : undefined;
  const dbBefore = t.databaseTicks?.();
  const balancerBefore = t.balancer?.treeCpuTicks();
  const r = await run();
  if (t.drain) r.backlogS = await drain(t);
  if (!t.proc || before === undefined || r.requests === 0) return r;
  const usPerRequest = (from: number, to: number) =>
    round(((to - from) / TICKS_PER_SECOND / r.requests) * 1e6, 0);
  const stats = loop ? await readLoopStats(t.proc) : undefined;
  return {
    ...r,
    proxyCpuUsPerRequest: usPerRequest(before, ticks()),
    ...(dbBefore === undefined
      ? {}
      : { databaseCpuUsPerRequest: usPerRequest(dbBefore, t.databaseTicks!()) }),
    ...(balancerBefore === undefined
      ? {}
      : { balancerCpuUsPerRequest: usPerRequest(balancerBefore, t.balancer!.treeCpuTicks()) }),
    ...(stats
      ? {
          proxyLoopDelay: {
            p50Ms: round(stats.p50Ms, 2),
            p99Ms: round(stats.p99Ms, 2),
            maxMs: round(stats.maxMs, 2),
          },
        }
      : {}),
  };
}

/** One round at full load. */
function loadRound(ctx: MeasureContext, t: ChatTarget, body: string): Promise<LoadResult> {
  return withCpu(t, () => loadRun(ctx, t, body, ctx.options.connections, ctx.options.roundS), true);
}

/** One connection: latency, and what a request costs when calls come one at a time. */
function oneConnectionRound(ctx: MeasureContext, t: ChatTarget, body: string): Promise<LoadResult> {
  return withCpu(t, () => oneConnectionRun(ctx, t, body), false);
}

async function oneConnectionRun(ctx: MeasureContext, t: ChatTarget, body: string): Promise<LoadResult> {
  const durationS = ctx.options.oneConnS;
  if (ctx.oneConnection === 'load') return loadRun(ctx, t, body, 1, durationS);
  const run = await runSequential({
    origin: t.origin,
    path: CHAT_PATH,
    body,
    keys: t.keys,
    durationS,
    expectChunks: false,
  });
  const s = summarize(run.latencies);
  return {
    connections: 1,
    durationS,
    requests: s.count + run.bad,
    rps: s.count / durationS,
    p50Ms: s.p50,
    p99Ms: s.p99,
    maxMs: s.max,
    non2xx: run.bad,
    errors: 0,
  };
}

/** Runs `round` for every target, `rounds` times, the order rotating; returns each target's rounds. */
async function interleave<T>(
  ctx: MeasureContext,
  targets: readonly ChatTarget[],
  round: (t: ChatTarget) => Promise<T>,
): Promise<T[][]> {
  const results = targets.map((): T[] => []);
  for (let r = 0; r < ctx.options.rounds; r++) {
    for (const t of rotate(targets, r)) results[targets.indexOf(t)]!.push(await round(t));
  }
  return results;
}

/**
 * Each target warms up before it is measured; a target of several gateways (the two-node variant)
 * for as many times longer, so each of its processes has served as many requests as a single one
 * has before the rounds begin (the JIT compiles a function after so many calls, and caches and
 * quota leases fill per process, not per second).
 */
async function warmUp(ctx: MeasureContext, targets: readonly ChatTarget[], body: string): Promise<void> {
  for (const t of targets) {
    const processes = 1 + (t.extraProcs?.length ?? 0);
    await loadRun(ctx, t, body, ctx.options.connections, ctx.options.warmupS * processes);
    await drain(t);
  }
}

export interface ChatFigures {
  json64: LoadResult;
  json1: LoadResult;
}

/** Non-streamed chat: 64 connections, then one connection; every target in the same rounds. */
export async function measureChat(
  ctx: MeasureContext,
  targets: readonly ChatTarget[],
  body: string,
): Promise<ChatFigures[]> {
  await warmUp(ctx, targets, body);
  const full = await interleave(ctx, targets, (t) => loadRound(ctx, t, body));
  const one = await interleave(ctx, targets, (t) => oneConnectionRound(ctx, t, body));
  return targets.map((t, i) => {
    const figures = { json64: combineRounds(full[i]!), json1: combineRounds(one[i]!) };
    ctx.say(
      `  ${t.label} chat: ${figures.json64.rps.toFixed(0)} req/s at ${ctx.options.connections} conn (rounds ${figures.json64.roundsRps?.map((v) => v.toFixed(0)).join(', ')}), p50 ${figures.json1.p50Ms} ms at 1 conn`,
    );
    return figures;
  });
}

export interface StreamFigures {
  stream64: StreamLoadResult;
  ttfb: TtfbResult;
}

/** Streamed chat: 64 connections, then the time to first byte on one connection; interleaved. */
export async function measureStreams(
  ctx: MeasureContext,
  targets: readonly ChatTarget[],
  body: string,
): Promise<StreamFigures[]> {
  await warmUp(ctx, targets, body);
  const full = await interleave(ctx, targets, (t) => loadRound(ctx, t, body));
  const first = await interleave(ctx, targets, async (t) => {
    const run = await runSequential({
      origin: t.origin,
      path: CHAT_PATH,
      body,
      keys: t.keys,
      durationS: ctx.options.ttfbS,
      expectChunks: true,
    });
    await drain(t);
    return run;
  });
  return targets.map((t, i) => {
    const r = combineRounds(full[i]!);
    // Only whole streams count; a failed one delivered no chunks worth counting.
    const goodShare = r.requests > 0 ? (r.requests - r.non2xx - r.errors) / r.requests : 0;
    const stream64: StreamLoadResult = { ...r, chunksPerSec: round(r.rps * STREAM_CHUNKS * goodShare, 0) };
    // Time to first byte: percentiles over every stream of every round.
    const runs = first[i]!;
    const s = summarize(runs.flatMap((run) => run.ttfbs));
    const ttfb: TtfbResult = {
      samples: s.count,
      p50Ms: round(s.p50, 3),
      p99Ms: round(s.p99, 3),
      badStreams: runs.reduce((n, run) => n + run.bad, 0),
    };
    ctx.say(
      `  ${t.label} stream: ${stream64.rps.toFixed(0)} streams/s at ${ctx.options.connections} conn, TTFB p50 ${ttfb.p50Ms} ms at 1 conn`,
    );
    return { stream64, ttfb };
  });
}
