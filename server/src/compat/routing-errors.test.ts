import type { AddressInfo } from 'node:net';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { APICallError, generateText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, fakeErrors, startFakeUpstream } from '../test/fake-upstream.js';
import { createChannel, createToken } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

// Issue 31 items 2-4 as the clients people use see them: a model that cannot be called is a 404 the
// SDKs do not retry, a single-channel model survives its channel's cooldown, an upstream 429 keeps
// its advice headers, and /v1/models offers only what the key can call.

const UPSTREAM_KEY = 'sk-compat-upstream';

describe('compat: no channel, cooldowns, 429s and the model list', () => {
  let t: TestApp;
  let up: FakeUpstream;
  let base: string;
  let key: string;

  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
    const root = await t.signIn('root', ROOT_PASSWORD);
    const res = await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: root },
      payload: { model: 'solo-chat', type: 'tokens', channel_type: 1, input: 1, output: 1 },
    });
    expect(res.statusCode, res.body).toBe(200);
    await createChannel(t, root, {
      name: 'only one',
      key: UPSTREAM_KEY,
      base_url: up.url,
      models: ['solo-chat', 'served-unpriced'],
    });
    await t.s.options.update({ RetryCooldownSeconds: '600' });
    key = (await createToken(t, root)).key;
  });

  afterAll(async () => {
    await t?.close();
    await up?.close();
  });

  beforeEach(() => up.reset());

  const openai = (maxRetries = 2) => new OpenAI({ apiKey: key, baseURL: base, maxRetries });

  it('answers a model no channel serves with 404 model_not_found, which no SDK retries', async () => {
    // Default retries on: a 5xx would be retried, a 404 is thrown at once.
    await expect(
      openai().chat.completions.create({ model: 'ghost-model', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 404, code: 'model_not_found', type: 'invalid_request_error' });

    const provider = createOpenAI({ apiKey: key, baseURL: base });
    const err = await generateText({ model: provider.chat('ghost-model'), prompt: 'hi' }).catch((e) => e);
    // A retried error would arrive as a RetryError wrapping several attempts.
    expect(APICallError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ statusCode: 404, isRetryable: false });

    const chat = new ChatOpenAI({ model: 'ghost-model', apiKey: key, configuration: { baseURL: base } });
    await expect(chat.invoke('hi')).rejects.toMatchObject({ status: 404 });
    expect(up.requests).toHaveLength(0);
  });

  it('answers a served but unpriced model with 404 model_not_priced', async () => {
    await expect(
      openai().chat.completions.create({
        model: 'served-unpriced',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toMatchObject({ status: 404, code: 'model_not_priced' });
    expect(up.requests).toHaveLength(0);
  });

  it('passes an upstream 429 with its headers, then still serves the model through the cooling channel', async () => {
    up.setScenario(
      {
        ...fakeErrors.rateLimited(),
        headers: {
          'retry-after': '7',
          'x-ratelimit-limit-requests': '3',
          'x-ratelimit-remaining-requests': '0',
          'x-ratelimit-reset-requests': '7s',
        },
      },
      { times: 1 },
    );
    const err = await openai(0)
      .chat.completions.create({ model: 'solo-chat', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.headers.get('retry-after')).toBe('7');
    expect(err.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(err.headers.get('x-ratelimit-reset-requests')).toBe('7s');
    // The only channel is now cooling down for 600 s; it is tried anyway rather than refused.
    expect(
      await t.s.relay.health.isFrozen((await channelIdOf(t, 'only one'))!, 'solo-chat', Date.now()),
    ).toBe(true);
    const ok = await openai(0).chat.completions.create({
      model: 'solo-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(ok.choices[0]?.message.content).toBe('Hello from the fake upstream.');
    expect(up.requests).toHaveLength(2);

    const provider = createOpenAI({ apiKey: key, baseURL: base });
    const text = await generateText({ model: provider.chat('solo-chat'), prompt: 'hi', maxRetries: 0 });
    expect(text.text).toBe('Hello from the fake upstream.');
  });

  it('lists only the models this key can call, with every client', async () => {
    const ids = (await openai().models.list()).data.map((m) => m.id);
    expect(ids).toEqual(['solo-chat']);
    await expect(openai().models.retrieve('served-unpriced')).rejects.toMatchObject({ status: 404 });
    const root = await t.signIn('root', ROOT_PASSWORD);
    const limited = await createToken(t, root, { models: ['other-model'] });
    const list = await new OpenAI({ apiKey: limited.key, baseURL: base }).models.list();
    expect(list.data).toEqual([]);
  });
});

async function channelIdOf(t: TestApp, name: string): Promise<number | undefined> {
  const row = await t.s.database.db
    .selectFrom('channels')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirst();
  return row?.id;
}
