import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayProcess, RootSession } from './test/gateway-process.js';

// A client that leaves a long stream: the gateway reads the upstream to its end so the call is
// billed for the whole output, but must not keep what nobody will read. Measured on a real gateway
// process: its peak resident memory (VmHWM) while draining 100 MiB streams the clients dropped.

const MIB = 1024 * 1024;
const STREAM_BYTES = 100 * MIB;
const CONTENT = 'x'.repeat(4000);
const EVENT = Buffer.from(
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: CONTENT } }] })}\n\n`,
);
const EVENTS = Math.ceil(STREAM_BYTES / EVENT.length);
const COMPLETION_TOKENS = EVENTS;

function memoryKib(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]);
}

describe('streams abandoned by their clients', () => {
  let node: GatewayProcess;
  let upstream: http.Server;
  let upstreamUrl = '';
  let finished = 0;

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const pump = () => {
        while (sent < EVENTS) {
          sent++;
          if (!res.write(EVENT)) {
            res.once('drain', pump);
            return;
          }
        }
        const usage = {
          prompt_tokens: 5,
          completion_tokens: COMPLETION_TOKENS,
          total_tokens: 5 + COMPLETION_TOKENS,
        };
        res.end(`data: ${JSON.stringify({ choices: [], usage })}\n\ndata: [DONE]\n\n`, () => {
          finished++;
        });
      };
      pump();
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    node = await GatewayProcess.start();
  }, 60_000);

  afterAll(async () => {
    await node?.dispose();
    await new Promise((r) => upstream?.close(r));
  });

  it('reads dropped 100 MiB streams to their end, bills the whole output, and keeps little of it in memory', async () => {
    const root = await RootSession.open(node.origin);
    await root.call('POST', '/api/prices/single', {
      model: 'drain-model',
      type: 'tokens',
      channel_type: 1,
      input: 1,
      output: 1,
    });
    const key = await root.channelAndToken(upstreamUrl, 'drain-model');
    const pid = node.child.pid as number;
    const ask = async () => {
      const ac = new AbortController();
      const res = await fetch(`${node.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'drain-model',
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
        }),
        signal: ac.signal,
      });
      expect(res.status).toBe(200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      // The client leaves after its first chunk.
      ac.abort();
    };
    // One call first, so what the first call of a process allocates once is not counted.
    await ask();
    const logs = async () =>
      (await root.call<{ data: { completion_tokens: number }[] }>('GET', '/api/log/?p=0&type=2')).data;
    for (let i = 0; (await logs()).length < 1; i++) {
      if (i > 600) throw new Error('the first abandoned call was never billed');
      await new Promise((r) => setTimeout(r, 200));
    }
    const peakBefore = memoryKib(pid, 'VmHWM');

    const clients = 5;
    await Promise.all(Array.from({ length: clients }, ask));
    for (let i = 0; (await logs()).length < 1 + clients; i++) {
      if (i > 1500) throw new Error('the abandoned calls were never billed');
      await new Promise((r) => setTimeout(r, 200));
    }
    const growthMib = (memoryKib(pid, 'VmHWM') - peakBefore) / 1024;
    process.stdout.write(
      `abandoned streams: ${clients} x ${STREAM_BYTES / MIB} MiB drained, peak RSS grew ${growthMib.toFixed(1)} MiB\n`,
    );
    expect(finished).toBe(1 + clients);
    // Every call billed for the full output the upstream reported.
    for (const log of await logs()) expect(log.completion_tokens).toBe(COMPLETION_TOKENS);
    // 500 MiB went through: keeping the streams' text would pass the bound, which leaves room for
    // garbage not yet collected (Node 24 leaves more of it than Node 20).
    expect(growthMib).toBeLessThan(250);
  }, 600_000);
});
