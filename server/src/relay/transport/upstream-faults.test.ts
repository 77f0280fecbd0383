import { readFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import zlib from 'node:zlib';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createChannel, createToken, settled } from '../../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// Upstream replies the relay must not take at face value, and upstreams that hang or break. Each
// fake is a real HTTP server speaking OpenAI's wire format that misbehaves in one way; the client
// is the official OpenAI SDK (or a raw request where the bytes themselves matter), and every
// failed call is checked to have charged nothing and written no consume log.

const UPSTREAM_KEY = 'sk-upstream-faults';
const cert = readFileSync(new URL('../testdata/localhost-cert.pem', import.meta.url), 'utf8');
const key = readFileSync(new URL('../testdata/localhost-key.pem', import.meta.url), 'utf8');
const expiredCert = readFileSync(new URL('../testdata/expired-cert.pem', import.meta.url), 'utf8');
const expiredKey = readFileSync(new URL('../testdata/expired-key.pem', import.meta.url), 'utf8');

type Answer = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Fake {
  url: string;
  port: number;
  /** Requests received, in order. */
  bodies: string[];
  /** The sockets of the requests received. */
  sockets: Socket[];
  close(): Promise<void>;
}

const fakes: Fake[] = [];

/** A fake upstream answering every request through `answer`. */
async function fake(answer: Answer, tls?: { cert: string; key: string }, host = '127.0.0.1'): Promise<Fake> {
  const bodies: string[] = [];
  const sockets: Socket[] = [];
  const open = new Set<Socket>();
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      bodies.push(body);
      sockets.push(req.socket);
      answer(req, res, body);
    });
  };
  const server = tls ? https.createServer(tls, onRequest) : http.createServer(onRequest);
  server.on(tls ? 'secureConnection' : 'connection', (s: Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  const f: Fake = {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    bodies,
    sockets,
    close: () =>
      new Promise((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
  fakes.push(f);
  return f;
}

const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
/** 5 x 2 + 2 x 4 at group ratio 1. */
const CHARGE = 18;

function completion(content: string): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'upstream-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage,
  });
}

/** A chat completion stream: one event per word, then the usage chunk and [DONE]. */
function events(content: string): string[] {
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'upstream-model', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
  const out = [chunk({ role: 'assistant', content: '' })];
  for (const [i, word] of content.split(' ').entries())
    out.push(chunk({ content: i === 0 ? word : ` ${word}` }));
  out.push(
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'upstream-model', choices: [], usage })}\n\n`,
  );
  out.push('data: [DONE]\n\n');
  return out;
}

/** A well-behaved upstream: the answer as JSON or as a stream, as asked. */
const answers =
  (content: string): Answer =>
  (_req, res, body) => {
    if ((JSON.parse(body) as { stream?: boolean }).stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const e of events(content)) res.write(e);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(completion(content));
  };

const compress: Record<string, (b: Buffer) => Buffer> = {
  gzip: zlib.gzipSync,
  deflate: zlib.deflateSync,
  br: zlib.brotliCompressSync,
};

describe('upstream replies and faults', () => {
  let t: TestApp;
  let root: string;
  let gateway: string;
  let userId: number;
  let userCookie: string;
  let tokenKey: string;
  let modelSeq = 0;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    root = await t.signIn('root', ROOT_PASSWORD);
    const res = await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: root },
      payload: { model: 'fault-*', type: 'tokens', channel_type: 1, input: 2, output: 4 },
    });
    expect(res.statusCode, res.body).toBe(200);
    userId = await registerUser(t, 'faultuser');
    await t.s.repos.users.update(userId, { quota: 1_000_000 });
    userCookie = await t.signIn('faultuser', 'password-123');
    tokenKey = (await createToken(t, userCookie)).key;
  });

  afterAll(async () => {
    await t?.close();
  });

  beforeEach(async () => {
    await t.s.options.update({
      RetryTimes: '0',
      AutomaticDisableChannelEnabled: 'true',
      RetryCooldownSeconds: '0',
    });
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    for (const f of fakes.splice(0)) await f.close();
  });

  const sdk = (apiKey = tokenKey) => new OpenAI({ apiKey, baseURL: `${gateway}/v1`, maxRetries: 0 });
  /** A model of its own for each test, so channels of other tests are never picked. */
  const nextModel = () => `fault-${++modelSeq}`;
  const channel = async (
    model: string,
    base: string,
    extra: Record<string, unknown> = {},
  ): Promise<number> => {
    const [id] = await createChannel(t, root, {
      name: `ch-${model}-${extra.priority ?? 0}`,
      key: UPSTREAM_KEY,
      base_url: base,
      models: [model],
      ...extra,
    });
    return id as number;
  };
  const ask = (model: string, apiKey?: string) =>
    sdk(apiKey).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  const askStream = async (model: string) => {
    const stream = await sdk().chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    return text;
  };
  const failureOf = async (call: Promise<unknown>) => {
    try {
      await call;
    } catch (err) {
      if (err instanceof OpenAI.APIError) return err;
      throw err;
    }
    throw new Error('the call succeeded but was expected to fail');
  };
  /** The user's balance and consume logs, read after every settlement has committed. */
  const books = async () => {
    await settled(t);
    const user = await t.s.repos.users.byId(userId);
    const logs = await t.s.database.db
      .selectFrom('logs')
      .select(['quota', 'channel_id', 'metadata', 'prompt_tokens', 'completion_tokens'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
    return { quota: user?.quota ?? 0, logs };
  };
  const channelStatus = async (id: number) =>
    (await t.s.database.db.selectFrom('channels').select('status').where('id', '=', id).executeTakeFirst())
      ?.status;
  const setPlugin = async (id: number, plugin: Record<string, unknown>) => {
    const res = await t.call({
      method: 'PUT',
      url: '/api/channel/',
      headers: { cookie: root },
      payload: { id, plugin },
    });
    expect(res.statusCode, res.body).toBe(200);
    await t.s.relay.tables.reload();
  };
  const testChannelNow = async (id: number) => {
    const res = await t.call({ method: 'GET', url: `/api/channel/test/${id}`, headers: { cookie: root } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { success: boolean; message: string; data: { ok: boolean; statusChange?: string } };
  };
  /** A chat call through the official Anthropic SDK, which must fail: its status and error body. */
  const askAnthropic = async (model: string) => {
    const client = new Anthropic({ apiKey: tokenKey, baseURL: gateway, maxRetries: 0 });
    try {
      await client.messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    } catch (err) {
      if (err instanceof Anthropic.APIError)
        return {
          status: err.status,
          body: err.error as { type: string; error: { type: string; message: string } },
        };
      throw err;
    }
    throw new Error('the call succeeded but was expected to fail');
  };

  describe('compressed replies the gateway did not ask for', () => {
    it('decodes gzip, deflate and br JSON replies and bills the usage they carry', async () => {
      const before = await books();
      for (const coding of ['gzip', 'deflate', 'br', 'deflate-raw']) {
        const model = nextModel();
        const up = await fake((_req, res) => {
          const json = Buffer.from(completion(`decoded from ${coding}`));
          const bytes = coding === 'deflate-raw' ? zlib.deflateRawSync(json) : compress[coding]!(json);
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-encoding': coding === 'deflate-raw' ? 'deflate' : coding,
          });
          res.end(bytes);
        });
        await channel(model, up.url);
        const reply = await ask(model);
        expect(reply.choices[0]?.message.content).toBe(`decoded from ${coding}`);
        expect(reply.usage?.total_tokens).toBe(7);
      }
      const after = await books();
      expect(before.quota - after.quota).toBe(4 * CHARGE);
      const added = after.logs.slice(before.logs.length);
      expect(added.map((l) => [l.quota, JSON.parse(l.metadata).estimated])).toEqual(
        Array.from({ length: 4 }, () => [CHARGE, false]),
      );
    });

    it('decodes a gzip stream as it arrives', async () => {
      const model = nextModel();
      const up = await fake((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
        const gz = zlib.createGzip();
        gz.pipe(res);
        const parts = events('streamed through gzip in pieces');
        const next = () => {
          const e = parts.shift();
          if (e === undefined) {
            gz.end();
            return;
          }
          // Each event leaves compressed on its own, split at a byte that is not an event's end.
          gz.write(e);
          gz.flush(() => setImmediate(next));
        };
        next();
      });
      await channel(model, up.url);
      const before = await books();
      expect(await askStream(model)).toBe('streamed through gzip in pieces');
      const after = await books();
      expect(before.quota - after.quota).toBe(CHARGE);
      expect(JSON.parse(after.logs.at(-1)!.metadata).estimated).toBe(false);
    });

    it('refuses a JSON reply that decodes past the limit (a decompression bomb) with a 502, billing nothing', async () => {
      const model = nextModel();
      // 80 MiB of zeros: about 80 KiB on the wire, past the 64 MiB a reply read whole may decode to.
      const bomb = zlib.gzipSync(Buffer.alloc(80 * 1024 * 1024));
      const up = await fake((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(bomb);
      });
      await channel(model, up.url);
      const before = await books();
      const err = await failureOf(ask(model));
      expect(err.status).toBe(502);
      expect(err.code).toBe('upstream_bad_encoding');
      expect(err.message).toContain('decodes to more than 67108864 bytes');
      expect(await books()).toEqual(before);
    });

    it('answers an encoding it cannot decode with a 502 in the dialect, tries another channel, and bills nothing', async () => {
      const model = nextModel();
      const zstd = await fake((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
        res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0]));
      });
      const corrupt = await fake((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(Buffer.concat([zlib.gzipSync(completion('cut')).subarray(0, 20), Buffer.from('not gzip')]));
      });
      const zstdChannel = await channel(model, zstd.url, { priority: 10 });
      const corruptChannel = await channel(model, corrupt.url, { priority: 5 });
      const before = await books();
      const err = await failureOf(ask(model));
      expect(err.status).toBe(502);
      expect(err.code).toBe('upstream_bad_encoding');
      expect(err.message).toContain('zstd');
      const anthropic = await askAnthropic(model);
      expect(anthropic.status).toBe(502);
      expect(anthropic.body).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      expect(await books()).toEqual(before);

      // With retries: the zstd channel, then the corrupt one, then a good one; billed once.
      const good = await fake(answers('from the good channel'));
      const goodChannel = await channel(model, good.url, { priority: 0 });
      await t.s.options.update({ RetryTimes: '3', RetryCooldownSeconds: '60' });
      expect((await ask(model)).choices[0]?.message.content).toBe('from the good channel');
      const after = await books();
      expect(before.quota - after.quota).toBe(CHARGE);
      expect(after.logs.slice(before.logs.length).map((l) => l.channel_id)).toEqual([goodChannel]);
      // Counted against the channels that failed: frozen for the cooldown, not disabled.
      expect(await t.s.relay.health.isFrozen(zstdChannel, model, Date.now())).toBe(true);
      expect(await t.s.relay.health.isFrozen(corruptChannel, model, Date.now())).toBe(true);
      expect(await t.s.relay.health.isFrozen(goodChannel, model, Date.now())).toBe(false);
      expect(await channelStatus(zstdChannel)).toBe(1);
    });
  });

  describe('statuses the endpoint does not answer with', () => {
    it('never follows a redirect: a 307 is a 502 for plain and streamed calls, and nothing is billed', async () => {
      const model = nextModel();
      const elsewhere = await fake(answers('should never be asked'));
      const redirecting = await fake((_req, res) => {
        res.writeHead(307, {
          location: `${elsewhere.url}/v1/chat/completions`,
          'content-type': 'text/plain',
        });
        res.end('moved');
      });
      const id = await channel(model, redirecting.url, { test_model: model });
      const before = await books();
      const plain = await failureOf(ask(model));
      expect(plain.status).toBe(502);
      expect(plain.code).toBe('upstream_bad_status');
      expect(plain.message).toContain('307');
      // Where it pointed stays in the gateway's log: the client is not told the channel's hosts.
      expect(plain.message).not.toContain(elsewhere.url);
      const streamed = await failureOf(askStream(model));
      expect(streamed.status).toBe(502);
      expect(streamed.code).toBe('upstream_bad_status');
      const test = await testChannelNow(id);
      expect(test.data.ok).toBe(false);
      expect(test.message).toContain('answered 307 (a redirect to');
      expect(redirecting.bodies).toHaveLength(3);
      expect(elsewhere.bodies).toHaveLength(0);
      expect(await books()).toEqual(before);
      expect(await channelStatus(id)).toBe(1);
    });

    it('takes a 204 as a failure of the channel and retries it on another', async () => {
      const model = nextModel();
      const empty = await fake((_req, res) => {
        res.writeHead(204);
        res.end();
      });
      const emptyChannel = await channel(model, empty.url, { priority: 10 });
      const before = await books();
      const err = await failureOf(ask(model));
      expect(err.status).toBe(502);
      expect(err.code).toBe('upstream_bad_status');
      const anthropic = await askAnthropic(model);
      expect(anthropic.status).toBe(502);
      expect(anthropic.body.type).toBe('error');
      expect(await books()).toEqual(before);

      const good = await fake(answers('answered after a 204'));
      const goodChannel = await channel(model, good.url, { priority: 0 });
      await t.s.options.update({ RetryTimes: '1', RetryCooldownSeconds: '60' });
      expect(await askStream(model)).toBe('answered after a 204');
      const after = await books();
      expect(before.quota - after.quota).toBe(CHARGE);
      expect(after.logs.at(-1)?.channel_id).toBe(goodChannel);
      expect(await t.s.relay.health.isFrozen(emptyChannel, model, Date.now())).toBe(true);
    });
  });

  it('strips a UTF-8 byte-order mark from a JSON reply and bills its usage', async () => {
    const model = nextModel();
    const up = await fake((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(completion('no mark'))]));
    });
    await channel(model, up.url);
    const before = await books();
    const res = await fetch(`${gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(bytes[0]).toBe(0x7b);
    expect(
      (JSON.parse(bytes.toString('utf8')) as { choices: { message: { content: string } }[] }).choices[0]
        ?.message.content,
    ).toBe('no mark');
    const after = await books();
    expect(before.quota - after.quota).toBe(CHARGE);
    expect(JSON.parse(after.logs.at(-1)!.metadata).estimated).toBe(false);
  });

  describe('certificates the gateway cannot verify', () => {
    it('names the failed check, says how to trust a private CA, keeps the channel, and trusts the CA the channel gives', async () => {
      const model = nextModel();
      const up = await fake(answers('over a private CA'), { cert, key });
      const id = await channel(model, up.url, { test_model: model });
      const before = await books();
      const err = await failureOf(ask(model));
      expect(err.status).toBe(502);
      expect(err.code).toBe('upstream_tls_untrusted');
      expect(err.message).toContain('self-signed certificate');
      expect(err.message).toContain('NODE_EXTRA_CA_CERTS');
      expect(err.message).toContain('upstream.ca');
      const test = await testChannelNow(id);
      expect(test.data.ok).toBe(false);
      expect(test.message).toContain('certificate could not be verified');
      expect(test.message).toContain('NODE_EXTRA_CA_CERTS');
      expect(test.data.statusChange).toBeUndefined();
      expect(await channelStatus(id)).toBe(1);
      expect(await books()).toEqual(before);

      await setPlugin(id, { upstream: { ca: cert } });
      expect((await ask(model)).choices[0]?.message.content).toBe('over a private CA');
      expect((await testChannelNow(id)).data.ok).toBe(true);
    });

    it('says when the certificate names another host, or has expired', async () => {
      const model = nextModel();
      // Listening on every loopback address: 127.0.0.2 is not a name the certificate holds.
      const up = await fake(answers('unused'), { cert, key }, '0.0.0.0');
      const id = await channel(model, `https://127.0.0.2:${up.port}`, { test_model: model });
      await setPlugin(id, { upstream: { ca: cert } });
      const wrongHost = await failureOf(ask(model));
      expect(wrongHost.status).toBe(502);
      expect(wrongHost.code).toBe('upstream_tls_hostname');
      expect(wrongHost.message).toContain('does not match its host name');
      expect(wrongHost.message).not.toContain('127.0.0.2');
      // The administrator's channel test gives the names the certificate holds.
      const hostTest = await testChannelNow(id);
      expect(hostTest.message).toContain('does not match its host name');
      expect(hostTest.message).toContain('127.0.0.2');

      const oldModel = nextModel();
      const old = await fake(answers('unused'), { cert: expiredCert, key: expiredKey });
      const oldId = await channel(oldModel, old.url, { test_model: oldModel });
      await setPlugin(oldId, { upstream: { ca: expiredCert } });
      const expired = await failureOf(ask(oldModel));
      expect(expired.code).toBe('upstream_tls_expired');
      expect(expired.message).toContain('has expired');
      expect((await testChannelNow(oldId)).message).toContain('has expired');
      expect(up.bodies).toHaveLength(0);
      expect(old.bodies).toHaveLength(0);
    });
  });

  describe('upstreams that hang or break', () => {
    it('drops a hanging call when its client leaves: the upstream socket closes and the reserve comes back', async () => {
      const model = nextModel();
      const hanging = await fake(() => {});
      const hangingChannel = await channel(model, hanging.url);
      await t.s.options.update({ RetryCooldownSeconds: '60' });
      // Room for one call's reserve (max_tokens 100 at output ratio 4), not two.
      const limited = await createToken(t, userCookie, { unlimited_quota: false, remain_quota: 600 });
      const released = new Promise<void>((resolve) => {
        const ledger = t.s.relay.ledger;
        const release = ledger.release.bind(ledger);
        vi.spyOn(ledger, 'release').mockImplementation((r) => {
          const done = release(r);
          void done.then(() => resolve());
          return done;
        });
      });
      const body = JSON.stringify({ model, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
      const req = http.request(`${gateway}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${limited.key}`, 'content-type': 'application/json' },
      });
      req.on('error', () => {});
      req.end(body);
      // The upstream has the call: the reserve is held, so a second call of the token is refused.
      while (hanging.sockets.length === 0) await new Promise((r) => setTimeout(r, 5));
      const second = await failureOf(
        sdk(limited.key).chat.completions.create({
          model,
          max_tokens: 100,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(second.status).toBe(403);
      const upstreamClosed = new Promise<void>((r) => hanging.sockets[0]!.once('close', () => r()));
      req.destroy();
      await upstreamClosed;
      await released;
      // The held quota is back: the token serves a call again.
      const good = await fake(answers('after the hang'));
      const goodModel = nextModel();
      await channel(goodModel, good.url);
      const reply = await sdk(limited.key).chat.completions.create({
        model: goodModel,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(reply.choices[0]?.message.content).toBe('after the hang');
      // The client's leaving is not the channel's failure.
      expect(await t.s.relay.health.isFrozen(hangingChannel, model, Date.now())).toBe(false);
      expect(await channelStatus(hangingChannel)).toBe(1);
    });

    it("times out the first byte and an idle body after the channel's own limits, billing nothing", async () => {
      const model = nextModel();
      const silent = await fake(() => {});
      const id = await channel(model, silent.url);
      await setPlugin(id, { upstream: { first_byte_timeout: 0.2 } });
      const before = await books();
      const head = await failureOf(ask(model));
      expect(head.status).toBe(502);
      expect(head.code).toBe('upstream_timeout');
      expect(head.message).toContain('did not start its answer in time');

      const idleModel = nextModel();
      const stalling = await fake((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
        res.write(completion('cut').slice(0, 40));
      });
      const idleId = await channel(idleModel, stalling.url);
      await setPlugin(idleId, { upstream: { idle_timeout: 0.2 } });
      const idle = await failureOf(ask(idleModel));
      expect(idle.status).toBe(502);
      expect(idle.code).toBe('upstream_timeout');
      expect(idle.message).toContain('stopped sending');
      expect(await books()).toEqual(before);
    });

    it("ends a stream whose upstream falls silent after the channel's idle limit, with an error event in the dialect", async () => {
      const model = nextModel();
      const stalling = await fake((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const [first, second] = events('only this');
        res.write(`${first}${second}`);
      });
      const id = await channel(model, stalling.url);
      await setPlugin(id, { upstream: { idle_timeout: 0.2 } });
      const stream = await sdk().chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      });
      let text = '';
      const reading = (async () => {
        for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
      })();
      await expect(reading).rejects.toMatchObject({ message: expect.stringContaining('ended unexpectedly') });
      expect(text).toBe('only');
      // What reached the client is billed as a stream that broke off (the gateway's count).
      const { logs } = await books();
      expect(JSON.parse(logs.at(-1)!.metadata)).toMatchObject({
        upstream_failed_midway: true,
        estimated: true,
      });
      // The gateway dropped the silent connection.
      const upstreamSocket = stalling.sockets[0]!;
      if (!upstreamSocket.destroyed) await new Promise((r) => upstreamSocket.once('close', r));
    });

    it('retries a reply reset in the middle of its body on another channel, and answers 502 in the dialect when none is left', async () => {
      const model = nextModel();
      const resetting = await fake((req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
        res.write(completion('cut short').slice(0, 60));
        setImmediate(() => req.socket.resetAndDestroy());
      });
      const resetChannel = await channel(model, resetting.url, { priority: 10 });
      const before = await books();
      const err = await failureOf(ask(model));
      expect(err.status).toBe(502);
      expect(err.code).toBe('upstream_reply_broken');
      const anthropic = await askAnthropic(model);
      expect(anthropic.status).toBe(502);
      expect(anthropic.body).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      expect(await books()).toEqual(before);

      const good = await fake(answers('from the second channel'));
      const goodChannel = await channel(model, good.url, { priority: 0 });
      await t.s.options.update({ RetryTimes: '1', RetryCooldownSeconds: '60' });
      expect((await ask(model)).choices[0]?.message.content).toBe('from the second channel');
      const after = await books();
      expect(before.quota - after.quota).toBe(CHARGE);
      expect(after.logs.slice(before.logs.length).map((l) => l.channel_id)).toEqual([goodChannel]);
      expect(await t.s.relay.health.isFrozen(resetChannel, model, Date.now())).toBe(true);
    });
  });
});
