import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../test/fake-upstream.js';
import { freePort } from '../test/gateway-process.js';
import { createChannel, createToken } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

// Redis going away and coming back, on a Redis of this test's own (never the shared one): calls
// keep being served without waiting on it, rate limits fall back to the node's memory (said once),
// sessions made in Redis answer 503 (never 500) while new sign-ins work on the database, and when
// Redis is back every cache is reloaded, so a change this node missed meanwhile takes effect.

describe.skipIf(!process.env.TEST_REDIS_URL && process.env.REQUIRE_ALL_SUITES !== '1')('Redis outage', () => {
  let port = 0;
  let redis: ChildProcess | undefined;
  let up: FakeUpstream;
  let t: TestApp;
  const warnings: string[] = [];

  const startRedis = async () => {
    redis = spawn(
      'redis-server',
      ['--port', String(port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'],
      {
        stdio: 'ignore',
      },
    );
    for (let i = 0; i < 100; i++) {
      const ok = await new Promise<boolean>((resolve) => {
        const ping = spawn('redis-cli', ['-p', String(port), 'ping'], {
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        let out = '';
        ping.stdout.on('data', (b: Buffer) => {
          out += b.toString();
        });
        ping.on('close', () => resolve(out.includes('PONG')));
      });
      if (ok) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('redis-server did not start');
  };
  const stopRedis = async () => {
    const r = redis;
    redis = undefined;
    if (!r || r.exitCode !== null) return;
    const exited = new Promise((resolve) => r.once('exit', resolve));
    r.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    port = await freePort();
    await startRedis();
    up = await startFakeUpstream();
    t = await createTestApp({
      env: { REDIS_URL: `redis://127.0.0.1:${port}` },
      overrides: { onWarning: (m) => warnings.push(m) },
    });
  });
  afterAll(async () => {
    await t?.close();
    await stopRedis();
    await up?.close();
  });

  const chat = (key: string) =>
    t.call({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });

  it('serves through an outage without waiting on Redis, and reloads everything when it is back', async () => {
    const root = await t.signIn('root', ROOT_PASSWORD);
    const [channelId] = await createChannel(t, root, {
      name: 'up',
      key: 'sk-up',
      base_url: `${up.url}/v1`,
      models: 'gpt-4o-mini',
    });
    const { key } = await createToken(t, root);
    expect((await chat(key)).statusCode).toBe(200);

    await stopRedis();
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const res = await chat(key);
      expect(res.statusCode).toBe(200);
      // Not a benchmark: the bound only catches waiting on a dead Redis (timeouts, retries).
      expect(performance.now() - started).toBeLessThan(1000);
    }
    expect(warnings.filter((w) => w.startsWith('Redis is unavailable'))).toHaveLength(1);

    // The session made in Redis cannot be read now: a clear 503.
    const self = await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie: root } });
    expect(self.statusCode).toBe(503);
    expect(self.json()).toMatchObject({ success: false, code: 'service_unavailable' });
    // A new sign-in works, on the database.
    const again = await t.signIn('root', ROOT_PASSWORD);
    expect(
      (await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie: again } })).statusCode,
    ).toBe(200);

    // Another node disables the channel meanwhile; its message never reaches this node.
    await t.s.database.db.updateTable('channels').set({ status: 2 }).where('id', '=', channelId!).execute();
    expect((await chat(key)).statusCode).toBe(200);

    await startRedis();
    for (let i = 0; i < 200 && !warnings.some((w) => w.startsWith('Redis is back')); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(warnings.some((w) => w.startsWith('Redis is back'))).toBe(true);
    for (let i = 0; i < 100 && (await chat(key)).statusCode === 200; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect((await chat(key)).statusCode).not.toBe(200);
    // The session made on the database during the outage still works.
    expect(
      (await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie: again } })).statusCode,
    ).toBe(200);
  }, 60_000);

  it('starts a node while Redis is down, serves on the fallbacks, and takes Redis up when it answers', async () => {
    await stopRedis();
    // A node that never reached Redis stops (QUIT would wait for a connection for ever).
    const early = await createTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    await early.close();
    const told: string[] = [];
    let closed = false;
    const late = await createTestApp({
      env: { REDIS_URL: `redis://127.0.0.1:${port}` },
      overrides: { onWarning: (m) => told.push(m) },
    });
    try {
      expect(told.filter((w) => w.startsWith('Redis is unavailable'))).toHaveLength(1);
      const root = await late.signIn('root', ROOT_PASSWORD);
      await createChannel(late, root, {
        name: 'up',
        key: 'sk-up',
        base_url: `${up.url}/v1`,
        models: 'gpt-4o-mini',
      });
      const { key } = await createToken(late, root);
      const res = await late.call({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(res.statusCode, res.body).toBe(200);
      await startRedis();
      for (let i = 0; i < 200 && !told.some((w) => w.startsWith('Redis is back')); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(told.some((w) => w.startsWith('Redis is back'))).toBe(true);
      // Sessions made now live in Redis again, and are read from it.
      const inRedis = await late.signIn('root', ROOT_PASSWORD);
      expect(
        (await late.call({ method: 'GET', url: '/api/user/self', headers: { cookie: inRedis } })).statusCode,
      ).toBe(200);
      // And one that lost it.
      await stopRedis();
      await late.close();
      closed = true;
    } finally {
      if (!closed) await late.close();
    }
  }, 60_000);
});
