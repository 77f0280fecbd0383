import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { Client } from 'undici';
import { readLoopStats } from '../processes/loop-stats.js';
import type { ManagedProcess } from '../processes/managed-process.js';
import type { SlowStreamsResult } from '../report/results.js';
import { round, summarize } from '../report/stats.js';
import type { SlowStreamMessage, SlowStreamWorkerData } from './slow-stream-worker.js';

const WORKER = path.join(import.meta.dirname, 'slow-stream-worker.js');
const PROBE_GAP_MS = 20;
const IDLE_PROBE_MS = 1000;
const RSS_SAMPLE_MS = 250;
const RAMP_MS = 1000;

export interface SlowStreamsSpec {
  origin: string;
  path: string;
  body: string;
  keys: readonly string[];
  streams: number;
  holdS: number;
  chunkIntervalMs: number;
  /** The proxy under test (absent for direct calls): RSS and event-loop delay are read from it. */
  proc?: ManagedProcess;
  /** A light GET on the proxy, timed every 20 ms from outside during the load. */
  probeUrl?: string;
}

/** Sends a light GET every 20 ms until `until()` is true; returns the latencies (ms). */
async function probe(url: string, until: () => boolean): Promise<number[]> {
  const u = new URL(url);
  const client = new Client(u.origin);
  const samples: number[] = [];
  try {
    while (!until()) {
      const t0 = performance.now();
      const res = await client.request({ method: 'GET', path: u.pathname });
      await res.body.dump();
      samples.push(performance.now() - t0);
      await sleep(PROBE_GAP_MS);
    }
  } finally {
    await client.close();
  }
  return samples;
}

/**
 * Holds `streams` slow streams open through the target for `holdS` seconds, sampling the proxy's
 * RSS and probing its responsiveness, then lets the streams finish.
 */
export async function runSlowStreams(spec: SlowStreamsSpec): Promise<SlowStreamsResult> {
  const { proc, probeUrl } = spec;
  let idleProbe: number[] = [];
  const rssIdleMb = proc ? proc.rssMb() : undefined;
  if (probeUrl) {
    const until = performance.now() + IDLE_PROBE_MS;
    idleProbe = await probe(probeUrl, () => performance.now() > until);
  }
  if (proc) await readLoopStats(proc); // starts a fresh window for the load

  const workerData: SlowStreamWorkerData = {
    url: `${spec.origin}${spec.path}`,
    body: spec.body,
    keys: [...spec.keys],
    streams: spec.streams,
    rampMs: RAMP_MS,
  };
  const worker = new Worker(WORKER, { workerData });
  let last: Extract<SlowStreamMessage, { type: 'tick' }> = {
    type: 'tick',
    flowing: 0,
    started: 0,
    completed: 0,
    failed: 0,
  };
  let done: Extract<SlowStreamMessage, { type: 'done' }> | undefined;
  const finished = new Promise<void>((resolve, reject) => {
    worker.on('message', (m: SlowStreamMessage) => {
      if (m.type === 'tick') last = m;
      else {
        done = m;
        resolve();
      }
    });
    worker.once('error', reject);
  });

  const t0 = performance.now();
  const holdMs = spec.holdS * 1000;
  // Steady state: every lane has started and received its first chunk.
  const steadyFrom = RAMP_MS + 2 * spec.chunkIntervalMs;
  let holding = true;
  const loadProbe = probeUrl ? probe(probeUrl, () => !holding) : Promise.resolve([]);
  const rss: number[] = [];
  const flowing: number[] = [];
  while (performance.now() - t0 < holdMs) {
    await sleep(RSS_SAMPLE_MS);
    if (proc) rss.push(proc.rssMb());
    if (performance.now() - t0 >= steadyFrom) flowing.push(last.flowing);
  }
  holding = false;
  const loop = proc ? await readLoopStats(proc) : undefined;
  const probed = await loadProbe;
  worker.postMessage('stop');
  await finished;
  await worker.terminate();
  // Memory a second after the streams ended: what the process keeps.
  if (proc) await sleep(1000);
  const rssAfterMb = proc?.rssMb();

  const result = done!;
  const ttfb = summarize(result.ttfbs);
  const idle = summarize(idleProbe);
  const load = summarize(probed);
  return {
    streams: spec.streams,
    chunkIntervalMs: spec.chunkIntervalMs,
    holdS: spec.holdS,
    started: result.started,
    completed: result.completed,
    failed: result.failed,
    flowingMin: flowing.length ? Math.min(...flowing) : 0,
    flowingMean: flowing.length ? round(flowing.reduce((a, b) => a + b, 0) / flowing.length, 1) : 0,
    ttfbP50Ms: round(ttfb.p50, 2),
    ttfbP99Ms: round(ttfb.p99, 2),
    ...(proc && rssIdleMb !== undefined
      ? {
          rssIdleMb: round(rssIdleMb, 1),
          rssPeakMb: round(Math.max(rssIdleMb, ...rss), 1),
          rssAfterMb: round(rssAfterMb ?? Number.NaN, 1),
        }
      : {}),
    ...(loop
      ? {
          loopDelay: {
            p50Ms: round(loop.p50Ms, 2),
            p99Ms: round(loop.p99Ms, 2),
            maxMs: round(loop.maxMs, 2),
          },
        }
      : {}),
    ...(probeUrl
      ? {
          probe: {
            idleP50Ms: round(idle.p50, 3),
            loadP50Ms: round(load.p50, 3),
            loadP99Ms: round(load.p99, 3),
            loadMaxMs: round(load.max, 3),
          },
        }
      : {}),
  };
}
