import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/test-app.js';

// While a node drains, readiness answers 503 and every request that still arrives on a kept-alive
// connection is served with `Connection: close`, on Fastify's routes and the relay's hot path alike.

function get(port: number, path: string, agent: import('node:http').Agent, method = 'GET') {
  return new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, agent }, (res) => {
      let body = '';
      res.on('data', (b: Buffer) => {
        body += b.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on('error', reject);
    if (method === 'POST') req.setHeader('content-type', 'application/json');
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

describe('drain', () => {
  let t: TestApp;
  let port = 0;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    t.app.drain.end();
    await t.close();
  });

  it('keeps connections alive and is ready until a stop begins, then closes every connection it serves', async () => {
    const { Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = await get(port, '/readyz', agent);
    expect(before).toMatchObject({ status: 200, connection: 'keep-alive' });
    expect(JSON.parse(before.body)).toMatchObject({ ready: true, draining: false });
    expect((await get(port, '/v1/chat/completions', agent, 'POST')).connection).toBe('keep-alive');

    t.app.drain.begin(t.app.server);
    // Not closed yet (no app.close()): new connections still arrive, as from a proxy that has not
    // yet seen readiness turn false.
    const fresh = new Agent({ keepAlive: true, maxSockets: 1 });
    const ready = await get(port, '/readyz', fresh);
    expect(ready).toMatchObject({ status: 503, connection: 'close' });
    expect(JSON.parse(ready.body)).toMatchObject({ ready: false, draining: true });
    // The relay's hot path (an unauthenticated call: 401 in OpenAI's shape) and Fastify's routes.
    const hot = await get(port, '/v1/chat/completions', fresh, 'POST');
    expect(hot).toMatchObject({ status: 401, connection: 'close' });
    const api = await get(port, '/api/status', fresh);
    expect(api).toMatchObject({ status: 200, connection: 'close' });
    agent.destroy();
    fresh.destroy();
  });
});
