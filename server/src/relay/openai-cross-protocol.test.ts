import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeAnthropicErrors } from '../test/fake-anthropic.js';
import { fakeGeminiErrors } from '../test/fake-gemini.js';
import { MODELS, type ProtocolRig, resetRig, startProtocolRig } from '../test/protocol-fixtures.js';
import { createChannel, settled } from '../test/relay-fixtures.js';

// The official OpenAI SDK on /v1/chat/completions, reaching Anthropic and Gemini channels: the
// request, the stream (tool-call fragments reassembled by the SDK) and the reply are translated,
// and billing uses each upstream's usage after normalisation.

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

describe('OpenAI chat to other protocols', () => {
  let rig: ProtocolRig;
  const client = () => new OpenAI({ apiKey: rig.userKey, baseURL: `${rig.root}/v1`, maxRetries: 0 });

  beforeAll(async () => {
    rig = await startProtocolRig();
  });
  afterAll(async () => {
    await rig?.close();
  });
  beforeEach(async () => {
    await settled(rig.t);
    await resetRig(rig);
  });

  it('streams a tool-using conversation through an Anthropic channel', async () => {
    rig.anthropic.setScenario(
      {
        kind: 'ok',
        thinking: 'A tool is needed.',
        toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }],
        chunks: 4,
        inputTokens: 60,
        cacheReadTokens: 30,
        cacheWriteTokens: 10,
        outputTokens: 20,
      },
      { times: 1 },
    );
    const before = await rig.quota();
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris?' },
    ];
    const first = await client()
      .chat.completions.stream({
        model: MODELS.anthropic,
        messages,
        tools,
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function).toEqual({
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
    expect(first.usage).toMatchObject({
      prompt_tokens: 100,
      completion_tokens: 20,
      prompt_tokens_details: { cached_tokens: 30 },
    });
    // The upstream got a Messages body: top-level system, the tool, a default max_tokens.
    const sent = rig.anthropic.requests[0];
    expect(sent?.json).toMatchObject({
      model: MODELS.anthropic,
      stream: true,
      system: [{ type: 'text', text: 'You are terse.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
      max_tokens: 8192,
    });
    expect(sent?.apiKey).toBe('sk-ant-upstream');
    await settled(rig.t);
    // 2 x 100 - 30 + 5 + 4 x 20 = 255
    expect(before - (await rig.quota())).toBe(255);

    rig.anthropic.setScenario({ kind: 'ok', content: 'Sunny, 18 C.' }, { times: 1 });
    const callId = call!.id;
    const second = await client()
      .chat.completions.stream({
        model: MODELS.anthropic,
        tools,
        messages: [
          ...messages,
          choice.message as ChatCompletionMessageParam,
          { role: 'tool', tool_call_id: callId, content: '18 C, sunny' },
        ],
      })
      .finalChatCompletion();
    expect(second.choices[0]?.message.content).toBe('Sunny, 18 C.');
    expect(second.choices[0]?.finish_reason).toBe('stop');
    const replay = rig.anthropic.requests[1]?.json?.messages as Record<string, unknown>[];
    expect(replay[1]).toMatchObject({
      role: 'assistant',
      content: [{ type: 'tool_use', id: callId, name: 'get_weather', input: { city: 'Paris' } }],
    });
    // Reasoning shown to an OpenAI client carries no signature: nothing of it goes back to Anthropic.
    expect(JSON.stringify(replay[1])).not.toContain('thinking');
    expect(replay[2]).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: callId, content: '18 C, sunny' }],
    });
  });

  it('streams a tool-using conversation through a Gemini channel', async () => {
    rig.gemini.setScenario(
      {
        kind: 'ok',
        functionCalls: [{ name: 'get_weather', args: { city: 'Paris' } }],
        promptTokens: 100,
        cachedTokens: 40,
        candidatesTokens: 12,
        thoughtsTokens: 8,
      },
      { times: 1 },
    );
    const before = await rig.quota();
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client()
      .chat.completions.stream({
        model: MODELS.gemini,
        messages,
        tools,
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls?.[0];
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    expect(first.usage).toMatchObject({
      prompt_tokens: 100,
      completion_tokens: 20,
      completion_tokens_details: { reasoning_tokens: 8 },
    });
    const sent = rig.gemini.requests[0];
    expect(sent?.action).toBe('streamGenerateContent');
    expect(sent?.query.get('alt')).toBe('sse');
    expect(sent?.apiKey).toBe('AIza-gemini-upstream');
    expect(sent?.json).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
      tools: [{ functionDeclarations: [{ name: 'get_weather' }] }],
    });
    await settled(rig.t);
    // 2 x 100 - 40 + 4 x 20 + 4 x 8 = 272
    expect(before - (await rig.quota())).toBe(272);

    rig.gemini.setScenario({ kind: 'ok', content: 'It is sunny.' }, { times: 1 });
    const second = await client()
      .chat.completions.stream({
        model: MODELS.gemini,
        tools,
        messages: [
          ...messages,
          choice.message as ChatCompletionMessageParam,
          { role: 'tool', tool_call_id: call!.id, content: '{"temp":18}' },
        ],
      })
      .finalChatCompletion();
    expect(second.choices[0]?.message.content).toBe('It is sunny.');
    expect(rig.gemini.requests[1]?.json?.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 18 } } }] },
    ]);
  });

  it('translates whole replies and upstream errors', async () => {
    rig.anthropic.setScenario(
      { kind: 'ok', content: 'Hi there.', inputTokens: 7, outputTokens: 3 },
      { times: 1 },
    );
    const reply = await client().chat.completions.create({
      model: MODELS.anthropic,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 50,
    });
    expect(reply.object).toBe('chat.completion');
    expect(reply.model).toBe(MODELS.anthropic);
    expect(reply.choices[0]?.message.content).toBe('Hi there.');
    expect(reply.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });

    rig.anthropic.setScenario(fakeAnthropicErrors.invalidRequest('messages.0.content: too long'), {
      times: 1,
    });
    const bad = await client()
      .chat.completions.create({ model: MODELS.anthropic, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.APIError>).message).toContain('messages.0.content: too long');

    rig.gemini.setScenario(fakeGeminiErrors.resourceExhausted(), { times: 1 });
    const busy = await client()
      .chat.completions.create({ model: MODELS.gemini, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it('passes over channels whose protocol cannot serve the request, without counting a failure', async () => {
    const res = await client()
      .embeddings.create({ model: MODELS.anthropic, input: 'hello' })
      .catch((e: unknown) => e);
    expect(res).toBeInstanceOf(OpenAI.InternalServerError);
    expect((res as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect((res as InstanceType<typeof OpenAI.APIError>).message).toMatch(/can serve \/v1\/embeddings/);
    expect(rig.anthropic.requests).toHaveLength(0);

    // A model on an Anthropic channel (preferred) and an OpenAI one: embeddings go to the latter at
    // once, with no retry allowed (RetryTimes 0) and nothing frozen.
    const model = 'shared-embed';
    await rig.t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: rig.rootCookie },
      payload: { model, type: 'tokens', channel_type: 1, input: 1, output: 0 },
    });
    await createChannel(rig.t, rig.rootCookie, {
      type: 14,
      name: 'claude-first',
      key: 'sk-ant-upstream',
      base_url: rig.anthropic.url,
      models: [model],
      priority: 10,
    });
    await createChannel(rig.t, rig.rootCookie, {
      type: 1,
      name: 'openai-second',
      key: 'sk-openai-upstream',
      base_url: rig.openai.url,
      models: [model],
      priority: 0,
    });
    const embedded = await client().embeddings.create({ model, input: 'hello' });
    expect(embedded.data).toHaveLength(1);
    expect(rig.anthropic.requests).toHaveLength(0);
    expect(rig.openai.requests[0]?.path).toBe('/v1/embeddings');
  });
});
