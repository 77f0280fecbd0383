import type { AddressInfo } from 'node:net';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, fakeErrors, startFakeUpstream } from '../test/fake-upstream.js';
import { createChannel, createToken, settled } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';

// The relay end to end: the official OpenAI client -> the gateway -> a fake upstream speaking
// OpenAI's wire format, with exact quota arithmetic checked against the database.

const UPSTREAM_KEY = 'sk-upstream-test-key';

describe('OpenAI relay', () => {
  let t: TestApp;
  let up: FakeUpstream;
  let backup: FakeUpstream;
  let root: string;
  let gateway: string;
  let userId: number;
  let userCookie: string;

  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
    backup = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
    root = await t.signIn('root', ROOT_PASSWORD);
    // Prices with round numbers so every expected charge can be computed by hand.
    for (const [model, input, output] of [
      ['test-chat', 2, 4],
      ['test-embed', 0.5, 0],
    ] as const) {
      const res = await t.call({
        method: 'POST',
        url: '/api/prices/single',
        headers: { cookie: root },
        payload: { model, type: 'tokens', channel_type: 1, input, output },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: root },
      payload: { model: 'test-image', type: 'times', channel_type: 1, input: 10, output: 0 },
    });
    await createChannel(t, root, {
      name: 'primary',
      key: UPSTREAM_KEY,
      base_url: up.url,
      models: [
        'test-chat',
        'test-embed',
        'test-image',
        'tts-1',
        'whisper-1',
        'gpt-4o-mini',
        'no-price-model',
      ],
      priority: 10,
    });
    await createChannel(t, root, {
      name: 'backup',
      key: UPSTREAM_KEY,
      base_url: backup.url,
      models: ['test-chat'],
      priority: 0,
    });
    userId = await registerUser(t, 'relayuser');
    await t.s.repos.users.update(userId, { quota: 1_000_000 });
    userCookie = await t.signIn('relayuser', 'password-123');
  });

  afterAll(async () => {
    await t?.close();
    await up?.close();
    await backup?.close();
  });

  beforeEach(async () => {
    up.reset();
    backup.reset();
    await t.s.options.update({
      RetryTimes: '0',
      AutomaticDisableChannelEnabled: 'false',
      RetryCooldownSeconds: '0',
    });
  });

  const client = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway, maxRetries: 0 });
  const quotaOf = async () => (await t.s.repos.users.byId(userId))!.quota;
  const lastLog = async () =>
    t.s.database.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .executeTakeFirst();

  it('relays a chat completion and bills exactly the upstream usage', async () => {
    const { key } = await createToken(t, userCookie);
    up.setScenario({ kind: 'ok', content: 'four words right here', promptTokens: 10, completionTokens: 6 });
    const before = await quotaOf();
    const res = await client(key).chat.completions.create({
      model: 'test-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.choices[0]?.message.content).toBe('four words right here');
    await settled(t);
    // 10 x 2 + 6 x 4 = 44 quota at group ratio 1.
    expect(before - (await quotaOf())).toBe(44);
    const log = await lastLog();
    expect(log).toMatchObject({
      quota: 44,
      prompt_tokens: 10,
      completion_tokens: 6,
      model_name: 'test-chat',
      type: 2,
    });
    expect(JSON.parse(log!.metadata)).toMatchObject({
      group_ratio: 1,
      input_ratio: 2,
      output_ratio: 4,
      estimated: false,
    });
    // The upstream saw the channel's key, never the client's.
    expect(up.requests[0]?.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
  });

  it('bills cached prompt tokens at their own ratio', async () => {
    const { key } = await createToken(t, userCookie);
    up.setScenario({
      kind: 'ok',
      content: 'cached',
      promptTokens: 100,
      cachedTokens: 40,
      completionTokens: 10,
    });
    const before = await quotaOf();
    await client(key).chat.completions.create({
      model: 'test-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await settled(t);
    // 100 x 2 + 40 x 2 x (0.1 - 1) + 10 x 4 = 200 - 72 + 40 = 168 (cache reads default to 0.1).
    expect(before - (await quotaOf())).toBe(168);
    expect(JSON.parse((await lastLog())!.metadata)).toMatchObject({
      cached_read_tokens: 40,
      cached_read_tokens_ratio: 0.1,
    });
  });

  it('streams chat, asks the upstream for usage, and hides the usage chunk unless asked', async () => {
    const { key } = await createToken(t, userCookie);
    up.setScenario({ kind: 'ok', content: 'a b c d e', promptTokens: 7, completionTokens: 5 });
    const before = await quotaOf();
    const stream = await client(key).chat.completions.create({
      model: 'test-chat',
      messages: [{ role: 'user', content: 'count' }],
      stream: true,
    });
    let text = '';
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe('a b c d e');
    expect(sawUsage).toBe(false);
    expect((up.requests[0]?.json?.stream_options as { include_usage?: boolean })?.include_usage).toBe(true);
    await settled(t);
    expect(before - (await quotaOf())).toBe(7 * 2 + 5 * 4);

    up.setScenario({ kind: 'ok', content: 'x y', promptTokens: 3, completionTokens: 2 });
    const withUsage = await client(key).chat.completions.create({
      model: 'test-chat',
      messages: [{ role: 'user', content: 'count' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of withUsage) if (chunk.usage) usage = chunk.usage;
    expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 2 });
  });

  it('passes tool calls through', async () => {
    const { key } = await createToken(t, userCookie);
    up.setScenario({ kind: 'ok', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] });
    const res = await client(key).chat.completions.create({
      model: 'test-chat',
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
        },
      ],
    });
    expect(res.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    });
  });

  it('relays embeddings, images and speech', async () => {
    const { key } = await createToken(t, userCookie);
    const emb = await client(key).embeddings.create({ model: 'test-embed', input: 'hello world' });
    expect(emb.data[0]?.embedding.length).toBeGreaterThan(0);
    await settled(t);
    const before = await quotaOf();
    const img = await client(key).images.generate({ model: 'test-image', prompt: 'a cat' });
    expect(img.data?.[0]?.url ?? img.data?.[0]?.b64_json).toBeTruthy();
    await settled(t);
    // Times pricing: 1000 x 10 per call.
    expect(before - (await quotaOf())).toBe(10_000);
    await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: root },
      payload: { model: 'tts-1', type: 'tokens', channel_type: 1, input: 1, output: 0 },
    });
    const speech = await client(key).audio.speech.create({
      model: 'tts-1',
      voice: 'alloy',
      input: 'Hello there',
    });
    const audio = Buffer.from(await speech.arrayBuffer());
    expect(audio.length).toBeGreaterThan(0);
    expect(speech.headers.get('content-type')).toContain('audio');
    await settled(t);
    // Speech bills one token per input character.
    expect((await lastLog())?.prompt_tokens).toBe('Hello there'.length);
  });

  it('fails over to the lower tier, and releases the reserve when every channel fails', async () => {
    const { key } = await createToken(t, userCookie);
    await t.s.options.update({ RetryTimes: '2' });
    up.setScenario(fakeErrors.serverError());
    backup.setScenario({ kind: 'ok', content: 'from backup', promptTokens: 1, completionTokens: 1 });
    const res = await client(key).chat.completions.create({
      model: 'test-chat',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(res.choices[0]?.message.content).toBe('from backup');
    expect(up.requests).toHaveLength(1);
    await settled(t);
    const log = await lastLog();
    const channels = await t.s.database.db.selectFrom('channels').select(['id', 'name']).execute();
    expect(log?.channel_id).toBe(channels.find((c) => c.name === 'backup')?.id);

    backup.setScenario(fakeErrors.serverError());
    const before = await quotaOf();
    const logsBefore = await t.s.database.db.selectFrom('logs').select('id').execute();
    await expect(
      client(key).chat.completions.create({ model: 'test-chat', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 502 });
    await settled(t);
    expect(await quotaOf()).toBe(before);
    expect(await t.s.database.db.selectFrom('logs').select('id').execute()).toHaveLength(logsBefore.length);
  });

  it('auto-disables a channel whose key is refused, but never for a 429', async () => {
    const { key } = await createToken(t, userCookie);
    const [id] = await createChannel(t, root, {
      name: 'flaky',
      key: UPSTREAM_KEY,
      base_url: up.url,
      models: ['gpt-4o-mini'],
      priority: 100,
    });
    await t.s.options.update({ AutomaticDisableChannelEnabled: 'true' });
    up.setScenario(fakeErrors.rateLimited(), { model: 'gpt-4o-mini', times: 1 });
    await expect(
      client(key).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({ status: 429 });
    expect(
      (await t.s.database.db.selectFrom('channels').select('status').where('id', '=', id!).executeTakeFirst())
        ?.status,
    ).toBe(1);

    up.setScenario(fakeErrors.invalidApiKey(), { model: 'gpt-4o-mini', times: 1 });
    await expect(
      client(key).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({ status: 502 });
    for (let i = 0; i < 50; i++) {
      const row = await t.s.database.db
        .selectFrom('channels')
        .select('status')
        .where('id', '=', id!)
        .executeTakeFirst();
      if (row?.status === 3) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(
      (await t.s.database.db.selectFrom('channels').select('status').where('id', '=', id!).executeTakeFirst())
        ?.status,
    ).toBe(3);
  });

  it('answers each token state with its own error, and refuses unpriced models', async () => {
    const disabled = await createToken(t, userCookie, { name: 'off' });
    await t.s.repos.tokens.setStatus(disabled.id, 2);
    const expired = await createToken(t, userCookie, { name: 'old' });
    await t.s.database.db
      .updateTable('tokens')
      .set({ expired_time: 1 })
      .where('id', '=', expired.id)
      .execute();
    const empty = await createToken(t, userCookie, {
      name: 'empty',
      unlimited_quota: false,
      remain_quota: 0,
    });
    await t.s.bus.publish('tokens');
    const call = (key: string, model = 'test-chat') =>
      client(key).chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] });
    await expect(call('sk-not-a-real-key-000000000000000000000000000000000000')).rejects.toMatchObject({
      status: 401,
      code: 'invalid_api_key',
    });
    await expect(call(disabled.key)).rejects.toMatchObject({ status: 403, code: 'token_disabled' });
    await expect(call(expired.key)).rejects.toMatchObject({ status: 403, code: 'token_expired' });
    await expect(call(empty.key)).rejects.toMatchObject({ status: 403, code: 'token_exhausted' });
    const { key } = await createToken(t, userCookie);
    await expect(call(key, 'no-price-model')).rejects.toMatchObject({
      status: 404,
      code: 'model_not_priced',
    });
    // Neither priced nor served: OpenAI's answer for a model it does not have.
    await expect(call(key, 'no-such-model-at-all')).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
  });

  it('lists the models of the key and 404s an unknown one', async () => {
    const { key } = await createToken(t, userCookie);
    const list = await client(key).models.list();
    const ids = list.data.map((m) => m.id);
    expect(ids).toContain('test-chat');
    // Served by a channel but unpriced: it would answer 404, so it is not offered.
    expect(ids).not.toContain('no-price-model');
    await expect(client(key).models.retrieve('no-price-model')).rejects.toMatchObject({ status: 404 });
    const one = await client(key).models.retrieve('test-chat');
    expect(one.id).toBe('test-chat');
    await expect(client(key).models.retrieve('nope')).rejects.toMatchObject({ status: 404 });
  });

  it('never overdraws under 200 concurrent requests', async () => {
    const poorId = await registerUser(t, 'pooruser');
    // Each call reserves 10 x 2 + 16 x 4 = 84 (max_tokens bounds the reply) and costs 44.
    await t.s.repos.users.update(poorId, { quota: 84 * 50 });
    // No group rate limit here: all 200 calls must reach the ledger.
    await t.s.database.db
      .updateTable('user_groups')
      .set({ api_rate: 0 })
      .where('symbol', '=', 'default')
      .execute();
    await t.s.relay.tables.reloadGroups();
    const cookie = await t.signIn('pooruser', 'password-123');
    const { key } = await createToken(t, cookie);
    up.setScenario({ kind: 'ok', content: 'w', promptTokens: 10, completionTokens: 6 });
    const c = client(key);
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, () =>
        c.chat.completions.create({
          model: 'test-chat',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      ),
    );
    await settled(t);
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const user = (await t.s.repos.users.byId(poorId))!;
    const logs = await t.s.database.db
      .selectFrom('logs')
      .select('quota')
      .where('user_id', '=', poorId)
      .execute();
    expect(user.quota).toBeGreaterThanOrEqual(0);
    expect(ok).toBeGreaterThanOrEqual(50);
    expect(logs).toHaveLength(ok);
    expect(logs.reduce((a, l) => a + l.quota, 0)).toBe(84 * 50 - user.quota);
    expect(user.used_quota).toBe(84 * 50 - user.quota);
    // Every refusal is the balance running out, not something else.
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as { status?: number }).status).toBe(403);
    await t.s.database.db
      .updateTable('user_groups')
      .set({ api_rate: 600 })
      .where('symbol', '=', 'default')
      .execute();
    await t.s.relay.tables.reloadGroups();
  });

  it('bills what the upstream produced when the client hangs up mid-stream', async () => {
    const { key } = await createToken(t, userCookie);
    up.setScenario({
      kind: 'ok',
      content: 'one two three four five six',
      chunkDelayMs: 30,
      usage: 'always',
      promptTokens: 4,
      completionTokens: 6,
    });
    const before = await quotaOf();
    const controller = new AbortController();
    const stream = await client(key).chat.completions.create(
      { model: 'test-chat', messages: [{ role: 'user', content: 'x' }], stream: true },
      { signal: controller.signal },
    );
    // Hang up after the first chunk (the client library may end the loop quietly or throw).
    await (async () => {
      for await (const _ of stream) controller.abort();
    })().catch(() => {});
    // The gateway keeps reading the upstream to its end and bills its usage, not zero or the reserve.
    for (let i = 0; i < 100 && t.s.relay.pending.size === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await settled(t);
    expect(before - (await quotaOf())).toBe(4 * 2 + 6 * 4);
    expect(JSON.parse((await lastLog())!.metadata).client_aborted).toBe(true);
  });

  it('ends the client stream with an error event when the upstream breaks mid-stream', async () => {
    const { key } = await createToken(t, userCookie);
    await t.s.options.update({ RetryTimes: '3' });
    up.setScenario({ kind: 'ok', content: 'a b c d e f g h', breakAfterEvents: 3 });
    const res = await fetch(`${gateway}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test-chat', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    const text = await res.text();
    expect(text).toContain('upstream_stream_broken');
    // Bytes had reached the client, so no other channel was tried.
    expect(backup.requests).toHaveLength(0);
    await settled(t);
    expect(JSON.parse((await lastLog())!.metadata)).toMatchObject({
      upstream_failed_midway: true,
      estimated: true,
    });
  });

  it('transcribes through a multipart upload', async () => {
    const { key } = await createToken(t, userCookie);
    await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: root },
      payload: { model: 'whisper-1', type: 'tokens', channel_type: 1, input: 1, output: 1 },
    });
    up.setScenario({ kind: 'ok', content: 'hello from audio' });
    const res = await client(key).audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(Buffer.alloc(4096, 1), 'a.mp3', { type: 'audio/mpeg' }),
    });
    expect(res.text).toBe('hello from audio');
    expect(up.requests.at(-1)?.files?.file?.size).toBe(4096);
  });
});
