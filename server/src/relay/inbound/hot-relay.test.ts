import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../../test/fake-upstream.js';
import { createChannel, createToken, settled } from '../../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';
import { HotRelay } from './hot-relay.js';

// The hot path (hot-relay.ts) serves the relay's POST routes before Fastify. A query string sends
// the same request through Fastify instead, so every check here is made both ways and the two
// answers must agree: status, the headers a client reads, the body.

const UPSTREAM_KEY = 'sk-upstream-hot-key';
const BODY_LIMIT = 4096;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe('relay hot path', () => {
  let t: TestApp;
  let up: FakeUpstream;
  let origin: string;
  let key: string;
  let subnetKey: string;
  let userCookie: string;

  const send = async (
    path: string,
    body: string,
    headers: Record<string, string> = {},
    route: 'hot' | 'fastify' = 'hot',
  ): Promise<Answer> => {
    const res = await request(`${origin}${path}${route === 'fastify' ? '?via=fastify' : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };

  /** The request both ways; returns the hot path's answer after checking that Fastify's agrees. */
  const bothWays = async (path: string, body: string, headers: Record<string, string> = {}) => {
    const hot = await send(path, body, headers, 'hot');
    const slow = await send(path, body, headers, 'fastify');
    expect(hot.status).toBe(slow.status);
    for (const name of [
      'content-type',
      'access-control-allow-origin',
      'access-control-allow-credentials',
      'vary',
      'retry-after',
    ]) {
      expect(hot.headers[name], name).toEqual(slow.headers[name]);
    }
    // The request id, and the fake upstream's completion id and time, differ between the two calls.
    const masked = (a: Answer) =>
      a.body
        .replace(String(a.headers['x-request-id']), '<id>')
        .replace(/"id":"[^"]*"/, '"id":"<id>"')
        .replace(/"created":\d+/, '"created":0');
    expect(masked(hot)).toBe(masked(slow));
    return hot;
  };

  const chat = (model = 'hot-chat', extra: Record<string, unknown> = {}) =>
    JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra });

  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
    t = await createTestApp({
      env: { RELAY_BODY_LIMIT: String(BODY_LIMIT), TRUSTED_PROXIES: '127.0.0.1' },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const root = await t.signIn('root', ROOT_PASSWORD);
    const res = await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: root },
      payload: { model: 'hot-chat', type: 'tokens', channel_type: 1, input: 1, output: 1 },
    });
    expect(res.statusCode, res.body).toBe(200);
    await createChannel(t, root, { name: 'hot', key: UPSTREAM_KEY, base_url: up.url, models: ['hot-chat'] });
    const userId = await registerUser(t, 'hotuser');
    await t.s.repos.users.update(userId, { quota: 1_000_000 });
    userCookie = await t.signIn('hotuser', 'password-123');
    key = (await createToken(t, userCookie)).key;
    subnetKey = (await createToken(t, userCookie, { subnet: '10.1.2.0/24' })).key;
  });

  afterAll(async () => {
    await t?.close();
    await up?.close();
  });

  beforeEach(() => {
    up.reset();
    up.setScenario({ kind: 'ok', content: 'hot reply', promptTokens: 3, completionTokens: 2 });
  });

  it('relays a call with the request id, CORS headers and body Fastify gives it', async () => {
    const serve = vi.spyOn(HotRelay.prototype, 'serve');
    const a = await bothWays('/v1/chat/completions', chat(), {
      authorization: `Bearer ${key}`,
      origin: 'https://app.example',
    });
    // The first request took the hot path, the one with a query string went to Fastify.
    expect(serve.mock.results.map((r) => r.value)).toEqual([true, false]);
    serve.mockRestore();
    expect(a.status).toBe(200);
    expect(a.headers['access-control-allow-origin']).toBe('*');
    expect(a.headers['access-control-allow-credentials']).toBeUndefined();
    expect(JSON.parse(a.body).choices[0].message.content).toBe('hot reply');
    expect(String(a.headers['x-request-id'])).toMatch(/^[0-9a-f]{24}$/);
    await settled(t);
    expect(up.requests).toHaveLength(2);
  });

  it('keeps a well-formed client request id and replaces a malformed one', async () => {
    const kept = await send('/v1/chat/completions', chat(), {
      authorization: `Bearer ${key}`,
      'x-request-id': 'client-trace-0001',
    });
    expect(kept.headers['x-request-id']).toBe('client-trace-0001');
    const replaced = await send('/v1/chat/completions', chat(), {
      authorization: `Bearer ${key}`,
      'x-request-id': 'bad id\twith spaces',
    });
    expect(replaced.headers['x-request-id']).not.toBe('bad id\twith spaces');
    expect(String(replaced.headers['x-request-id'])).toMatch(/^[0-9a-f]{24}$/);
  });

  it('answers errors in the dialect of the route', async () => {
    const openai = await bothWays('/v1/chat/completions', chat(), { authorization: 'Bearer sk-nope' });
    expect(openai.status).toBe(401);
    expect(JSON.parse(openai.body).error.code).toBe('invalid_api_key');
    const anthropic = await bothWays(
      '/v1/messages',
      JSON.stringify({ model: 'hot-chat', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      { 'x-api-key': 'sk-nope' },
    );
    expect(anthropic.status).toBe(401);
    expect(JSON.parse(anthropic.body)).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
    const badJson = await bothWays('/v1/chat/completions', '{"model":', { authorization: `Bearer ${key}` });
    expect(badJson.status).toBe(400);
    expect(JSON.parse(badJson.body).error.message).toMatch(/^The request body is not valid JSON/);
  });

  it('refuses a body over the limit, declared or streamed, with the relay error', async () => {
    const big = chat('hot-chat', { padding: 'x'.repeat(BODY_LIMIT) });
    const declared = await bothWays('/v1/chat/completions', big, { authorization: `Bearer ${key}` });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error.code).toBe('request_too_large');
    // Chunked: no content-length to refuse up front, so the limit is met while reading.
    const res = await request(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: Readable.from(
        (function* () {
          for (let i = 0; i < 8; i++) yield Buffer.from('x'.repeat(1024));
        })(),
      ),
    });
    expect(res.statusCode).toBe(413);
    expect(JSON.parse(await res.body.text()).error.code).toBe('request_too_large');
    expect(up.requests).toHaveLength(0);
  });

  it('sees the client address behind a trusted proxy as Fastify does', async () => {
    const a = await bothWays('/v1/chat/completions', chat(), {
      authorization: `Bearer ${subnetKey}`,
      'x-forwarded-for': '203.0.113.9',
    });
    expect(a.status).toBe(403);
    expect(JSON.parse(a.body).error.message).toContain('203.0.113.9');
    const inSubnet = await send('/v1/chat/completions', chat(), {
      authorization: `Bearer ${subnetKey}`,
      'x-forwarded-for': '10.1.2.3',
    });
    expect(inSubnet.status).toBe(200);
  });

  it("applies a key's edited model list and subnets from its next call on", async () => {
    const tok = await createToken(t, userCookie, { models: ['other-model'] });
    const call = () => send('/v1/chat/completions', chat(), { authorization: `Bearer ${tok.key}` });
    const edit = async (fields: Record<string, unknown>) => {
      const res = await t.call({
        method: 'PUT',
        url: '/api/token/',
        headers: { cookie: userCookie },
        payload: {
          id: tok.id,
          name: 'test',
          expired_time: -1,
          remain_quota: 0,
          unlimited_quota: true,
          ...fields,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    const refused = await call();
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toContain('hot-chat');
    await edit({ models: ['hot-chat'], subnet: '10.9.0.0/16' });
    const outside = await call();
    expect(outside.status).toBe(403);
    expect(JSON.parse(outside.body).error.message).toContain('127.0.0.1');
    await edit({ models: ['hot-chat'], subnet: '10.9.0.0/16, 127.0.0.0/8' });
    expect((await call()).status).toBe(200);
  });

  it("shows a call in the caller's log and log total as soon as its reply has been read", async () => {
    await settled(t);
    const read = async (url: string) => {
      const res = await t.call({ method: 'GET', url, headers: { cookie: userCookie } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data;
    };
    const before = {
      count: (await read('/api/log/self/')).total_count,
      quota: (await read('/api/log/self/stat')).quota,
    };
    const a = await send('/v1/chat/completions', chat(), { authorization: `Bearer ${key}` });
    expect(a.status).toBe(200);
    // No wait for the ledger here: the log's readers see what is settled (its rows are published
    // into the log in bulk, every second on SQLite).
    expect((await read('/api/log/self/')).total_count).toBe(before.count + 1);
    expect((await read('/api/log/self/stat')).quota).toBeGreaterThan(before.quota);
  });

  it('leaves other methods, unknown paths and multipart uploads to Fastify', async () => {
    const options = await request(`${origin}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-headers': 'authorization' },
    });
    expect(options.statusCode).toBe(204);
    await options.body.dump();
    const unknown = await send('/v1/chat/completions/extra', chat(), { authorization: `Bearer ${key}` });
    expect(unknown.status).toBe(404);
    const multipart = await send('/v1/audio/transcriptions', '--b--\r\n', {
      authorization: `Bearer ${key}`,
      'content-type': 'multipart/form-data; boundary=b',
    });
    // Fastify's multipart route reads the form for its model field.
    expect(multipart.status).toBe(400);
    expect(JSON.parse(multipart.body).error.message).toMatch(/model/);
  });
});
