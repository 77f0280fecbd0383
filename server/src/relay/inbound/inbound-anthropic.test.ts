import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeAnthropicErrors } from '../../test/fake-anthropic.js';
import { fakeErrors } from '../../test/fake-upstream.js';
import { MODELS, type ProtocolRig, resetRig, startProtocolRig } from '../../test/protocol-fixtures.js';
import { createChannel, settled } from '../../test/relay-fixtures.js';

// The official Anthropic SDK pointed at the gateway: Messages through an OpenAI channel
// (translated both ways) and through an Anthropic channel (passed through), with tools, thinking,
// billing from the normalised usage and Anthropic-shaped errors.

const tools: Anthropic.Tool[] = [
  {
    name: 'get_weather',
    description: 'Current weather of a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

describe('Anthropic Messages inbound', () => {
  let rig: ProtocolRig;
  /** Bodies the SDK sent, as bytes on the wire. */
  const sent: string[] = [];
  const client = (prefix = '') =>
    new Anthropic({
      apiKey: rig.userKey,
      baseURL: `${rig.root}${prefix}`,
      maxRetries: 0,
      fetch: async (url: string | URL | Request, init?: RequestInit) => {
        if (typeof init?.body === 'string') sent.push(init.body);
        return fetch(url, init);
      },
    });

  beforeAll(async () => {
    rig = await startProtocolRig();
  });
  afterAll(async () => {
    await rig?.close();
  });
  beforeEach(async () => {
    sent.length = 0;
    await settled(rig.t);
    await resetRig(rig);
  });

  it('streams a tool-using conversation through an OpenAI channel and bills cached and reasoning tokens', async () => {
    rig.openai.setScenario(
      {
        kind: 'ok',
        reasoning: 'The user wants weather. ',
        toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
        chunks: 3,
        promptTokens: 100,
        cachedTokens: 40,
        completionTokens: 20,
        reasoningTokens: 8,
      },
      { times: 1 },
    );
    const before = await rig.quota();
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const first = await client()
      .messages.stream({ model: MODELS.openai, max_tokens: 512, tools, messages: [question] })
      .finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(use?.name).toBe('get_weather');
    expect(use?.input).toEqual({ city: 'Paris' });
    expect(first.content.find((b) => b.type === 'thinking')).toMatchObject({
      thinking: 'The user wants weather. ',
    });
    // Anthropic reports cache reads beside input_tokens.
    expect(first.usage).toMatchObject({ input_tokens: 60, cache_read_input_tokens: 40, output_tokens: 20 });

    // The upstream got an OpenAI chat body with the tool and a usage request for the stream.
    const up = rig.openai.requests[0]?.json;
    expect(up).toMatchObject({
      model: MODELS.openai,
      stream: true,
      stream_options: { include_usage: true },
      // OpenAI's reasoning models refuse max_tokens; max_completion_tokens works for all of them.
      max_completion_tokens: 512,
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
    });
    expect(rig.openai.requests[0]?.authorization).toBe('Bearer sk-openai-upstream');

    await settled(rig.t);
    // 2 x 100 - 40 + 4 x 20 + 4 x 8 = 272
    expect(before - (await rig.quota())).toBe(272);
    const log = await rig.lastLog();
    expect(log).toMatchObject({ quota: 272, prompt_tokens: 100, completion_tokens: 20, is_stream: 1 });
    expect(JSON.parse(log!.metadata)).toMatchObject({
      cached_read_tokens: 40,
      reasoning_tokens: 8,
      estimated: false,
    });

    rig.openai.setScenario({ kind: 'ok', content: 'It is sunny in Paris.', chunks: 4 }, { times: 1 });
    const second = await client()
      .messages.stream({
        model: MODELS.openai,
        max_tokens: 512,
        tools,
        messages: [
          question,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.id, content: '18 C, sunny' }] },
        ],
      })
      .finalMessage();
    expect(second.content).toHaveLength(1);
    expect(second.content[0]).toMatchObject({ type: 'text', text: 'It is sunny in Paris.' });
    expect(second.stop_reason).toBe('end_turn');
    const messages = rig.openai.requests[1]?.json?.messages as Record<string, unknown>[];
    expect(messages).toContainEqual(
      expect.objectContaining({
        role: 'assistant',
        tool_calls: [
          expect.objectContaining({
            id: use!.id,
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          }),
        ],
      }),
    );
    expect(messages).toContainEqual({ role: 'tool', tool_call_id: use!.id, content: '18 C, sunny' });
  });

  it('passes a tool-using conversation through an Anthropic channel byte for byte, thinking signatures included', async () => {
    rig.anthropic.setScenario(
      {
        kind: 'ok',
        thinking: 'Weather needs a tool.',
        toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }],
        inputTokens: 60,
        cacheReadTokens: 30,
        cacheWriteTokens: 10,
        outputTokens: 20,
      },
      { times: 1 },
    );
    const before = await rig.quota();
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const first = await client('/claude')
      .messages.stream(
        { model: MODELS.anthropic, max_tokens: 512, tools, messages: [question] },
        { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' } },
      )
      .finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const thinking = first.content.find((b): b is Anthropic.ThinkingBlock => b.type === 'thinking');
    expect(thinking?.signature).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(use?.input).toEqual({ city: 'Paris' });
    // The client's bytes reached the upstream untouched, with the channel's key and the client's headers.
    const rec = rig.anthropic.requests[0]!;
    expect(rec.body.toString('utf8')).toBe(sent[0]);
    expect(rec.apiKey).toBe('sk-ant-upstream');
    expect(rec.beta).toBe('interleaved-thinking-2025-05-14');
    await settled(rig.t);
    // 2 x 100 - 30 (cache reads at 0.5) + 5 (cache writes at 1.25) + 4 x 20 = 255
    expect(before - (await rig.quota())).toBe(255);
    expect(JSON.parse((await rig.lastLog())!.metadata)).toMatchObject({
      cached_read_tokens: 30,
      cached_write_tokens: 10,
    });

    rig.anthropic.setScenario({ kind: 'ok', content: 'Sunny.' }, { times: 1 });
    const second = await client()
      .messages.stream({
        model: MODELS.anthropic,
        max_tokens: 512,
        tools,
        messages: [
          question,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.id, content: '18 C' }] },
        ],
      })
      .finalMessage();
    expect(second.content[0]).toMatchObject({ type: 'text', text: 'Sunny.' });
    const replayed = rig.anthropic.requests[1]!;
    expect(replayed.body.toString('utf8')).toBe(sent[1]);
    expect(replayed.body.toString('utf8')).toContain(JSON.stringify(thinking!.signature));
  });

  it('drops thinking signatures when the conversation crosses to another provider', async () => {
    const signature = 'EqQBCkYIARgCIkDsignature-that-only-anthropic-can-verify';
    const history: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should call the tool.', signature },
          { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '18 C' }] },
    ];
    rig.openai.setScenario({ kind: 'ok', content: 'Sunny.' }, { times: 1 });
    await client().messages.create({ model: MODELS.openai, max_tokens: 100, tools, messages: history });
    rig.gemini.setScenario({ kind: 'ok', content: 'Sunny.' }, { times: 1 });
    await client().messages.create({ model: MODELS.gemini, max_tokens: 100, tools, messages: history });
    for (const body of [rig.openai.requests[0]?.body, rig.gemini.requests[0]?.body]) {
      const text = body!.toString('utf8');
      expect(text).not.toContain(signature);
      expect(text).toContain('get_weather');
    }
  });

  it('answers a non-streaming message through a Gemini channel with the usage of its reply', async () => {
    rig.gemini.setScenario(
      {
        kind: 'ok',
        content: 'Bonjour.',
        promptTokens: 100,
        cachedTokens: 40,
        candidatesTokens: 12,
        thoughtsTokens: 8,
      },
      { times: 1 },
    );
    const before = await rig.quota();
    const msg = await client().messages.create({
      model: MODELS.gemini,
      max_tokens: 100,
      system: 'Answer in French.',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(msg.content).toEqual([{ type: 'text', text: 'Bonjour.' }]);
    expect(msg.model).toBe(MODELS.gemini);
    expect(rig.gemini.requests[0]?.json).toMatchObject({
      systemInstruction: { parts: [{ text: 'Answer in French.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
    });
    expect(rig.gemini.requests[0]?.action).toBe('generateContent');
    await settled(rig.t);
    // Gemini's thoughts are output and reasoning: 2 x 100 - 40 + 4 x 20 + 4 x 8 = 272
    expect(before - (await rig.quota())).toBe(272);
  });

  it('answers errors in Anthropic shape', async () => {
    const bad = new Anthropic({ apiKey: 'sk-not-a-real-key', baseURL: rig.root, maxRetries: 0 });
    const denied = await bad.messages
      .create({ model: MODELS.anthropic, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((denied as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });

    rig.openai.setScenario(fakeErrors.badRequest('messages: too long'), { times: 1 });
    const upstream = await client()
      .messages.create({ model: MODELS.openai, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(upstream).toBeInstanceOf(Anthropic.BadRequestError);
    expect((upstream as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('messages: too long') },
    });

    await rig.t.s.options.update({ ClaudeAPIEnabled: 'false' });
    const off = await client()
      .messages.create({
        model: MODELS.anthropic,
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch((e: unknown) => e);
    await rig.t.s.options.update({ ClaudeAPIEnabled: 'true' });
    expect(off).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(rig.anthropic.requests).toHaveLength(0);
  });

  it('ends a translated stream with an Anthropic error event when the upstream breaks off', async () => {
    rig.openai.setScenario(
      { kind: 'ok', content: 'one two three four five six', breakAfterEvents: 3 },
      { times: 1 },
    );
    const res = await fetch(`${rig.root}/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': rig.userKey,
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({
        model: MODELS.openai,
        max_tokens: 50,
        stream: true,
        messages: [{ role: 'user', content: 'count' }],
      }),
    });
    const text = await res.text();
    expect(text).toContain('event: message_start');
    expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
    expect(text).not.toContain('message_stop');
    await settled(rig.t);
    expect(JSON.parse((await rig.lastLog())!.metadata)).toMatchObject({ upstream_failed_midway: true });
  });

  it('retries a failed Anthropic channel on an OpenAI channel for the same model, translating there', async () => {
    const model = 'claude-with-fallback';
    const price = await rig.t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: rig.rootCookie },
      payload: { model, type: 'tokens', channel_type: 14, input: 1, output: 1 },
    });
    expect(price.statusCode, price.body).toBe(200);
    const [primary] = await createChannel(rig.t, rig.rootCookie, {
      type: 14,
      name: 'claude-primary',
      key: 'sk-ant-upstream',
      base_url: rig.anthropic.url,
      models: [model],
      priority: 10,
    });
    const [fallback] = await createChannel(rig.t, rig.rootCookie, {
      type: 1,
      name: 'openai-fallback',
      key: 'sk-openai-upstream',
      base_url: rig.openai.url,
      models: [model],
      priority: 0,
    });
    await rig.t.s.options.update({ RetryTimes: '1' });
    rig.anthropic.setScenario(fakeAnthropicErrors.overloaded(), { times: 1 });
    rig.openai.setScenario({ kind: 'ok', content: 'From the fallback.' }, { times: 1 });
    const message = await client()
      .messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'From the fallback.' });
    // The Anthropic channel saw the client's own body, the OpenAI one a translated chat body.
    expect(rig.anthropic.requests[0]?.body.toString('utf8')).toBe(sent[0]);
    expect(rig.openai.requests[0]?.json).toMatchObject({
      model,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await settled(rig.t);
    const log = await rig.t.s.database.db
      .selectFrom('logs')
      .select('channel_id')
      .where('user_id', '=', rig.userId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log.channel_id).toBe(fallback);
    expect(primary).not.toBe(fallback);
  });

  it('lists models in Anthropic shape', async () => {
    const ids: string[] = [];
    for await (const model of client().models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining([MODELS.anthropic, MODELS.openai, MODELS.gemini]));
    const page = await client('/claude').models.list();
    expect(page.data[0]).toMatchObject({ type: 'model', display_name: page.data[0]?.id });
  });

  it('counts tokens on the Anthropic channel without billing, and estimates where none serves the model', async () => {
    const before = await rig.quota();
    const counted = await client()
      .messages.countTokens({
        model: MODELS.anthropic,
        system: 'Be brief.',
        tools,
        messages: [{ role: 'user', content: 'What is the weather in Paris today?' }],
      })
      .withResponse();
    expect(counted.response.headers.get('x-switchyard-token-count')).toBe('upstream');
    expect(rig.anthropic.requests.map((r) => r.path)).toEqual(['/v1/messages/count_tokens']);
    expect(counted.data.input_tokens).toBeGreaterThan(0);
    const estimated = await client()
      .messages.countTokens({
        model: MODELS.openai,
        messages: [{ role: 'user', content: 'What is the weather in Paris today?' }],
      })
      .withResponse();
    expect(estimated.response.headers.get('x-switchyard-token-count')).toBe('estimated');
    expect(estimated.data.input_tokens).toBeGreaterThan(5);
    expect(rig.anthropic.requests).toHaveLength(1);
    expect(rig.openai.requests).toHaveLength(0);
    expect(await rig.quota()).toBe(before);
  });
});
