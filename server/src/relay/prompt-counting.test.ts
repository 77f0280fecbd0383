import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../test/fake-upstream.js';
import { createChannel, createToken, settled } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';

// How the gateway counts a prompt itself: ApproximateTokenEnabled (0.38 tokens per byte instead of
// the model's encoder) and each channel's pre_cost (1 everything, 2 no images, 3 nothing), seen in
// the logged prompt count of a reply without usage and in the reserve a user's balance must cover.

const KEY = 'sk-upstream-counting';

describe('prompt counting settings', () => {
  let t: TestApp;
  let up: FakeUpstream;
  let root: string;
  let gateway: string;
  let userId: number;
  let cookie: string;

  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: KEY });
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
    root = await t.signIn('root', ROOT_PASSWORD);
    for (const model of ['all-chat', 'noimg-chat', 'none-chat']) {
      const res = await t.call({
        method: 'POST',
        url: '/api/prices/single',
        headers: { cookie: root },
        payload: { model, type: 'tokens', channel_type: 1, input: 2, output: 4 },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const channels = [
      ['all-chat', 1],
      ['noimg-chat', 2],
      ['none-chat', 3],
    ] as const;
    for (const [model, preCost] of channels) {
      await createChannel(t, root, {
        name: model,
        key: KEY,
        base_url: up.url,
        models: [model],
        pre_cost: preCost,
      });
    }
    userId = await registerUser(t, 'counter');
    cookie = await t.signIn('counter', 'password-123');
  });

  afterAll(async () => {
    await t?.close();
    await up?.close();
  });

  beforeEach(async () => {
    up.reset();
    await t.s.repos.users.update(userId, { quota: 10_000_000 });
    await t.s.options.update({ ApproximateTokenEnabled: 'false', PreConsumedQuota: '0' });
  });

  const client = (key: string) => new OpenAI({ apiKey: key, baseURL: gateway, maxRetries: 0 });
  const lastLog = () =>
    t.s.database.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();

  async function promptCountOf(
    model: string,
    content: OpenAI.Chat.ChatCompletionUserMessageParam['content'],
  ) {
    const { key } = await createToken(t, cookie);
    up.setScenario({ kind: 'ok', content: 'ok', usage: 'never' });
    await client(key).chat.completions.create({ model, messages: [{ role: 'user', content }] });
    await settled(t);
    return (await lastLog()).prompt_tokens;
  }

  const prompt = 'a'.repeat(2000);
  // 3 per message + floor(0.38 x 4) for "user" + floor(0.38 x 2000) + 3 for the reply priming.
  const approximated = 3 + 1 + 760 + 3;

  it('ApproximateTokenEnabled counts 0.38 tokens per byte instead of the encoder', async () => {
    const encoded = await promptCountOf('all-chat', prompt);
    expect(encoded).not.toBe(approximated);
    await t.s.options.update({ ApproximateTokenEnabled: 'true' });
    expect(await promptCountOf('all-chat', prompt)).toBe(approximated);
  });

  it('pre_cost 2 leaves images out of the count and pre_cost 3 counts no prompt', async () => {
    await t.s.options.update({ ApproximateTokenEnabled: 'true' });
    const withImage: OpenAI.Chat.ChatCompletionContentPart[] = [
      { type: 'text', text: prompt },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
    ];
    // A low-detail image counts 85 tokens where images are counted.
    expect(await promptCountOf('all-chat', withImage)).toBe(approximated + 85);
    expect(await promptCountOf('noimg-chat', withImage)).toBe(approximated);
    expect(await promptCountOf('none-chat', withImage)).toBe(0);
  });

  it("the reserve counts the prompt as the chosen channel's pre_cost says", async () => {
    const { key } = await createToken(t, cookie);
    // 30 000 bytes are about 10 000 tokens, 20 000 quota at input 2: more than the user has.
    await t.s.repos.users.update(userId, { quota: 5_000 });
    up.setScenario({ kind: 'ok', content: 'ok', promptTokens: 1, completionTokens: 1 });
    const big = [{ role: 'user' as const, content: 'b'.repeat(30_000) }];
    const refused = await client(key)
      .chat.completions.create({ model: 'all-chat', messages: big })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).code).toBe('insufficient_user_quota');
    const res = await client(key).chat.completions.create({ model: 'none-chat', messages: big });
    expect(res.choices[0]?.message.content).toBe('ok');
    await settled(t);
    // Billed on the upstream's usage: 1 x 2 + 1 x 4.
    expect((await t.s.repos.users.byId(userId))?.quota).toBe(5_000 - 6);
  });
});
