import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAzure, startFakeAzure } from '../../test/fake-azure.js';
import { type FakeAzureSpeech, startFakeAzureSpeech } from '../../test/fake-azure-speech.js';
import { type FakeBedrock, startFakeBedrock } from '../../test/fake-bedrock.js';
import { type FakeCohere, startFakeCohere } from '../../test/fake-cohere.js';
import { type FakeJina, startFakeJina } from '../../test/fake-jina.js';
import { type FakeUpstream, startFakeUpstream } from '../../test/fake-upstream.js';
import { type FakeVertex, startFakeVertex } from '../../test/fake-vertex.js';
import { createChannel, createToken, settled } from '../../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// The official clients against the real app with channels of the vendors whose APIs are not
// OpenAI's: Azure OpenAI, Bedrock (SigV4, event stream), Vertex AI (service-account token; Gemini
// and Claude publishers), Cohere (chat and rerank), Jina (rerank) and Azure Speech. Each model
// costs 2 per input token and 4 per output token (cache reads at 0.5 of input, reasoning 2x
// output), so every charge can be worked out by hand from the usage the fake reported:
//   quota = 2 x input - 1 x cached read + 4 x output + 4 x reasoning.

const AZURE_KEY = 'azure-resource-key';
const SPEECH_KEY = 'speech-resource-key';
const COHERE_KEY = 'co-upstream-key';
const JINA_KEY = 'jina_upstream_key';
const AWS_KEY_ID = 'AKIDSWITCHYARD';
const EMAIL = 'relay@switchyard-test.iam.gserviceaccount.com';

// The names clients use; channels map them to the vendors' ids (`+`: billed as requested).
const MODELS = {
  azure: 'gpt-4o-az',
  bedrock: 'br-claude',
  vertexGemini: 'vx-gemini',
  vertexClaude: 'vx-claude',
  cohere: 'co-command',
  cohereRerank: 'co-rerank',
  jinaRerank: 'jn-rerank',
  speech: 'az-tts',
  vertexBadKey: 'vx-revoked-account',
  zhipu: 'zp-glm',
  qianfan: 'qf-ernie',
} as const;

const UPSTREAM = {
  bedrock: 'anthropic.claude-3-5-haiku-20241022-v1:0',
  vertexGemini: 'gemini-2.5-flash',
  vertexClaude: 'claude-sonnet-4@20250514',
  cohere: 'command-a-03-2025',
  cohereRerank: 'rerank-v3.5',
  jinaRerank: 'jina-reranker-v2-base-multilingual',
  speech: 'tts-1',
} as const;

function mapping(...pairs: (keyof typeof UPSTREAM)[]): string {
  return JSON.stringify(Object.fromEntries(pairs.map((k) => [MODELS[k], `+${UPSTREAM[k]}`])));
}

const tools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

const messages: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Weather in Oslo?' },
];

describe('vendor channels through the relay', () => {
  let t: TestApp;
  let root: string;
  let userId: number;
  let userKey: string;
  let azure: FakeAzure;
  let bedrock: FakeBedrock;
  let vertex: FakeVertex;
  let cohere: FakeCohere;
  let jina: FakeJina;
  let speech: FakeAzureSpeech;
  let compatible: FakeUpstream;
  let vertexChannelId: number;
  let speechChannelId: number;
  let jinaChannelId: number;
  let rootCookie: string;

  const openai = () => new OpenAI({ apiKey: userKey, baseURL: `${root}/v1`, maxRetries: 0 });
  const quota = async () => (await t.s.repos.users.byId(userId))!.quota;
  const lastLog = () =>
    t.s.database.db
      .selectFrom('logs')
      .select(['quota', 'prompt_tokens', 'completion_tokens', 'metadata', 'model_name', 'channel_id'])
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    azure = await startFakeAzure({ apiKey: AZURE_KEY, deployments: [MODELS.azure] });
    bedrock = await startFakeBedrock({ accessKeyId: AWS_KEY_ID, region: 'us-east-1' });
    vertex = await startFakeVertex({ publicKey, clientEmail: EMAIL });
    cohere = await startFakeCohere({ apiKey: COHERE_KEY });
    jina = await startFakeJina({ apiKey: JINA_KEY });
    speech = await startFakeAzureSpeech({ key: SPEECH_KEY });
    compatible = await startFakeUpstream();
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    root = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    rootCookie = await t.signIn('root', ROOT_PASSWORD);
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
    const serviceAccount = JSON.stringify({
      type: 'service_account',
      project_id: 'switchyard-test',
      private_key_id: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: EMAIL,
      token_uri: vertex.tokenUri,
    });
    await createChannel(t, rootCookie, {
      type: 3,
      name: 'azure',
      key: AZURE_KEY,
      base_url: azure.url,
      other: '2024-10-21',
      models: [MODELS.azure],
    });
    await createChannel(t, rootCookie, {
      type: 32,
      name: 'bedrock',
      key: `us-east-1|${AWS_KEY_ID}|bedrock-secret`,
      base_url: bedrock.url,
      models: [MODELS.bedrock],
      model_mapping: mapping('bedrock'),
    });
    [vertexChannelId = 0] = await createChannel(t, rootCookie, {
      type: 42,
      name: 'vertex',
      key: serviceAccount,
      base_url: vertex.url,
      other: 'us-east5',
      models: [MODELS.vertexGemini, MODELS.vertexClaude],
      model_mapping: mapping('vertexGemini', 'vertexClaude'),
    });
    await createChannel(t, rootCookie, {
      type: 36,
      name: 'cohere',
      key: COHERE_KEY,
      base_url: cohere.url,
      models: [MODELS.cohere, MODELS.cohereRerank],
      model_mapping: mapping('cohere', 'cohereRerank'),
    });
    // A service account whose key the token endpoint does not know (deleted in the cloud console).
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    await createChannel(t, rootCookie, {
      type: 42,
      name: 'vertex-deleted-key',
      key: JSON.stringify({
        ...JSON.parse(serviceAccount),
        private_key: stranger.export({ type: 'pkcs8', format: 'pem' }).toString(),
      }),
      base_url: vertex.url,
      other: 'us-east5',
      models: [MODELS.vertexBadKey],
      model_mapping: JSON.stringify({ [MODELS.vertexBadKey]: `+${UPSTREAM.vertexGemini}` }),
    });
    [jinaChannelId = 0] = await createChannel(t, rootCookie, {
      type: 47,
      name: 'jina',
      key: JINA_KEY,
      base_url: jina.url,
      models: [MODELS.jinaRerank],
      model_mapping: mapping('jinaRerank'),
    });
    [speechChannelId = 0] = await createChannel(t, rootCookie, {
      type: 24,
      name: 'speech',
      key: SPEECH_KEY,
      base_url: speech.url,
      other: 'eastus',
      models: [MODELS.speech],
      model_mapping: mapping('speech'),
      plugin: { voice: { nova: 'en-GB-SoniaNeural' } },
    });
    await createChannel(t, rootCookie, {
      type: 16,
      name: 'zhipu',
      key: 'zhipu-id.zhipu-secret',
      base_url: `${compatible.url}/v1`,
      models: [MODELS.zhipu],
      plugin: { web_search: { enable: true } },
    });
    await createChannel(t, rootCookie, {
      type: 15,
      name: 'qianfan',
      key: 'bce-v3/ALTAK-abc/def',
      base_url: `${compatible.url}/v1`,
      models: [MODELS.qianfan],
    });
    userId = await registerUser(t, 'vendoruser');
    await t.s.repos.users.update(userId, { quota: 10_000_000 });
    const userCookie = await t.signIn('vendoruser', 'password-123');
    userKey = (await createToken(t, userCookie)).key;
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([azure, bedrock, vertex, cohere, jina, speech, compatible].map((f) => f?.close()));
  });

  beforeEach(async () => {
    await settled(t);
    azure.reset();
    bedrock.reset();
    vertex.reset();
    cohere.reset();
    compatible.reset();
    await t.s.options.update({
      RetryTimes: '0',
      AutomaticDisableChannelEnabled: 'false',
      RetryCooldownSeconds: '0',
    });
  });

  async function streamTool(model: string) {
    const before = await quota();
    const reply = await openai()
      .chat.completions.stream({ model, messages, tools, stream_options: { include_usage: true } })
      .finalChatCompletion();
    await settled(t);
    return { reply, charged: before - (await quota()), log: await lastLog() };
  }

  function expectToolCall(reply: OpenAI.ChatCompletion) {
    const choice = reply.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Oslo' });
  }

  it('streams a tool call through Azure OpenAI (deployment URL, api-key, cached tokens billed)', async () => {
    azure.setScenario({
      kind: 'ok',
      promptTokens: 40,
      cachedTokens: 16,
      toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }],
    });
    const { reply, charged, log } = await streamTool(MODELS.azure);
    expectToolCall(reply);
    const sent = azure.requests[0]!;
    expect(sent).toMatchObject({ deployment: MODELS.azure, operation: 'chat/completions' });
    expect(sent.apiVersion).toBe('2024-10-21');
    expect(sent.headers['api-key']).toBe(AZURE_KEY);
    expect(sent.headers.authorization).toBeUndefined();
    const out = reply.usage!.completion_tokens;
    expect(reply.usage).toMatchObject({ prompt_tokens: 40, prompt_tokens_details: { cached_tokens: 16 } });
    expect(JSON.parse(log.metadata).estimated).toBe(false);
    expect(charged).toBe(2 * 40 - 16 + 4 * out);
  });

  it('streams a tool call through Bedrock: SigV4-signed, event stream reframed, Claude usage billed', async () => {
    bedrock.setScenario({
      kind: 'ok',
      content: 'Checking.',
      toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }],
      inputTokens: 30,
      cacheReadTokens: 10,
      outputTokens: 7,
    });
    const { reply, charged } = await streamTool(MODELS.bedrock);
    expectToolCall(reply);
    expect(reply.choices[0]?.message.content).toBe('Checking.');
    const sent = bedrock.requests[0]!;
    expect(sent.path).toBe(`/model/${encodeURIComponent(UPSTREAM.bedrock)}/invoke-with-response-stream`);
    expect(String(sent.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDSWITCHYARD\//);
    expect(sent.json).toMatchObject({
      anthropic_version: 'bedrock-2023-05-31',
      system: [{ type: 'text', text: 'You are terse.' }],
      tools: [{ name: 'get_weather' }],
    });
    expect(sent.json?.model).toBeUndefined();
    expect(reply.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 7 });
    expect(charged).toBe(2 * 40 - 10 + 4 * 7);
  });

  it('serves the official Anthropic client through Bedrock, streamed and whole', async () => {
    bedrock.setScenario({
      kind: 'ok',
      toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }],
      inputTokens: 12,
      outputTokens: 5,
    });
    const anthropic = new Anthropic({ apiKey: userKey, baseURL: root, maxRetries: 0 });
    const before = await quota();
    const final = await anthropic.messages
      .stream({
        model: MODELS.bedrock,
        max_tokens: 256,
        tools: [
          { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
        ],
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      })
      .finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content.find((b) => b.type === 'tool_use')).toMatchObject({
      name: 'get_weather',
      input: { city: 'Oslo' },
    });
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 });
    // Same dialect: the client's Messages body went on, minus model and stream, plus Bedrock's version.
    expect(bedrock.requests[0]?.json).toMatchObject({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 256,
    });
    await settled(t);
    expect(before - (await quota())).toBe(2 * 12 + 4 * 5);

    bedrock.setScenario({ kind: 'ok', content: 'Sunny.', inputTokens: 8, outputTokens: 2 });
    const whole = await anthropic.messages.create({
      model: MODELS.bedrock,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'And tomorrow?' }],
    });
    expect(whole.content[0]).toMatchObject({ type: 'text', text: 'Sunny.' });
    expect(bedrock.requests[1]?.path).toMatch(/\/invoke$/);
  });

  it('answers a Bedrock exception with an honest error in the client dialect', async () => {
    bedrock.setScenario({
      kind: 'error',
      status: 429,
      exception: 'ThrottlingException',
      message: 'Too many requests, please wait before trying again.',
    });
    const before = await quota();
    const err = await openai()
      .chat.completions.create({ model: MODELS.bedrock, messages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    await settled(t);
    expect(await quota()).toBe(before);
  });

  it('streams a tool call through Gemini on Vertex, with the token exchanged once and reasoning billed', async () => {
    vertex.setScenario({
      kind: 'ok',
      toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }],
      promptTokens: 20,
      thoughtsTokens: 6,
    });
    const exchangesBefore = vertex.tokenRequests;
    const { reply, charged, log } = await streamTool(MODELS.vertexGemini);
    expectToolCall(reply);
    const sent = vertex.requests.at(-1)!;
    expect(sent).toMatchObject({
      project: 'switchyard-test',
      region: 'us-east5',
      publisher: 'google',
      model: UPSTREAM.vertexGemini,
      action: 'streamGenerateContent',
    });
    expect(sent.json?.systemInstruction).toBeDefined();
    expect(log.channel_id).toBe(vertexChannelId);
    const usage = reply.usage!;
    expect(usage.prompt_tokens).toBe(20);
    expect(usage.completion_tokens_details?.reasoning_tokens).toBe(6);
    expect(charged).toBe(2 * 20 + 4 * usage.completion_tokens + 4 * 6);

    vertex.setScenario({ kind: 'ok', content: 'Clear skies.' });
    const again = await openai().chat.completions.create({ model: MODELS.vertexGemini, messages });
    expect(again.choices[0]?.message.content).toBe('Clear skies.');
    expect(vertex.tokenRequests - exchangesBefore).toBeLessThanOrEqual(1);
  });

  it('streams a tool call through Claude on Vertex (rawPredict), and renews a revoked token', async () => {
    vertex.setScenario({
      kind: 'ok',
      content: 'Looking.',
      toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }],
      inputTokens: 25,
      outputTokens: 9,
    });
    const { reply, charged } = await streamTool(MODELS.vertexClaude);
    expectToolCall(reply);
    const sent = vertex.requests.at(-1)!;
    expect(sent).toMatchObject({ publisher: 'anthropic', action: 'streamRawPredict' });
    expect(sent.json).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
    expect(charged).toBe(2 * 25 + 4 * 9);

    // The API refuses a revoked token: the cached one is dropped, so the next call exchanges anew.
    vertex.revokeTokens();
    const exchanges = vertex.tokenRequests;
    vertex.setScenario({ kind: 'ok', content: 'Fine.' });
    const refused = await openai()
      .chat.completions.create({ model: MODELS.vertexClaude, messages })
      .catch((e: unknown) => e);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    const ok = await openai().chat.completions.create({ model: MODELS.vertexClaude, messages });
    expect(ok.choices[0]?.message.content).toBe('Fine.');
    expect(vertex.tokenRequests).toBe(exchanges + 1);
  });

  it('answers a refused token exchange as the upstream refusing the gateway, without charging', async () => {
    const before = await quota();
    const calls = vertex.requests.length;
    const err = await openai()
      .chat.completions.create({ model: MODELS.vertexBadKey, messages, stream: true })
      .catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((err as InstanceType<typeof OpenAI.APIError>).message).toMatch(/refused the gateway/);
    expect(vertex.requests.length).toBe(calls);
    await settled(t);
    expect(await quota()).toBe(before);
  });

  it('streams a tool call through Cohere (translated both ways) and answers Anthropic clients too', async () => {
    cohere.setScenario({
      kind: 'ok',
      content: 'On it.',
      toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      inputTokens: 14,
    });
    const { reply, charged } = await streamTool(MODELS.cohere);
    expectToolCall(reply);
    expect(cohere.requests[0]?.path).toBe('/v2/chat');
    expect(cohere.requests[0]?.json).toMatchObject({ model: UPSTREAM.cohere, stream: true });
    // Cohere reports billed units and the tokens the model really read (the prompt plus its own
    // preamble); the latter is what the call consumed.
    expect(reply.usage?.prompt_tokens).toBe(214);
    expect(charged).toBe(2 * 214 + 4 * reply.usage!.completion_tokens);

    cohere.setScenario({ kind: 'ok', content: 'Hi there.' });
    const anthropic = new Anthropic({ apiKey: userKey, baseURL: root, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: MODELS.cohere,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hi there.' });
  });

  it('reranks through Cohere (the relay count billed, marked estimated) and Jina (its tokens billed)', async () => {
    const body = {
      query: 'weather in oslo',
      documents: ['Oslo weather today is sunny', 'Stock prices fell', { text: 'Rain in Oslo tomorrow' }],
      top_n: 2,
    };
    const before = await quota();
    const viaCohere = await fetch(`${root}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${userKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODELS.cohereRerank, ...body }),
    });
    expect(viaCohere.status).toBe(200);
    const c = (await viaCohere.json()) as { model: string; results: { index: number; document?: unknown }[] };
    expect(c.model).toBe(MODELS.cohereRerank);
    expect(c.results).toHaveLength(2);
    expect(c.results[0]?.index).toBe(0);
    expect(c.results[0]?.document).toEqual({ text: 'Oslo weather today is sunny' });
    expect(cohere.requests.at(-1)?.path).toBe('/v2/rerank');
    await settled(t);
    const cohereLog = await lastLog();
    expect(cohereLog.prompt_tokens).toBeGreaterThan(0);
    expect(JSON.parse(cohereLog.metadata).estimated).toBe(true);
    expect(before - (await quota())).toBe(2 * cohereLog.prompt_tokens);

    const mid = await quota();
    const viaJina = await fetch(`${root}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${userKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODELS.jinaRerank, ...body }),
    });
    expect(viaJina.status).toBe(200);
    const j = (await viaJina.json()) as { results: unknown[]; usage: { total_tokens: number } };
    expect(j.results).toHaveLength(2);
    expect(jina.requests.at(-1)?.headers.authorization).toBe(`Bearer ${JINA_KEY}`);
    await settled(t);
    const jinaLog = await lastLog();
    expect(jinaLog.prompt_tokens).toBe(j.usage.total_tokens);
    expect(JSON.parse(jinaLog.metadata).estimated).toBe(false);
    expect(mid - (await quota())).toBe(2 * j.usage.total_tokens);

    const bad = await fetch(`${root}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${userKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODELS.jinaRerank, query: 'q', documents: [] }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/documents/);
  });

  it('speaks through Azure Speech: SSML with the mapped voice, audio streamed, billed per character', async () => {
    const input = 'Hello from Oslo, 18 degrees.';
    const before = await quota();
    const res = await openai().audio.speech.create({
      model: MODELS.speech,
      voice: 'nova',
      input,
      response_format: 'opus',
    });
    expect(res.headers.get('content-type')).toBe('audio/ogg');
    const audio = Buffer.from(await res.arrayBuffer());
    expect(audio.subarray(0, 4).toString('latin1')).toBe('OggS');
    const sent = speech.requests.at(-1)!;
    expect(sent.voice).toBe('en-GB-SoniaNeural');
    expect(sent.text).toContain('Hello from Oslo');
    expect(sent.headers['x-microsoft-outputformat']).toBe('ogg-24khz-16bit-mono-opus');
    await settled(t);
    const log = await lastLog();
    expect(log.prompt_tokens).toBe(input.length);
    expect(before - (await quota())).toBe(2 * input.length);

    const tooLong = await openai()
      .audio.speech.create({ model: MODELS.speech, voice: 'alloy', input: 'x'.repeat(4097) })
      .catch((e: unknown) => e);
    expect((tooLong as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
  });

  it('signs Zhipu calls with a cached token and adds its plugin tools; Qianfan takes its v2 key', async () => {
    for (const _ of [1, 2]) await openai().chat.completions.create({ model: MODELS.zhipu, messages, tools });
    const [first, second] = compatible.requests;
    const token = String(first?.authorization).replace(/^Bearer /, '');
    const [header, claims] = token
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toEqual({ alg: 'HS256', sign_type: 'SIGN' });
    expect(claims.api_key).toBe('zhipu-id');
    expect(second?.authorization).toBe(first?.authorization);
    expect(first?.json?.tools).toEqual([...tools, { type: 'web_search', web_search: { enable: true } }]);

    await openai().chat.completions.create({ model: MODELS.qianfan, messages });
    expect(compatible.requests.at(-1)?.authorization).toBe('Bearer bce-v3/ALTAK-abc/def');
  });

  it('serves Gemini REST and Responses clients through these channels, streaming', async () => {
    bedrock.setScenario({
      kind: 'ok',
      toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }],
      inputTokens: 11,
      outputTokens: 4,
    });
    const res = await fetch(`${root}/gemini/v1beta/models/${MODELS.bedrock}:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': userKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'Weather in Oslo?' }] }],
        tools: [
          {
            functionDeclarations: [
              {
                name: 'get_weather',
                parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } },
              },
            ],
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { candidates?: { content?: { parts?: unknown[] } }[] });
    const parts = events.flatMap((e) => e.candidates?.[0]?.content?.parts ?? []);
    expect(parts).toContainEqual({ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } });
    expect(bedrock.requests[0]?.stream).toBe(true);

    for (const [model, fake] of [
      [MODELS.cohere, () => cohere.setScenario({ kind: 'ok', content: 'Hej fra Cohere.' })],
      [MODELS.vertexClaude, () => vertex.setScenario({ kind: 'ok', content: 'Hej fra Vertex.' })],
    ] as const) {
      fake();
      const stream = await openai().responses.create({
        model,
        input: 'Say hello in Norwegian',
        stream: true,
      });
      let text = '';
      let completed = false;
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') completed = true;
      }
      expect(text).toMatch(/^Hej fra /);
      expect(completed).toBe(true);
    }
  });

  it('tests these channels from the console with the same transports', async () => {
    const test = async (id: number, model: string) =>
      (
        await t.call({
          method: 'GET',
          url: `/api/channel/test/${id}?model=${encodeURIComponent(model)}`,
          headers: { cookie: rootCookie },
        })
      ).json();
    vertex.setScenario({ kind: 'ok', content: 'hi' });
    const v = await test(vertexChannelId, MODELS.vertexClaude);
    expect(v.success, JSON.stringify(v)).toBe(true);
    const s = await test(speechChannelId, MODELS.speech);
    expect(s.success, JSON.stringify(s)).toBe(true);
    const j = await test(jinaChannelId, MODELS.jinaRerank);
    expect(j.success, JSON.stringify(j)).toBe(true);
    expect(jina.requests.at(-1)?.json).toMatchObject({ query: 'hi', documents: ['hi'] });
  });
});
