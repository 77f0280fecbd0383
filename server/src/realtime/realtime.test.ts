import net, { type AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/beta/realtime/ws';
import { OpenAIRealtimeWS as OpenAIRealtimeGA } from 'openai/realtime/ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { engineTargets } from '../test/databases.js';
import { type FakeRealtime, startFakeRealtime } from '../test/fake-realtime.js';
import { startHttpProxy, startSocks5Proxy, type TestProxy } from '../test/proxy-servers.js';
import { createChannel, createToken, settled } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';

// The Realtime API relay driven by the `openai` SDK's WebSocket client against a fake upstream that
// speaks the Realtime event format. Prices: input 1, output 2, so a response of 10 input and 2 output
// tokens costs 14 quota.

const UPSTREAM_KEY = 'sk-upstream-realtime';
const MODEL = 'gpt-rt';
const COST = 14;
const RESERVE = 20;

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`realtime relay (${target.engine})`, () => {
    let t: TestApp;
    let up: FakeRealtime;
    let port: number;
    let root: string;
    let userId: number;
    let userCookie: string;

    beforeAll(async () => {
      up = await startFakeRealtime({ apiKey: UPSTREAM_KEY });
      t = await createTestApp({
        engine: target,
        env: {
          REALTIME_MAX_MESSAGE_BYTES: '64kb',
          METRICS_TOKEN: 'metrics-token-0123456789',
          REALTIME_SESSIONS_PER_TOKEN: '2',
          // Upgraded connections must outlive the HTTP deadlines of ordinary requests.
          HTTP_HEADERS_TIMEOUT_SECONDS: '1',
          HTTP_REQUEST_TIMEOUT_SECONDS: '1',
          HTTP_IDLE_TIMEOUT_SECONDS: '1',
          // Balances are set outright between these tests, in the database and without the change
          // bus: a node's quota lease would serve its slice until the node's next check.
          QUOTA_LEASE_SLICE: '0',
        },
      });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      port = (t.app.server.address() as AddressInfo).port;
      root = await t.signIn('root', ROOT_PASSWORD);
      const price = await t.call({
        method: 'POST',
        url: '/api/prices/single',
        headers: { cookie: root },
        payload: { model: MODEL, type: 'tokens', channel_type: 1, input: 1, output: 2 },
      });
      expect(price.statusCode, price.body).toBe(200);
      for (const model of ['gpt-rt-far', 'gpt-rt-proxied', 'gpt-rt-socks']) {
        await t.call({
          method: 'POST',
          url: '/api/prices/single',
          headers: { cookie: root },
          payload: { model, type: 'tokens', channel_type: 1, input: 1, output: 2 },
        });
      }
      await createChannel(t, root, {
        name: 'realtime',
        key: UPSTREAM_KEY,
        base_url: up.url,
        models: [MODEL],
        // '+': billed as the model asked for, sent as the upstream's name.
        model_mapping: JSON.stringify({ [MODEL]: '+rt-upstream-name' }),
      });
      userId = await registerUser(t, 'rtuser');
      userCookie = await t.signIn('rtuser', 'password-123');
    });

    afterAll(async () => {
      await t?.close();
      await up?.close();
    });

    beforeEach(async () => {
      await t.s.options.update({
        PreConsumedQuota: String(RESERVE),
        RetryTimes: '0',
        RetryCooldownSeconds: '0',
      });
      await t.s.repos.users.update(userId, { quota: 1_000_000 });
      up.setScenario({
        text: 'hello there friend',
        usage: { input: 10, output: 2, inputAudio: 4, outputAudio: 1 },
      });
    });

    const quotaOf = async () => (await t.s.repos.users.byId(userId))!.quota;
    const logsOf = async (tokenId: number) =>
      t.s.database.db
        .selectFrom('logs')
        .select(['quota', 'prompt_tokens', 'completion_tokens', 'model_name', 'metadata', 'channel_id'])
        .where('token_id', '=', tokenId)
        .orderBy('id')
        .execute();

    /** The SDK's client, its TLS swapped for a plain socket to the test server (the SDK always says wss). */
    async function connect(key: string, model = MODEL) {
      const client = new OpenAI({ apiKey: key, baseURL: `http://127.0.0.1:${port}/v1` });
      const rt = new OpenAIRealtimeWS(
        {
          model,
          options: {
            createConnection: ((opts: { port: number; host: string }) =>
              net.connect(Number(opts.port), opts.host)) as never,
          },
        },
        client,
      );
      const events: { type: string; [k: string]: unknown }[] = [];
      const errors: Error[] = [];
      rt.on('event', (e) => events.push(e as never));
      rt.on('error', (e) => errors.push(e));
      const closed = new Promise<{ code: number; reason: string }>((resolve) =>
        rt.socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
      );
      return { rt, events, errors, closed };
    }

    async function respond(rt: OpenAIRealtimeWS, events: { type: string }[], text: string) {
      const before = events.filter((e) => e.type === 'response.done').length;
      rt.send({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
      });
      rt.send({ type: 'response.create', response: { modalities: ['text'] } });
      await until('response.done', () => events.filter((e) => e.type === 'response.done').length > before);
    }

    it('relays a session of two responses and bills each exactly, one log row each', async () => {
      const { id: tokenId, key } = await createToken(t, userCookie);
      const before = await quotaOf();
      const seen = up.connections.length;
      const { rt, events, closed } = await connect(key);
      await until('session.created', () => events.some((e) => e.type === 'session.created'));
      rt.send({ type: 'session.update', session: { instructions: 'be brief' } });
      await until('session.updated', () => events.some((e) => e.type === 'session.updated'));
      await respond(rt, events, 'first');
      // Longer than every HTTP deadline of the server: the upgraded connection is not cut by them.
      await new Promise((r) => setTimeout(r, 2500));
      await respond(rt, events, 'second');
      const deltas = events.filter((e) => e.type === 'response.text.delta').map((e) => e.delta);
      expect(deltas.join('')).toBe('hello there friendhello there friend');
      rt.close();
      await closed;
      await until('upstream closed', () => up.connections[seen]?.closed);
      await settled(t);

      const conn = up.connections[seen]!;
      expect(conn.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
      expect(conn.headers['openai-beta']).toBe('realtime=v1');
      expect(conn.url).toBe('/v1/realtime?model=rt-upstream-name');
      expect(conn.received).toEqual([
        'session.update',
        'conversation.item.create',
        'response.create',
        'conversation.item.create',
        'response.create',
      ]);
      const logs = await logsOf(tokenId);
      expect(logs.map((l) => [l.quota, l.prompt_tokens, l.completion_tokens, l.model_name])).toEqual([
        [COST, 10, 2, MODEL],
        [COST, 10, 2, MODEL],
      ]);
      const meta = JSON.parse(logs[0]!.metadata);
      expect(meta).toMatchObject({
        upstream_model: 'rt-upstream-name',
        input_audio_tokens: 4,
        output_audio_tokens: 1,
      });
      expect(meta.response_id).toMatch(/^resp_/);
      expect(await quotaOf()).toBe(before - 2 * COST);
      const user = (await t.s.repos.users.byId(userId))!;
      expect(user.used_quota).toBe(2 * COST);
      const metrics = await t.call({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer metrics-token-0123456789' },
      });
      const line = metrics.body
        .split('\n')
        .find(
          (l) =>
            l.startsWith('switchyard_relay_requests_total{') &&
            l.includes('route="/v1/realtime"') &&
            l.includes('status="101"'),
        );
      expect(line?.endsWith(' 2')).toBe(true);
    });

    it("serves the SDK's generally available client (no beta header passed on)", async () => {
      const { id: tokenId, key } = await createToken(t, userCookie);
      const seen = up.connections.length;
      const client = new OpenAI({ apiKey: key, baseURL: `http://127.0.0.1:${port}/v1` });
      const rt = new OpenAIRealtimeGA(
        {
          model: MODEL,
          options: {
            createConnection: ((opts: { port: number; host: string }) =>
              net.connect(Number(opts.port), opts.host)) as never,
          },
        },
        client,
      );
      const events: { type: string }[] = [];
      rt.on('event', (e) => events.push(e as never));
      rt.on('error', () => {});
      await until('session.created', () => events.some((e) => e.type === 'session.created'));
      rt.send({ type: 'response.create' } as never);
      await until('response.done', () => events.some((e) => e.type === 'response.done'));
      const closed = new Promise((resolve) => rt.socket.on('close', resolve));
      rt.close();
      await closed;
      await until('upstream closed', () => up.connections[seen]?.closed);
      await settled(t);
      expect(up.connections[seen]!.headers['openai-beta']).toBeUndefined();
      expect((await logsOf(tokenId)).map((l) => l.quota)).toEqual([COST]);
    });

    it('refuses a wrong key with 401 before the upgrade, and never reaches the upstream', async () => {
      const seen = up.connections.length;
      const { errors } = await connect('sk-not-a-key-of-ours');
      await until('error', () => errors.length > 0);
      expect(errors[0]!.message).toContain('401');
      // The answer itself: OpenAI's error shape.
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?model=${MODEL}`, {
          headers: { authorization: 'Bearer sk-not-a-key-of-ours' },
        });
        ws.on('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (c: Buffer) => {
            body += c.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        ws.on('open', () => reject(new Error('opened')));
        ws.on('error', () => {});
      });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body).error.code).toBe('invalid_api_key');
      expect(up.connections.length).toBe(seen);
    });

    it('refuses a broken WebSocket handshake with 400 before reserving or reaching the upstream', async () => {
      const { key } = await createToken(t, userCookie);
      const seen = up.connections.length;
      const before = await quotaOf();
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () =>
          socket.write(
            `GET /v1/realtime?model=${MODEL} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: not-a-key\r\n\r\n`,
          ),
        );
        let out = '';
        socket.on('data', (d) => {
          out += d.toString();
        });
        socket.on('end', () => resolve(out));
        socket.on('error', reject);
      });
      expect(answer.startsWith('HTTP/1.1 400')).toBe(true);
      expect(up.connections.length).toBe(seen);
      await settled(t);
      expect(await quotaOf()).toBe(before);
    });

    it('takes the key from the browser subprotocol and never echoes it', async () => {
      const { id: tokenId, key } = await createToken(t, userCookie);
      const seen = up.connections.length;
      const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?model=${MODEL}`, [
        'realtime',
        `openai-insecure-api-key.${key}`,
        'openai-beta.realtime-v1',
      ]);
      const first = await new Promise<string>((resolve, reject) => {
        ws.once('message', (d) => resolve(String(d)));
        ws.once('error', reject);
      });
      expect(JSON.parse(first).type).toBe('session.created');
      expect(ws.protocol).toBe('realtime');
      expect(up.connections[seen]!.headers['openai-beta']).toBe('realtime=v1');
      ws.close();
      await until('upstream closed', () => up.connections[seen]?.closed);
      await settled(t);
      expect(await logsOf(tokenId)).toEqual([]);
    });

    it('cuts the session with an error and 1008 when the quota runs out, billing what was used', async () => {
      // The first reserve (20) holds; after a response (14) 26 are left, enough for the next reserve;
      // after the second 12 are left, and the third reserve is refused.
      await t.s.repos.users.update(userId, { quota: 40 });
      const { id: tokenId, key } = await createToken(t, userCookie);
      const seen = up.connections.length;
      const { rt, events, errors, closed } = await connect(key);
      await until('session.created', () => events.some((e) => e.type === 'session.created'));
      await respond(rt, events, 'one');
      await respond(rt, events, 'two');
      const close = await closed;
      expect(close.code).toBe(1008);
      const error = events.find((e) => e.type === 'error') as { error?: { code?: string; type?: string } };
      expect(error?.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_user_quota' });
      expect(errors.length).toBeGreaterThan(0);
      await until('upstream closed', () => up.connections[seen]?.closed);
      await settled(t);
      expect((await logsOf(tokenId)).map((l) => l.quota)).toEqual([COST, COST]);
      expect(await quotaOf()).toBe(40 - 2 * COST);
    });

    it('refuses a session before the upgrade when the balance cannot hold one reserve', async () => {
      await t.s.repos.users.update(userId, { quota: RESERVE - 1 });
      const { key } = await createToken(t, userCookie);
      const { errors } = await connect(key);
      await until('error', () => errors.length > 0);
      expect(errors[0]!.message).toContain('403');
      await settled(t);
      expect(await quotaOf()).toBe(RESERVE - 1);
      // With no PreConsumedQuota an empty balance still opens no session: it reserves at least 1.
      await t.s.options.update({ PreConsumedQuota: '0' });
      await t.s.repos.users.update(userId, { quota: 0 });
      const empty = await connect(key);
      await until('error', () => empty.errors.length > 0);
      expect(empty.errors[0]!.message).toContain('403');
    });

    it('tells the client when the upstream drops mid-response and bills only the responses it finished', async () => {
      const { id: tokenId, key } = await createToken(t, userCookie);
      const before = await quotaOf();
      const { rt, events, closed } = await connect(key);
      await until('session.created', () => events.some((e) => e.type === 'session.created'));
      await respond(rt, events, 'one');
      up.setScenario({ text: 'a b c d e f', usage: { input: 50, output: 50 }, dropAfterDeltas: 2 });
      rt.send({ type: 'response.create' });
      const close = await closed;
      expect(close.code).toBe(1011);
      const error = events.find((e) => e.type === 'error') as { error?: { code?: string } };
      expect(error?.error?.code).toBe('upstream_closed');
      expect(events.filter((e) => e.type === 'response.text.delta').length).toBe(3 + 2);
      await settled(t);
      expect((await logsOf(tokenId)).map((l) => l.quota)).toEqual([COST]);
      expect(await quotaOf()).toBe(before - COST);
    });

    it('closes the upstream when the client drops, and bills a response it left in progress', async () => {
      const { id: tokenId, key } = await createToken(t, userCookie);
      const before = await quotaOf();
      // Idle: the upstream is closed at once, nothing billed.
      const idle = await connect(key);
      const seenIdle = up.connections.length;
      await until('session.created', () => idle.events.some((e) => e.type === 'session.created'));
      idle.rt.socket.terminate();
      await until('upstream closed', () => up.connections[seenIdle - 1]?.closed);

      // Mid-response: the upstream is read to the response's end, billed, then closed.
      up.setScenario({ text: 'one two three four five', usage: { input: 10, output: 2 }, deltaDelayMs: 40 });
      const busy = await connect(key);
      await until('session.created', () => busy.events.some((e) => e.type === 'session.created'));
      const conn = up.connections.at(-1)!;
      busy.rt.send({ type: 'response.create' });
      await until('a delta', () => busy.events.some((e) => e.type === 'response.text.delta'));
      busy.rt.socket.terminate();
      await until('upstream closed', () => conn.closed);
      await settled(t);
      expect((await logsOf(tokenId)).map((l) => l.quota)).toEqual([COST]);
      expect(await quotaOf()).toBe(before - COST);
    });

    it('closes a session whose client sends a message over the size limit (1009)', async () => {
      const { key } = await createToken(t, userCookie);
      const { rt, events, closed } = await connect(key);
      await until('session.created', () => events.some((e) => e.type === 'session.created'));
      rt.socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: 'A'.repeat(70 * 1024) }));
      expect((await closed).code).toBe(1009);
      await settled(t);
    });

    it('caps open sessions per key (429 before the upgrade)', async () => {
      const { key } = await createToken(t, userCookie);
      const a = await connect(key);
      const b = await connect(key);
      await until(
        'two sessions',
        () =>
          a.events.some((e) => e.type === 'session.created') &&
          b.events.some((e) => e.type === 'session.created'),
      );
      const c = await connect(key);
      await until('refusal', () => c.errors.length > 0);
      expect(c.errors[0]!.message).toContain('429');
      a.rt.close();
      b.rt.close();
      await Promise.all([a.closed, b.closed]);
      await settled(t);
    });

    it('answers other upgrade requests as the plain requests they also are, bodies included', async () => {
      const exchange = (request: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
          let out = '';
          socket.on('data', (d) => {
            out += d.toString();
          });
          socket.on('end', () => resolve(out));
          socket.on('error', reject);
        });
      // What curl --http2 sends to an http:// URL.
      const h2c =
        'Connection: Upgrade, HTTP2-Settings, close\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n';
      const status = await exchange(`GET /api/status HTTP/1.1\r\nHost: x\r\n${h2c}\r\n`);
      expect(status.startsWith('HTTP/1.1 200')).toBe(true);
      expect(status).toContain('"success":true');
      const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
      const chat = await exchange(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk-wrong\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${h2c}\r\n${body}`,
      );
      expect(chat.startsWith('HTTP/1.1 401')).toBe(true);
      expect(chat).toContain('invalid_api_key');
    });

    describe('outbound', () => {
      let proxy: TestProxy;
      let socks: TestProxy;
      beforeAll(async () => {
        proxy = await startHttpProxy();
        socks = await startSocks5Proxy();
        await createChannel(t, root, {
          name: 'far',
          key: UPSTREAM_KEY,
          base_url: 'http://169.254.169.254',
          models: ['gpt-rt-far'],
        });
        await createChannel(t, root, {
          name: 'proxied',
          key: UPSTREAM_KEY,
          base_url: up.url,
          models: ['gpt-rt-proxied'],
          proxy: proxy.url,
        });
        await createChannel(t, root, {
          name: 'socks',
          key: UPSTREAM_KEY,
          base_url: up.url,
          models: ['gpt-rt-socks'],
          proxy: socks.url,
        });
      });
      afterAll(async () => {
        await proxy?.close();
        await socks?.close();
      });

      it('gives up on an upstream that accepts and never answers the handshake (502, reserve back)', async () => {
        const silent = net.createServer((socket) => socket.on('error', () => {}));
        await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
        try {
          const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
          await t.call({
            method: 'POST',
            url: '/api/prices/single',
            headers: { cookie: root },
            payload: { model: 'gpt-rt-silent', type: 'tokens', channel_type: 1, input: 1, output: 2 },
          });
          await createChannel(t, root, {
            name: 'silent',
            key: UPSTREAM_KEY,
            base_url: silentUrl,
            models: ['gpt-rt-silent'],
            plugin: { upstream: { connect_timeout: 0.5 } },
          });
          const { key } = await createToken(t, userCookie);
          const before = await quotaOf();
          const { errors } = await connect(key, 'gpt-rt-silent');
          await until('refusal', () => errors.length > 0);
          expect(errors[0]!.message).toContain('502');
          await settled(t);
          expect(await quotaOf()).toBe(before);
        } finally {
          silent.close();
        }
      });

      it('refuses an upstream the address policy forbids (502 before the upgrade)', async () => {
        const { key } = await createToken(t, userCookie);
        const { errors } = await connect(key, 'gpt-rt-far');
        await until('refusal', () => errors.length > 0);
        expect(errors[0]!.message).toContain('502');
        await settled(t);
      });

      it.each([
        ['an HTTP proxy (CONNECT)', 'gpt-rt-proxied', () => proxy, 'CONNECT'],
        ['a SOCKS5 proxy', 'gpt-rt-socks', () => socks, 'SOCKS'],
      ])('reaches the upstream through %s', async (_name, model, which, verb) => {
        const { key } = await createToken(t, userCookie);
        const { rt, events, closed } = await connect(key, model);
        await until('session.created', () => events.some((e) => e.type === 'session.created'));
        await respond(rt, events, 'via proxy');
        rt.close();
        await closed;
        const upPort = new URL(up.url).port;
        expect(which().seen).toContain(`${verb} 127.0.0.1:${upPort}`);
        await settled(t);
      });
    });
  });
}

describe('realtime relay: a stopping node', () => {
  it('lets the response in progress finish and bill, then closes the session with 1001', async () => {
    const up = await startFakeRealtime({ apiKey: UPSTREAM_KEY });
    const t = await createTestApp();
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as AddressInfo).port;
      const root = await t.signIn('root', ROOT_PASSWORD);
      await t.call({
        method: 'POST',
        url: '/api/prices/single',
        headers: { cookie: root },
        payload: { model: MODEL, type: 'tokens', channel_type: 1, input: 1, output: 2 },
      });
      await createChannel(t, root, {
        name: 'realtime',
        key: UPSTREAM_KEY,
        base_url: up.url,
        models: [MODEL],
      });
      const { id: tokenId, key } = await createToken(t, root);
      up.setScenario({
        text: 'one two three four five six',
        usage: { input: 10, output: 2 },
        deltaDelayMs: 50,
      });
      const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?model=${MODEL}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const types: string[] = [];
      ws.on('message', (d) => types.push((JSON.parse(String(d)) as { type: string }).type));
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
      await until('session.created', () => types.includes('session.created'));
      ws.send(JSON.stringify({ type: 'response.create' }));
      await until('a delta', () => types.includes('response.text.delta'));
      const stopped = t.app.close();
      expect(await closed).toBe(1001);
      await stopped;
      expect(types).toContain('response.done');
      await settled(t);
      const logs = await t.s.database.db
        .selectFrom('logs')
        .select('quota')
        .where('token_id', '=', tokenId)
        .execute();
      expect(logs.map((l) => l.quota)).toEqual([COST]);
    } finally {
      await t.close();
      await up.close();
    }
  });
});
