import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from './fake-anthropic.js';
import { type FakeGemini, startFakeGemini } from './fake-gemini.js';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream.js';
import { createChannel, createToken } from './relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from './test-app.js';

// One gateway with a channel of each chat protocol in front of the fakes, for the cross-protocol
// relay tests. Each channel serves its own model names, so the model picks the protocol:
//   gpt-proto    -> OpenAI (type 1, serves the Responses API natively per the catalog)
//   chat-only    -> Custom OpenAI-compatible (type 8: chat/completions only)
//   claude-proto -> Anthropic (type 14)
//   gemini-proto -> Gemini (type 25)
// Every model costs 2 per input token and 4 per output token, cache reads 0.5 of input, and
// reasoning 2x output, so each expected charge can be worked out by hand:
//   quota = 2 x input - 1 x cached read + 0.5 x cache write + 4 x output + 4 x reasoning.

export const OPENAI_KEY = 'sk-openai-upstream';
export const ANTHROPIC_KEY = 'sk-ant-upstream';
export const GEMINI_KEY = 'AIza-gemini-upstream';

export const MODELS = {
  openai: 'gpt-proto',
  chatOnly: 'chat-only',
  anthropic: 'claude-proto',
  gemini: 'gemini-proto',
} as const;

export interface ProtocolRig {
  t: TestApp;
  openai: FakeUpstream;
  chatOnly: FakeUpstream;
  anthropic: FakeAnthropic;
  gemini: FakeGemini;
  /** `http://127.0.0.1:<port>` of the gateway. */
  root: string;
  rootCookie: string;
  userId: number;
  userKey: string;
  quota(): Promise<number>;
  lastLog(): Promise<
    | {
        quota: number;
        prompt_tokens: number;
        completion_tokens: number;
        metadata: string;
        model_name: string;
        is_stream: number;
      }
    | undefined
  >;
  close(): Promise<void>;
}

export async function startProtocolRig(): Promise<ProtocolRig> {
  const openai = await startFakeUpstream({ apiKey: OPENAI_KEY });
  const chatOnly = await startFakeUpstream({ apiKey: OPENAI_KEY });
  const anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  const gemini = await startFakeGemini({ apiKey: GEMINI_KEY });
  const t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const root = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const rootCookie = await t.signIn('root', ROOT_PASSWORD);
  for (const model of Object.values(MODELS)) {
    const res = await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: rootCookie },
      payload: {
        model,
        type: 'tokens',
        channel_type: 1,
        input: 2,
        output: 4,
        extra_ratios: { cached_read_tokens: 0.5, reasoning_tokens: 2 },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  await createChannel(t, rootCookie, {
    type: 1,
    name: 'openai',
    key: OPENAI_KEY,
    base_url: openai.url,
    models: [MODELS.openai],
  });
  await createChannel(t, rootCookie, {
    type: 8,
    name: 'chat-only',
    key: OPENAI_KEY,
    base_url: `${chatOnly.url}/v1`,
    models: [MODELS.chatOnly],
  });
  await createChannel(t, rootCookie, {
    type: 14,
    name: 'anthropic',
    key: ANTHROPIC_KEY,
    base_url: anthropic.url,
    models: [MODELS.anthropic],
  });
  await createChannel(t, rootCookie, {
    type: 25,
    name: 'gemini',
    key: GEMINI_KEY,
    base_url: gemini.url,
    models: [MODELS.gemini],
  });
  const userId = await registerUser(t, 'protouser');
  await t.s.repos.users.update(userId, { quota: 10_000_000 });
  const userCookie = await t.signIn('protouser', 'password-123');
  const { key: userKey } = await createToken(t, userCookie);
  return {
    t,
    openai,
    chatOnly,
    anthropic,
    gemini,
    root,
    rootCookie,
    userId,
    userKey,
    quota: async () => (await t.s.repos.users.byId(userId))!.quota,
    lastLog: async () =>
      t.s.database.db
        .selectFrom('logs')
        .select(['quota', 'prompt_tokens', 'completion_tokens', 'metadata', 'model_name', 'is_stream'])
        .where('user_id', '=', userId)
        .orderBy('id', 'desc')
        .executeTakeFirst(),
    async close() {
      await t.close();
      await Promise.all([openai.close(), chatOnly.close(), anthropic.close(), gemini.close()]);
    },
  };
}

/** Resets the fakes and the retry options between tests. */
export async function resetRig(rig: ProtocolRig): Promise<void> {
  rig.openai.reset();
  rig.chatOnly.reset();
  rig.anthropic.reset();
  rig.gemini.reset();
  await rig.t.s.options.update({
    RetryTimes: '0',
    AutomaticDisableChannelEnabled: 'false',
    RetryCooldownSeconds: '0',
  });
}
