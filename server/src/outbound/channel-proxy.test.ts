import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeBalance, startFakeBalance } from '../test/fake-balance.js';
import { type FakeUpstream, startFakeUpstream } from '../test/fake-upstream.js';
import { startHttpProxy, startSocks5Proxy, type TestProxy } from '../test/proxy-servers.js';
import { createChannel, createToken, settled } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

// A channel's `proxy` carries every call of that channel: relayed calls (JSON, streams, multipart
// uploads), the channel test, the model list and the balance, through real proxy servers; and the
// outbound policy judges the addresses the gateway connects to.

const KEY = 'sk-proxied-upstream';
const cert = readFileSync(new URL('../relay/testdata/localhost-cert.pem', import.meta.url), 'utf8');
const tlsKey = readFileSync(new URL('../relay/testdata/localhost-key.pem', import.meta.url), 'utf8');

describe('channel proxies and the outbound policy', () => {
  let t: TestApp;
  let root: string;
  let gateway: string;
  let tokenKey: string;
  let up: FakeUpstream;
  let balance: FakeBalance;
  let httpProxy: TestProxy;
  let socks: TestProxy;
  let seq = 0;

  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: KEY });
    balance = await startFakeBalance({ apiKey: KEY });
    httpProxy = await startHttpProxy();
    socks = await startSocks5Proxy();
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    root = await t.signIn('root', ROOT_PASSWORD);
    const price = await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: root },
      payload: { model: 'proxied-*', type: 'tokens', channel_type: 1, input: 1, output: 1 },
    });
    expect(price.statusCode, price.body).toBe(200);
    tokenKey = (await createToken(t, root)).key;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([up?.close(), balance?.close(), httpProxy?.close(), socks?.close()]);
  });
  beforeEach(() => {
    up.reset();
    httpProxy.seen.length = 0;
    socks.seen.length = 0;
  });

  const sdk = () => new OpenAI({ apiKey: tokenKey, baseURL: `${gateway}/v1`, maxRetries: 0 });
  const channel = async (fields: Record<string, unknown>) => {
    const model = `proxied-${++seq}`;
    const [id] = await createChannel(t, root, {
      name: model,
      key: KEY,
      base_url: up.url,
      models: [model],
      test_model: model,
      ...fields,
    });
    await t.s.relay.tables.reload();
    return { id: id as number, model };
  };
  const testChannel = async (id: number) => {
    const res = await t.call({ method: 'GET', url: `/api/channel/test/${id}`, headers: { cookie: root } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { success: boolean; message: string; data: { ok: boolean } };
  };

  for (const kind of ['http', 'socks5'] as const) {
    it(`sends a channel's JSON, streamed and multipart calls and its test through its ${kind} proxy`, async () => {
      const proxy = kind === 'http' ? httpProxy : socks;
      const { id, model } = await channel({ proxy: proxy.url });
      const port = new URL(up.url).port;

      up.setScenario({ kind: 'ok', content: 'through the proxy' });
      const reply = await sdk().chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(reply.choices[0]?.message.content).toBe('through the proxy');

      const stream = await sdk().chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      });
      let text = '';
      for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
      expect(text).toBe('through the proxy');

      const transcript = await sdk().audio.transcriptions.create({
        model,
        file: await toFile(Buffer.alloc(4096, 1), 'a.mp3', { type: 'audio/mpeg' }),
      });
      expect(transcript.text).toBe('through the proxy');
      expect(up.requests.at(-1)?.files?.file?.size).toBe(4096);

      expect((await testChannel(id)).data.ok).toBe(true);

      // Every call reached the upstream, and every one went through the proxy.
      expect(up.requests.map((r) => r.endpoint)).toEqual([
        'chat/completions',
        'chat/completions',
        'audio/transcriptions',
        'chat/completions',
      ]);
      if (kind === 'http') {
        expect(httpProxy.seen.filter((s) => s.startsWith(`POST http://127.0.0.1:${port}/v1/`))).toHaveLength(
          4,
        );
      } else {
        // Connections are kept alive: at least one tunnel, and no call went around the proxy.
        expect(socks.seen.length).toBeGreaterThan(0);
        expect(new Set(socks.seen)).toEqual(new Set([`SOCKS 127.0.0.1:${port}`]));
      }
      await settled(t);
    });
  }

  it('fetches the model list and the balance through the channel proxy', async () => {
    const { id } = await channel({ proxy: httpProxy.url, base_url: balance.url });
    const balanceRes = await t.call({
      method: 'GET',
      url: `/api/channel/update_balance/${id}`,
      headers: { cookie: root },
    });
    expect(balanceRes.statusCode, balanceRes.body).toBe(200);
    expect(balanceRes.json().success, balanceRes.body).toBe(true);
    expect(httpProxy.seen.some((s) => s.includes('/dashboard/billing/subscription'))).toBe(true);

    // A proxy of its own: no tunnel kept alive from another test.
    const own = await startSocks5Proxy();
    try {
      const models = await t.call({
        method: 'POST',
        url: '/api/channel/provider_models_list',
        headers: { cookie: root },
        payload: { type: 1, key: KEY, base_url: up.url, proxy: own.url },
      });
      expect(models.statusCode, models.body).toBe(200);
      expect(models.json().data).toContain('gpt-4o');
      expect(own.seen).toEqual([`SOCKS 127.0.0.1:${new URL(up.url).port}`]);
      expect(up.requests.map((r) => r.endpoint)).toEqual(['models']);
    } finally {
      await own.close();
    }
  });

  it('trusts the channel CA on a multipart upload (which goes through undici)', async () => {
    const received: number[] = [];
    const secure = https.createServer({ cert, key: tlsKey }, (req, res) => {
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
      });
      req.on('end', () => {
        received.push(size);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'over TLS' }));
      });
    });
    await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
    try {
      const port = (secure.address() as AddressInfo).port;
      const { model } = await channel({
        base_url: `https://localhost:${port}`,
        plugin: { upstream: { ca: cert } },
      });
      const transcript = await sdk().audio.transcriptions.create({
        model,
        file: await toFile(Buffer.alloc(2048, 1), 'a.mp3', { type: 'audio/mpeg' }),
      });
      expect(transcript.text).toBe('over TLS');
      expect(received).toHaveLength(1);
      expect(received[0]).toBeGreaterThan(2048);
    } finally {
      await new Promise((r) => secure.close(r));
    }
  });

  it('refuses a channel whose address the policy refuses, and the channel test names the address', async () => {
    const metadata = await channel({ base_url: 'http://169.254.169.254' });
    const test = await testChannel(metadata.id);
    expect(test.data.ok).toBe(false);
    expect(test.message).toContain(
      'address 169.254.169.254 refused by the outbound policy: cloud metadata address',
    );
    await expect(
      sdk().chat.completions.create({ model: metadata.model, messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 502, code: 'upstream_address_refused' });

    // A name that resolves to loopback, with loopback not allowed: the same refusal after the lookup.
    const strict = await createTestApp({ env: { OUTBOUND_ALLOWED_NETWORKS: '' } });
    try {
      const cookie = await strict.signIn('root', ROOT_PASSWORD);
      const [id] = await createChannel(strict, cookie, {
        name: 'local',
        key: KEY,
        base_url: up.url.replace('127.0.0.1', 'localhost'),
        models: ['proxied-local'],
        test_model: 'proxied-local',
      });
      const res = await strict.call({ method: 'GET', url: `/api/channel/test/${id}`, headers: { cookie } });
      expect(res.json().message).toMatch(
        /address (127\.0\.0\.1|::1) \(localhost\) refused by the outbound policy: loopback address, not listed in OUTBOUND_ALLOWED_NETWORKS/,
      );
      expect(up.requests).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});
