import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MODELS, type ProtocolRig, resetRig, startProtocolRig } from '../../test/protocol-fixtures.js';
import { settled } from '../../test/relay-fixtures.js';

// OpenAI's Responses API on a channel that only speaks chat/completions (the Custom type), with
// the official SDK's `responses.create`: the request becomes a chat body, the chat stream becomes
// Responses events, and billing reads the chat usage.

const tools: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: false,
  },
];

describe('Responses API inbound', () => {
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

  it('streams a tool-using conversation through a chat-only channel', async () => {
    rig.chatOnly.setScenario(
      {
        kind: 'ok',
        reasoning: 'Needs the weather tool.',
        toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
        chunks: 3,
        usage: 'always',
        promptTokens: 100,
        cachedTokens: 40,
        completionTokens: 20,
        reasoningTokens: 8,
      },
      { times: 1 },
    );
    const before = await rig.quota();
    const stream = await client().responses.create({
      model: MODELS.chatOnly,
      instructions: 'Be brief.',
      input: 'Weather in Paris?',
      tools,
      max_output_tokens: 400,
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.reasoning_summary_text.delta');
    expect(types).toContain('response.function_call_arguments.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const argDeltas = events
      .filter((e) => e.type === 'response.function_call_arguments.delta')
      .map((e) => (e as { delta: string }).delta);
    expect(argDeltas.length).toBeGreaterThan(1);
    expect(argDeltas.join('')).toBe('{"city":"Paris"}');
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    const output = completed.response.output;
    expect(output.map((o) => o.type)).toEqual(['reasoning', 'function_call']);
    const call = output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' });
    expect(completed.response.usage).toMatchObject({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 40 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 8 },
    });
    expect(completed.response.model).toBe(MODELS.chatOnly);
    expect(rig.chatOnly.requests[0]?.path).toBe('/v1/chat/completions');
    expect(rig.chatOnly.requests[0]?.json).toMatchObject({
      model: MODELS.chatOnly,
      stream: true,
      max_tokens: 400,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
    });
    // The Custom type is not asked for include_usage (some compatible servers reject the field).
    expect(rig.chatOnly.requests[0]?.json?.stream_options).toBeUndefined();
    await settled(rig.t);
    // 2 x 100 - 40 + 4 x 20 + 4 x 8 = 272
    expect(before - (await rig.quota())).toBe(272);

    rig.chatOnly.setScenario(
      { kind: 'ok', content: 'Sunny in Paris.', chunks: 3, usage: 'always' },
      { times: 1 },
    );
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'Weather in Paris?' },
      { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
      { type: 'function_call_output', call_id: call.call_id, output: '18 C' },
    ];
    const second = await client().responses.create({ model: MODELS.chatOnly, input, tools, stream: true });
    let text = '';
    let done: OpenAI.Responses.Response | undefined;
    for await (const event of second) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') done = event.response;
    }
    expect(text).toBe('Sunny in Paris.');
    expect(done?.output[0]).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Sunny in Paris.' }],
    });
    expect(rig.chatOnly.requests[1]?.json?.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: call.call_id,
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: call.call_id, content: '18 C' },
    ]);
  });

  it('streams through an Anthropic channel (Responses -> chat -> Messages and back)', async () => {
    rig.anthropic.setScenario(
      {
        kind: 'ok',
        thinking: 'Short thought.',
        content: 'Bonjour tout le monde.',
        inputTokens: 60,
        cacheReadTokens: 30,
        cacheWriteTokens: 10,
        outputTokens: 20,
      },
      { times: 1 },
    );
    const before = await rig.quota();
    const stream = await client().responses.create({
      model: MODELS.anthropic,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Say hello in French' }] }],
      reasoning: { effort: 'low' },
      max_output_tokens: 4000,
      stream: true,
    });
    let text = '';
    let summary = '';
    let done: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.reasoning_summary_text.delta') summary += event.delta;
      if (event.type === 'response.completed') done = event.response;
    }
    expect(text).toBe('Bonjour tout le monde.');
    expect(summary).toBe('Short thought.');
    expect(done?.usage).toMatchObject({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 30 },
      output_tokens: 20,
    });
    expect(rig.anthropic.requests[0]?.json).toMatchObject({
      model: MODELS.anthropic,
      max_tokens: 4000,
      stream: true,
      thinking: { type: 'enabled' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello in French' }] }],
    });
    await settled(rig.t);
    // 2 x 100 - 30 + 5 + 4 x 20 = 255
    expect(before - (await rig.quota())).toBe(255);
  });

  it('answers a whole Response and refuses state it cannot keep', async () => {
    rig.chatOnly.setScenario(
      { kind: 'ok', content: 'Bonjour.', promptTokens: 6, completionTokens: 2 },
      { times: 1 },
    );
    const response = await client().responses.create({
      model: MODELS.chatOnly,
      input: 'Say hello in French',
    });
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Bonjour.');
    expect(response.usage).toMatchObject({ input_tokens: 6, output_tokens: 2, total_tokens: 8 });

    const stateful = await client()
      .responses.create({ model: MODELS.chatOnly, input: 'and again', previous_response_id: response.id })
      .catch((e: unknown) => e);
    expect(stateful).toBeInstanceOf(OpenAI.BadRequestError);
    expect((stateful as InstanceType<typeof OpenAI.APIError>).message).toMatch(/previous_response_id/);
  });
});
