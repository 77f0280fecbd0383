import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { Agent, request } from 'undici';
import { countContentChunks, STREAM_CHUNKS } from '../upstream/canned-replies.js';

// Keeps `streams` slow streams open at once (each lane starts a new one when its stream ends) until
// told to stop; then lets the open ones finish. Runs in a worker thread so the main thread's probe
// of the proxy is not delayed by this client's own work.

export interface SlowStreamWorkerData {
  url: string;
  body: string;
  keys: string[];
  streams: number;
  /** Lanes start evenly over this time, as clients arrive, rather than in one burst of connects. */
  rampMs: number;
}

export type SlowStreamMessage =
  | { type: 'tick'; flowing: number; started: number; completed: number; failed: number }
  | { type: 'done'; started: number; completed: number; failed: number; ttfbs: number[] };

const data = workerData as SlowStreamWorkerData;
const port = parentPort!;
const agent = new Agent({ connections: null, pipelining: 1, keepAliveTimeout: 60_000 });
let stopping = false;
let flowing = 0;
let started = 0;
let completed = 0;
let failed = 0;
const ttfbs: number[] = [];

async function lane(index: number): Promise<void> {
  await sleep((index * data.rampMs) / data.streams);
  let n = index;
  while (!stopping) {
    const key = data.keys[n++ % data.keys.length];
    started++;
    const t0 = performance.now();
    let receiving = false;
    let text = '';
    try {
      const res = await request(data.url, {
        dispatcher: agent,
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: data.body,
      });
      for await (const chunk of res.body) {
        if (!receiving) {
          receiving = true;
          flowing++;
          ttfbs.push(performance.now() - t0);
        }
        text += (chunk as Buffer).toString('utf8');
      }
      if (res.statusCode === 200 && countContentChunks(text) === STREAM_CHUNKS) completed++;
      else failed++;
    } catch {
      failed++;
    } finally {
      if (receiving) flowing--;
    }
  }
}

const ticker = setInterval(
  () => port.postMessage({ type: 'tick', flowing, started, completed, failed }),
  250,
);
const lanes = Array.from({ length: data.streams }, (_, i) => lane(i));

port.on('message', (m: unknown) => {
  if (m !== 'stop') return;
  stopping = true;
  void Promise.all(lanes).then(async () => {
    clearInterval(ticker);
    port.postMessage({ type: 'done', started, completed, failed, ttfbs } satisfies SlowStreamMessage);
    await agent.close();
    port.close();
  });
});
