import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadGenerator } from './load/load-generator.js';
import { CHAT_PATH } from './measure.js';
import { readLoopStats } from './processes/loop-stats.js';
import type { ManagedProcess } from './processes/managed-process.js';
import { combineRounds, median } from './report/combine.js';
import { memoryTrend } from './report/memory-trend.js';
import type { LoadResult, SoakResult, SoakSample } from './report/results.js';
import { round } from './report/stats.js';
import type { ReplyMode } from './upstream/fake-upstream.js';

// The soak: minutes of steady load through one gateway process, chat and streams taking turns,
// while its memory is sampled. Only the trend matters here, not the speed: the load is paced below
// saturation so the settle writer keeps up and the samples show what the process keeps, not a
// backlog it has not written yet.

/**
 * After a switch nginx's old worker closes its idle keep-alive connections; a request the gateway
 * sends on one of them just then fails and is retried on another channel (rarely, but it happens).
 * A moment without load lets the gateway see them close.
 */
const SWITCH_PAUSE_MS = 300;

export interface SoakSpec {
  load: LoadGenerator;
  origin: string;
  keys: readonly string[];
  /** The gateway process under the soak: RSS from /proc, heap and loop delay from its monitor. */
  proc: ManagedProcess;
  bodies: { chat: string; stream: string };
  /** Switches the upstream the gateway calls between JSON and event-stream replies. */
  useMode: (mode: ReplyMode) => Promise<void>;
  durationS: number;
  /** The first part of the soak, left out of the trend. */
  warmupS: number;
  /** The memory floor is the lowest level of each window this long (see report/memory-trend.ts). */
  floorWindowS: number;
  /** ... that memory held this long. */
  floorHoldS: number;
  /** Seconds of chat, then of streams, in turn. */
  segmentS: number;
  connections: number;
  pauseMs: number;
  sampleS: number;
  say: (line: string) => void;
}

/** Samples the process every `sampleS` (on a fixed grid from `t0`) until `stop` is aborted. */
async function sampleMemory(spec: SoakSpec, t0: number, stop: AbortSignal): Promise<SoakSample[]> {
  const samples: SoakSample[] = [];
  await readLoopStats(spec.proc); // starts the first loop-delay window
  for (let k = 1; !stop.aborted; k++) {
    const wait = Math.max(0, t0 + k * spec.sampleS * 1000 - performance.now());
    const woken = await sleep(wait, 'sample', { signal: stop }).catch(() => 'stopped');
    if (woken === 'stopped') break;
    const tS = (performance.now() - t0) / 1000;
    const rssMb = spec.proc.rssMb();
    const loop = await readLoopStats(spec.proc);
    samples.push({
      tS: round(tS, 1),
      rssMb: round(rssMb, 1),
      heapUsedMb: round(loop.heapUsedMb, 1),
      loopP99Ms: round(loop.p99Ms, 2),
      loopMaxMs: round(loop.maxMs, 2),
    });
  }
  return samples;
}

export async function runSoak(spec: SoakSpec): Promise<SoakResult> {
  const t0 = performance.now();
  const elapsedS = () => (performance.now() - t0) / 1000;
  const stop = new AbortController();
  const sampling = sampleMemory(spec, t0, stop.signal);
  const runs: Record<'chat' | 'stream', LoadResult[]> = { chat: [], stream: [] };
  try {
    for (let i = 0; ; i++) {
      // wrk takes whole seconds; the last segment is cut to end the soak on time.
      const left = Math.floor(spec.durationS - elapsedS());
      if (left < 1) break;
      const kind = i % 2 === 0 ? 'chat' : 'stream';
      await spec.useMode(kind === 'chat' ? 'json' : 'sse');
      await sleep(SWITCH_PAUSE_MS);
      runs[kind].push(
        await spec.load.run({
          origin: spec.origin,
          path: CHAT_PATH,
          connections: spec.connections,
          durationS: Math.min(spec.segmentS, left),
          body: kind === 'chat' ? spec.bodies.chat : spec.bodies.stream,
          keys: spec.keys,
          pauseMs: spec.pauseMs,
        }),
      );
    }
  } finally {
    stop.abort();
  }
  const elapsed = elapsedS();
  const samples = await sampling;
  const chat = combineRounds(runs.chat);
  const stream = combineRounds(runs.stream);
  const requests = chat.requests + stream.requests;
  const windows = {
    warmupS: spec.warmupS,
    windowS: spec.floorWindowS,
    durationS: spec.durationS,
    holdS: spec.floorHoldS,
  };
  const rss = memoryTrend(
    samples.map((s) => ({ tS: s.tS, mb: s.rssMb })),
    windows,
  );
  const heapUsed = memoryTrend(
    samples.map((s) => ({ tS: s.tS, mb: s.heapUsedMb })),
    windows,
  );
  const judged = samples.filter((s) => s.tS >= spec.warmupS);
  const rps = requests / elapsed;
  const result: SoakResult = {
    durationS: spec.durationS,
    elapsedS: round(elapsed, 1),
    warmupS: spec.warmupS,
    segmentS: spec.segmentS,
    connections: spec.connections,
    pauseMs: spec.pauseMs,
    sampleS: spec.sampleS,
    floorWindowS: spec.floorWindowS,
    floorHoldS: spec.floorHoldS,
    requests,
    rps: round(rps, 1),
    chat,
    stream,
    rss,
    heapUsed,
    // What a steady climb of the fitted slope would be per request: a leak's size, if it is one.
    rssSlopeBytesPerRequest: rps > 0 ? round((rss.slopeMbPerMin * 2 ** 20) / (rps * 60), 1) : Number.NaN,
    loopDelay: {
      p99Ms: round(median(judged.map((s) => s.loopP99Ms)), 2),
      maxMs: judged.length > 0 ? round(Math.max(...judged.map((s) => s.loopMaxMs)), 2) : Number.NaN,
    },
    samples,
  };
  spec.say(
    `  soak: ${requests} requests in ${result.elapsedS} s (${Math.round(rps)}/s); RSS floors ${rss.floorsMb.join(', ')} MiB (max ${rss.maxMb}), slope ${rss.slopeMbPerMin} MiB/min; heap used floors ${heapUsed.floorsMb.join(', ')} MiB`,
  );
  return result;
}
