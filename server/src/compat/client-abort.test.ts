import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../test/fake-upstream.js';
import { createChannel, createToken, settled } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

// Issue 31 item 9: a client that hangs up mid-stream. By default the upstream is read to its end and
// its whole output billed (most providers bill it anyway); a channel with billing.delivered_only
// closes the upstream at once and bills what reached the client. The log says which happened.

const KEY = 'sk-abort-upstream';
const WORDS = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');

describe('compat: client disconnect mid-stream', () => {
  let t: TestApp;
  let up: FakeUpstream;
  let base: string;
  let key: string;

  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: KEY });
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
    const root = await t.signIn('root', ROOT_PASSWORD);
    for (const model of ['whole-chat', 'delivered-chat']) {
      const res = await t.call({
        method: 'POST',
        url: '/api/prices/single',
        headers: { cookie: root },
        payload: { model, type: 'tokens', channel_type: 1, input: 1, output: 1 },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await createChannel(t, root, { name: 'whole', key: KEY, base_url: up.url, models: ['whole-chat'] });
    await createChannel(t, root, {
      name: 'delivered',
      key: KEY,
      base_url: up.url,
      models: ['delivered-chat'],
      plugin: { billing: { delivered_only: true } },
    });
    key = (await createToken(t, root)).key;
    up.setScenario({ kind: 'ok', content: WORDS, chunkDelayMs: 25, usage: 'always', completionTokens: 40 });
  });

  afterAll(async () => {
    await t?.close();
    await up?.close();
  });

  async function hangUpAfterFirstChunk(model: string) {
    const controller = new AbortController();
    const stream = await new OpenAI({ apiKey: key, baseURL: base, maxRetries: 0 }).chat.completions.create(
      { model, messages: [{ role: 'user', content: 'count' }], stream: true },
      { signal: controller.signal },
    );
    await (async () => {
      for await (const chunk of stream) if (chunk.choices[0]?.delta.content) controller.abort();
    })().catch(() => {});
    // The settlement follows the end of the upstream read: wait for its log row.
    for (let i = 0; i < 500; i++) {
      await settled(t);
      const row = await t.s.database.db
        .selectFrom('logs')
        .select(['completion_tokens', 'metadata'])
        .where('model_name', '=', model)
        .executeTakeFirst();
      if (row) return { completion: row.completion_tokens, metadata: JSON.parse(row.metadata) };
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no log for ${model}`);
  }

  it('bills the whole upstream output by default, and only what was delivered where the channel says so', async () => {
    const whole = await hangUpAfterFirstChunk('whole-chat');
    expect(whole.completion).toBe(40);
    expect(whole.metadata).toMatchObject({ client_aborted: true });
    expect(whole.metadata.billed_delivered_only).toBeUndefined();

    const delivered = await hangUpAfterFirstChunk('delivered-chat');
    expect(delivered.metadata).toMatchObject({
      client_aborted: true,
      billed_delivered_only: true,
      estimated: true,
    });
    expect(delivered.completion).toBeGreaterThan(0);
    expect(delivered.completion).toBeLessThan(40);
  });

  it('refuses a billing setting that is not a boolean', async () => {
    const root = await t.signIn('root', ROOT_PASSWORD);
    const res = await t.call({
      method: 'POST',
      url: '/api/channel/',
      headers: { cookie: root },
      payload: {
        type: 1,
        group: 'default',
        name: 'bad',
        key: KEY,
        base_url: up.url,
        models: ['whole-chat'],
        plugin: { billing: { delivered_only: 'yes' } },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('billing.delivered_only must be true or false');
  });
});
