import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { countContentChunks, STREAM_CHUNKS } from '../upstream/canned-replies.js';

// One keep-alive connection, requests back to back: the low-load latency of a chat request and the
// time to the first body byte of a stream, timed in this process. Its own overhead is the same for
// every target, so differences between targets are the proxies' own.

export interface SequentialSpec {
  origin: string;
  path: string;
  body: string;
  keys: readonly string[];
  durationS: number;
  /** Check every reply carries all the content chunks (streams). */
  expectChunks: boolean;
}

export interface SequentialRun {
  /** Whole request, ms. */
  latencies: number[];
  /** To the first body chunk, ms. */
  ttfbs: number[];
  /** Non-2xx replies, transport errors, or streams missing content chunks. */
  bad: number;
}

export async function runSequential(spec: SequentialSpec): Promise<SequentialRun> {
  const client = new Client(spec.origin, { pipelining: 1 });
  const run: SequentialRun = { latencies: [], ttfbs: [], bad: 0 };
  const end = performance.now() + spec.durationS * 1000;
  let i = 0;
  try {
    while (performance.now() < end) {
      const key = spec.keys[i++ % spec.keys.length];
      const t0 = performance.now();
      let first = 0;
      let text = '';
      try {
        const res = await client.request({
          method: 'POST',
          path: spec.path,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: spec.body,
        });
        for await (const chunk of res.body) {
          if (first === 0) first = performance.now();
          if (spec.expectChunks) text += (chunk as Buffer).toString('utf8');
        }
        const t1 = performance.now();
        if (res.statusCode >= 300 || (spec.expectChunks && countContentChunks(text) !== STREAM_CHUNKS)) {
          run.bad++;
          continue;
        }
        run.latencies.push(t1 - t0);
        run.ttfbs.push((first || t1) - t0);
      } catch {
        run.bad++;
      }
    }
  } finally {
    await client.close();
  }
  return run;
}
