import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sealApiKey } from '../../auth/api-keys.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../test/fake-anthropic.js';
import { type FakeGemini, startFakeGemini } from '../../test/fake-gemini.js';
import { type FakeUpstream, startFakeUpstream } from '../../test/fake-upstream.js';
import { createChannel, createToken } from '../../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// Channel and option settings that shape the request sent upstream, seen from the official OpenAI
// client through the gateway to fakes speaking OpenAI's, Anthropic's and Gemini's wire formats.

const KEY = 'sk-upstream-settings';

describe('request settings', () => {
  let t: TestApp;
  let openai: FakeUpstream;
  let anthropic: FakeAnthropic;
  let gemini: FakeGemini;
  let root: string;
  let gateway: string;
  let key: string;

  beforeAll(async () => {
    openai = await startFakeUpstream({ apiKey: KEY });
    anthropic = await startFakeAnthropic({ apiKey: KEY });
    gemini = await startFakeGemini({ apiKey: KEY });
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
    root = await t.signIn('root', ROOT_PASSWORD);
    // The Claude and Gemini models are priced by the built-in table.
    const models = [
      ['oa-plain', 1],
      ['oa-pre', 1],
    ] as const;
    for (const [model, type] of models) {
      const res = await t.call({
        method: 'POST',
        url: '/api/prices/single',
        headers: { cookie: root },
        payload: { model, type: 'tokens', channel_type: type, input: 1, output: 1 },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const issueExample = { temperature: 0.123, extra: 'x', overwrite: true };
    await createChannel(t, root, {
      name: 'openai-after',
      key: KEY,
      base_url: openai.url,
      models: ['oa-plain'],
      custom_parameter: issueExample,
    });
    await createChannel(t, root, {
      name: 'openai-pre',
      key: KEY,
      base_url: openai.url,
      models: ['oa-pre'],
      custom_parameter: { ...issueExample, pre_add: true },
    });
    await createChannel(t, root, {
      name: 'anthropic',
      type: 14,
      key: KEY,
      base_url: anthropic.url,
      models: ['claude-haiku-4-5'],
      custom_parameter: { top_k: 5, metadata: { user_id: 'channel-user' } },
    });
    await createChannel(t, root, {
      name: 'gemini',
      type: 25,
      key: KEY,
      base_url: gemini.url,
      models: ['gemini-2.5-flash'],
      custom_parameter: { generationConfig: { topK: 4, temperature: 0.2 } },
    });
    await registerUser(t, 'settings');
    await t.s.repos.users.update(2, { quota: 100_000_000 });
    const cookie = await t.signIn('settings', 'password-123');
    key = (await createToken(t, cookie)).key;
  });

  afterAll(async () => {
    await t?.close();
    await openai?.close();
    await anthropic?.close();
    await gemini?.close();
  });

  beforeEach(() => {
    openai.reset();
    anthropic.reset();
    gemini.reset();
  });

  const client = () => new OpenAI({ apiKey: key, baseURL: gateway, maxRetries: 0 });
  const ask = (model: string, extra: Record<string, unknown> = {}) =>
    client().chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'hello' }],
      temperature: 0.9,
      ...extra,
    });

  describe('custom_parameter', () => {
    it('overwrites the client fields in the body sent to an OpenAI channel', async () => {
      await ask('oa-plain');
      const sent = openai.requests.at(-1)?.json;
      expect(sent).toMatchObject({ model: 'oa-plain', temperature: 0.123, extra: 'x' });
      expect(sent).not.toHaveProperty('overwrite');
    });

    it('pre_add merges into the client body before it is read', async () => {
      await ask('oa-pre');
      expect(openai.requests.at(-1)?.json).toMatchObject({ temperature: 0.123, extra: 'x' });
      expect(openai.requests.at(-1)?.json).not.toHaveProperty('pre_add');
    });

    it('joins the translated Anthropic body without replacing client values', async () => {
      await ask('claude-haiku-4-5', { max_tokens: 50 });
      const sent = anthropic.requests.at(-1)?.json;
      expect(sent).toMatchObject({ top_k: 5, temperature: 0.9, max_tokens: 50 });
      expect(sent?.metadata).toEqual({ user_id: 'channel-user' });
    });

    it('merges into the translated Gemini generationConfig key by key', async () => {
      await ask('gemini-2.5-flash', { max_tokens: 40 });
      const sent = gemini.requests.at(-1)?.json as { generationConfig?: Record<string, unknown> };
      // Without overwrite an object present on both sides is merged key by key, the channel's keys
      // winning inside it (one-hub's deep merge): topK joins, temperature is the channel's.
      expect(sent.generationConfig).toMatchObject({ topK: 4, temperature: 0.2, maxOutputTokens: 40 });
    });

    it('is refused when saved too deep, too large or with bad controls, naming the field', async () => {
      let deep: Record<string, unknown> = { v: 1 };
      for (let i = 0; i < 10; i++) deep = { n: deep };
      for (const custom_parameter of [deep, { big: 'x'.repeat(20_000) }, { overwrite: 'yes' }]) {
        const res = await t.call({
          method: 'POST',
          url: '/api/channel/',
          headers: { cookie: root },
          payload: { type: 1, name: 'bad', key: KEY, models: 'oa-plain', group: 'default', custom_parameter },
        });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.body).toContain('custom_parameter');
      }
    });
  });

  describe('EnableSafe and SafeKeyWords', () => {
    beforeEach(async () => {
      await t.s.options.update({ EnableSafe: 'true', SafeKeyWords: 'forbidden topic\nSecretWord' });
    });
    afterAll(async () => {
      await t.s.options.update({ EnableSafe: 'false', SafeKeyWords: '' });
    });
    const quota = async () => (await t.s.repos.users.byId(2))!.quota;

    it('refuses a chat prompt holding a keyword with a 400 naming the rule, before reserving or sending', async () => {
      const before = await quota();
      const err = await client()
        .chat.completions.create({
          model: 'oa-plain',
          messages: [{ role: 'user', content: [{ type: 'text', text: 'tell me the SECRETWORD now' }] }],
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      const apiErr = err as InstanceType<typeof OpenAI.APIError>;
      expect(apiErr.status).toBe(400);
      expect(apiErr.code).toBe('prompt_refused');
      expect(apiErr.message).toContain('Keyword');
      expect(openai.requests).toHaveLength(0);
      expect(await quota()).toBe(before);
    });

    it('checks the text parts of an Anthropic-dialect prompt too, and lets clean prompts through', async () => {
      const claude = new Anthropic({ apiKey: key, baseURL: gateway.replace(/\/v1$/, ''), maxRetries: 0 });
      const err = await claude.messages
        .create({
          model: 'claude-haiku-4-5',
          max_tokens: 20,
          system: 'You discuss a forbidden topic.',
          messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.APIError);
      expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(400);
      expect(anthropic.requests).toHaveLength(0);
      const ok = await claude.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 20,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'an allowed subject' }] }],
      });
      expect(ok.content[0]?.type).toBe('text');
    });

    it('lets everything through when EnableSafe is off', async () => {
      await t.s.options.update({ EnableSafe: 'false' });
      const res = await ask('oa-plain', { messages: [{ role: 'user', content: 'SecretWord' }] });
      expect(res.choices[0]?.message).toBeDefined();
    });
  });

  describe('GeminiOpenThink', () => {
    afterAll(async () => {
      await t.s.options.update({ GeminiOpenThink: '{}' });
    });
    const thinkingSent = () =>
      (gemini.requests.at(-1)?.json as { generationConfig?: { thinkingConfig?: unknown } } | undefined)
        ?.generationConfig?.thinkingConfig;

    it('asks a listed Gemini model for its thoughts, and only a listed one', async () => {
      await ask('gemini-2.5-flash');
      expect(thinkingSent()).toBeUndefined();
      await t.s.options.update({ GeminiOpenThink: '{"gemini-2.5-flash": true, "gemini-2.5-pro": false}' });
      await ask('gemini-2.5-flash');
      expect(thinkingSent()).toEqual({ includeThoughts: true });
      // A budget the client asked for through reasoning_effort stays beside it.
      await ask('gemini-2.5-flash', { reasoning_effort: 'low' });
      expect(thinkingSent()).toMatchObject({ includeThoughts: true });
      expect(Object.keys(thinkingSent() as object).length).toBeGreaterThan(1);
    });
  });

  describe('imported one-hub keys (why OldTokenMaxId is not needed)', () => {
    it('accepts a legacy 48-character key and a 59-character signed key, each by its exact value', async () => {
      const legacy = `sk-${'L'.repeat(48)}`;
      const signed = `sk-${'S'.repeat(15)}_${'h'.repeat(43)}`;
      for (const [i, imported] of [legacy, signed].entries()) {
        await t.s.repos.tokens.insert({
          user_id: 2,
          name: `imported-${i}`,
          ...sealApiKey(t.s.secretBox, imported),
          status: 1,
          created_time: 0,
          accessed_time: 0,
          expired_time: -1,
          remain_quota: 0,
          unlimited_quota: 1,
          used_quota: 0,
          group: '',
          models: null,
          subnet: '',
          deleted_at: null,
        });
        const res = await new OpenAI({
          apiKey: imported,
          baseURL: gateway,
          maxRetries: 0,
        }).chat.completions.create({
          model: 'oa-plain',
          messages: [{ role: 'user', content: 'hi' }],
        });
        expect(res.choices[0]?.message).toBeDefined();
      }
      const wrong = await new OpenAI({
        apiKey: `${signed.slice(0, -1)}x`,
        baseURL: gateway,
        maxRetries: 0,
      }).models
        .list()
        .catch((e: unknown) => e);
      expect((wrong as InstanceType<typeof OpenAI.APIError>).status).toBe(401);
    });
  });
});
