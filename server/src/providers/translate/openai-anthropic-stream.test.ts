import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../billing/pricing/usage.js';
import { AnthropicToOpenAiStream, OpenAiToAnthropicStream } from './openai-anthropic.js';
import { SseReader } from './sse-framing.js';
import type { StreamTranslator } from './stream-translator.js';

// ---- helpers

function ev(name: string, payload: Record<string, unknown>): string {
  return `event: ${name}\ndata: ${JSON.stringify({ type: name, ...payload })}\n\n`;
}

function chunk(
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
): string {
  return `data: ${JSON.stringify({
    id: 'chatcmpl-42',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'gpt-4o-2024-08-06',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  })}\n\n`;
}

/** A small deterministic PRNG, so random splits are the same on every run. */
function randomCuts(length: number, seed: number): number[] {
  let s = seed;
  const cuts = new Set<number>();
  const n = Math.max(1, Math.floor(length / 15));
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    cuts.add(1 + (s % (length - 1)));
  }
  return [...cuts].sort((a, b) => a - b);
}

function feed(
  t: StreamTranslator,
  bytes: Buffer,
  cuts: number[],
  fallback?: Parameters<StreamTranslator['end']>[0],
): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    out.push(t.write(bytes.subarray(at, cut)));
    at = cut;
  }
  out.push(t.end(fallback));
  return Buffer.concat(out);
}

function events(bytes: Buffer): { event: string; data: string }[] {
  const reader = new SseReader();
  return [...reader.push(bytes), ...reader.end()].map((e) => ({
    event: e.event,
    data: e.data.toString('utf8'),
  }));
}

/** Assembles OpenAI chunks the way a client does. */
function assembleOpenAi(bytes: Buffer) {
  let content = '';
  let reasoning = '';
  let finish: string | null = null;
  let usage: unknown = null;
  let done = false;
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const e of events(bytes)) {
    if (e.data === '[DONE]') {
      done = true;
      continue;
    }
    const c = JSON.parse(e.data);
    if (c.usage) usage = c.usage;
    for (const choice of c.choices ?? []) {
      const d = choice.delta ?? {};
      content += d.content ?? '';
      reasoning += d.reasoning_content ?? '';
      for (const tc of d.tool_calls ?? []) {
        calls[tc.index] ??= { id: '', name: '', arguments: '' };
        const call = calls[tc.index];
        if (!call) continue;
        if (tc.id) call.id = tc.id;
        if (tc.function?.name) call.name = tc.function.name;
        call.arguments += tc.function?.arguments ?? '';
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  return { content, reasoning, calls, finish, usage, done };
}

/** Checks the Anthropic event grammar and assembles the message the way the SDK does. */
function assembleAnthropic(bytes: Buffer) {
  const list = events(bytes);
  const names = list.map((e) => e.event);
  const payloads = list.map((e) => JSON.parse(e.data));
  expect(payloads.map((p) => p.type)).toEqual(names);
  expect(names[0]).toBe('message_start');
  expect(names.at(-1)).toBe('message_stop');
  expect(names.at(-2)).toBe('message_delta');
  const message = payloads[0].message;
  const open = new Set<number>();
  const blocks: Record<string, unknown>[] = [];
  const json: string[] = [];
  for (const p of payloads.slice(1)) {
    if (p.type === 'content_block_start') {
      expect(open.has(p.index)).toBe(false);
      expect(p.index).toBe(blocks.length);
      open.add(p.index);
      blocks.push({ ...p.content_block });
      json.push('');
    } else if (p.type === 'content_block_delta') {
      expect(open.has(p.index)).toBe(true);
      const b = blocks[p.index] as Record<string, string>;
      if (p.delta.type === 'text_delta') b.text += p.delta.text;
      if (p.delta.type === 'thinking_delta') b.thinking += p.delta.thinking;
      if (p.delta.type === 'input_json_delta') json[p.index] += p.delta.partial_json;
    } else if (p.type === 'content_block_stop') {
      expect(open.delete(p.index)).toBe(true);
      const b = blocks[p.index] as Record<string, unknown>;
      if (b.type === 'tool_use') b.input = JSON.parse(json[p.index] || '{}');
    } else if (p.type === 'message_delta') {
      expect(open.size).toBe(0);
      message.stop_reason = p.delta.stop_reason;
      message.usage = { ...message.usage, ...p.usage };
    }
  }
  message.content = blocks;
  return message;
}

// ---- Anthropic -> OpenAI

const ANTHROPIC_STREAM = [
  ev('message_start', {
    message: {
      id: 'msg_01ABC',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 30,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 900,
        output_tokens: 1,
      },
    },
  }),
  ev('ping', {}),
  ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
  ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Two cities, ' } }),
  ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'two calls.' } }),
  ev('content_block_delta', {
    index: 0,
    delta: { type: 'signature_delta', signature: 'EqQBCkgIARABGAIiQL' },
  }),
  ev('content_block_stop', { index: 0 }),
  ev('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
  ev('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Checking — ' } }),
  ev('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'один момент.' } }),
  ev('content_block_stop', { index: 1 }),
  ev('content_block_start', {
    index: 2,
    content_block: { type: 'tool_use', id: 'toolu_A', name: 'get_weather', input: {} },
  }),
  ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '' } }),
  ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"city": "Pa' } }),
  ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: 'ris"}' } }),
  ev('content_block_stop', { index: 2 }),
  ev('content_block_start', {
    index: 3,
    content_block: { type: 'tool_use', id: 'toolu_B', name: 'get_weather', input: {} },
  }),
  ev('content_block_delta', {
    index: 3,
    delta: { type: 'input_json_delta', partial_json: '{"city":"Oslo"}' },
  }),
  ev('content_block_stop', { index: 3 }),
  ev('message_delta', {
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 88 },
  }),
  ev('message_stop', {}),
].join('');

describe('AnthropicToOpenAiStream', () => {
  const bytes = Buffer.from(ANTHROPIC_STREAM);
  const make = () =>
    new AnthropicToOpenAiStream({ model: 'claude-sonnet-4-5', includeUsage: true, created: 1700000000 });

  it('writes OpenAI chunks with reasoning, text, tool-call fragments, finish reason, usage and [DONE]', () => {
    const t = make();
    const out = feed(t, bytes, []);
    const a = assembleOpenAi(out);
    expect(a).toEqual({
      content: 'Checking — один момент.',
      reasoning: 'Two cities, two calls.',
      calls: [
        { id: 'toolu_A', name: 'get_weather', arguments: '{"city": "Paris"}' },
        { id: 'toolu_B', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
      finish: 'tool_calls',
      usage: {
        prompt_tokens: 930,
        completion_tokens: 88,
        total_tokens: 1018,
        prompt_tokens_details: { cached_tokens: 900, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
      done: true,
    });
    const first = JSON.parse(events(out)[0]?.data ?? '{}');
    expect(first).toEqual({
      id: 'chatcmpl-01ABC',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: 'claude-sonnet-4-5',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    });
    // The signature never reaches the OpenAI client.
    expect(out.toString()).not.toContain('EqQBCkgIARABGAIiQL');
    expect(t.usage).toEqual({ ...emptyUsage(), inputTokens: 930, outputTokens: 88, cachedReadTokens: 900 });
    expect(t.completed).toBe(true);
    expect(t.completionText()).toBe(
      'Two cities, two calls.Checking — один момент.get_weather{"city": "Paris"}get_weather{"city":"Oslo"}',
    );
  });

  it('writes the same bytes for every chunking: whole, byte by byte, random splits', () => {
    const whole = feed(make(), bytes, []);
    expect(
      feed(
        make(),
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(whole);
    for (const seed of [1, 7, 42, 1234])
      expect(feed(make(), bytes, randomCuts(bytes.length, seed))).toEqual(whole);
  });

  it('leaves the usage chunk out unless asked, and stops with an error event on an upstream error', () => {
    const plain = assembleOpenAi(feed(new AnthropicToOpenAiStream(), bytes, []));
    expect(plain.usage).toBeNull();
    expect(plain.done).toBe(true);

    const cut = ANTHROPIC_STREAM.indexOf('event: content_block_start');
    const broken = `${ANTHROPIC_STREAM.slice(0, cut)}${ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })}`;
    const t = new AnthropicToOpenAiStream();
    const out = events(feed(t, Buffer.from(broken), []));
    expect(JSON.parse(out.at(-1)?.data ?? '{}')).toEqual({
      error: { message: 'Overloaded', type: 'overloaded_error', code: null, param: null },
    });
    expect(t.error?.type).toBe('overloaded_error');
    expect(t.completed).toBe(false);
    expect(events(t.errorEvent({ status: 502, message: 'upstream broke' }))[0]?.data).toBe(
      '{"error":{"message":"upstream broke","type":"upstream_error","code":null,"param":null}}',
    );
  });

  it('sends a tool input given whole at block start', () => {
    const stream = [
      ANTHROPIC_STREAM.slice(0, ANTHROPIC_STREAM.indexOf('event: ping')),
      ev('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_X', name: 'f', input: { a: [1, 2] } },
      }),
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } }),
      ev('message_stop', {}),
    ].join('');
    expect(assembleOpenAi(feed(new AnthropicToOpenAiStream(), Buffer.from(stream), [])).calls).toEqual([
      { id: 'toolu_X', name: 'f', arguments: '{"a":[1,2]}' },
    ]);
  });
});

// ---- OpenAI -> Anthropic

const OPENAI_STREAM = [
  chunk({ role: 'assistant', content: '', refusal: null }),
  chunk({ reasoning_content: 'Need both ' }),
  chunk({ reasoning_content: 'cities.' }),
  chunk({ content: 'Looking ' }),
  chunk({ content: 'up — 天気.' }),
  chunk({
    tool_calls: [
      { index: 0, id: 'call_A', type: 'function', function: { name: 'get_weather', arguments: '' } },
    ],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Paris"}' } }] }),
  chunk({
    tool_calls: [
      { index: 1, id: 'call_B', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } },
    ],
  }),
  chunk({ tool_calls: [{ index: 1, function: { arguments: '"Oslo"}' } }] }),
  chunk({}, 'tool_calls'),
  `data: ${JSON.stringify({
    id: 'chatcmpl-42',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'gpt-4o-2024-08-06',
    choices: [],
    usage: {
      prompt_tokens: 1200,
      completion_tokens: 64,
      total_tokens: 1264,
      prompt_tokens_details: { cached_tokens: 1024 },
      completion_tokens_details: { reasoning_tokens: 20 },
    },
  })}\n\n`,
  'data: [DONE]\n\n',
].join('');

describe('OpenAiToAnthropicStream', () => {
  const bytes = Buffer.from(OPENAI_STREAM);
  const make = () => new OpenAiToAnthropicStream({ model: 'claude-sonnet-4-5', estimatedInputTokens: 1180 });

  it('writes a valid Anthropic event sequence with thinking, text, tool_use fragments and final usage', () => {
    const t = make();
    const out = feed(t, bytes, []);
    const message = assembleAnthropic(out);
    expect(message).toEqual({
      id: 'msg_42',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'thinking', thinking: 'Need both cities.', signature: '' },
        { type: 'text', text: 'Looking up — 天気.' },
        { type: 'tool_use', id: 'call_A', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'call_B', name: 'get_weather', input: { city: 'Oslo' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 176,
        output_tokens: 64,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 1024,
        output_tokens_details: { thinking_tokens: 20 },
      },
    });
    // message_start announces the gateway's estimate until the real count arrives.
    expect(JSON.parse(events(out)[0]?.data ?? '{}').message.usage.input_tokens).toBe(1180);
    expect(t.usage).toMatchObject({
      inputTokens: 1200,
      outputTokens: 64,
      cachedReadTokens: 1024,
      reasoningTokens: 20,
    });
    expect(t.completed).toBe(true);
  });

  it('writes the same bytes for every chunking: whole, byte by byte, random splits', () => {
    const whole = feed(make(), bytes, []);
    expect(
      feed(
        make(),
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(whole);
    for (const seed of [3, 99, 2024])
      expect(feed(make(), bytes, randomCuts(bytes.length, seed))).toEqual(whole);
  });

  it('waits for the relay count when the upstream sent no usage', () => {
    const noUsage = OPENAI_STREAM.replace(/data: \{[^\n]*"usage"[^\n]*\n\n/, '');
    const t = make();
    const body = Buffer.from(noUsage);
    const beforeEnd = t.write(body);
    expect(events(beforeEnd).map((e) => e.event)).not.toContain('message_delta');
    const fallback = { ...emptyUsage(), inputTokens: 1180, outputTokens: 30, estimated: true };
    const rest = t.end(fallback);
    const message = assembleAnthropic(Buffer.concat([beforeEnd, rest]));
    expect(message.usage).toMatchObject({ input_tokens: 1180, output_tokens: 30 });
    expect(t.usage).toBeNull();
  });

  it('keeps interleaved parallel call fragments apart and splits calls that reuse index 0', () => {
    const interleaved = [
      chunk({
        tool_calls: [{ index: 0, id: 'c0', type: 'function', function: { name: 'a', arguments: '{"x"' } }],
      }),
      chunk({
        tool_calls: [{ index: 1, id: 'c1', type: 'function', function: { name: 'b', arguments: '{"y"' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ':2}' } }] }),
      chunk({
        tool_calls: [{ index: 0, id: 'c2', type: 'function', function: { name: 'c', arguments: '{}' } }],
      }),
      chunk({}, 'tool_calls', { usage: { prompt_tokens: 5, completion_tokens: 5 } }),
      'data: [DONE]\n\n',
    ].join('');
    const message = assembleAnthropicLoose(feed(make(), Buffer.from(interleaved), []));
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'c0', name: 'a', input: { x: 1 } },
      { type: 'tool_use', id: 'c1', name: 'b', input: { y: 2 } },
      { type: 'tool_use', id: 'c2', name: 'c', input: {} },
    ]);
  });

  it('maps finish reasons, ends without [DONE] after a finish, and turns an error chunk into an error event', () => {
    const length = [
      chunk({ content: 'abc' }),
      chunk({}, 'length', { usage: { prompt_tokens: 3, completion_tokens: 9 } }),
    ].join('');
    const t = make();
    const message = assembleAnthropic(feed(t, Buffer.from(length), []));
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.usage).toMatchObject({ input_tokens: 3, output_tokens: 9 });

    const failing = `${chunk({ content: 'partial' })}data: ${JSON.stringify({ error: { message: 'The server had an error', type: 'server_error', param: null, code: null } })}\n\n`;
    const f = make();
    const out = events(feed(f, Buffer.from(failing), []));
    expect(out.at(-1)).toEqual({
      event: 'error',
      data: JSON.stringify({
        type: 'error',
        error: { type: 'api_error', message: 'The server had an error' },
      }),
    });
    expect(f.completed).toBe(false);
    expect(f.error?.message).toBe('The server had an error');
    expect(events(f.errorEvent({ status: 429, message: 'slow down' }))[0]).toEqual({
      event: 'error',
      data: '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}',
    });
  });
});

/** Like assembleAnthropic, without the one-open-block check (parallel tool blocks may interleave). */
function assembleAnthropicLoose(bytes: Buffer) {
  const payloads = events(bytes).map((e) => JSON.parse(e.data));
  const blocks: Record<string, unknown>[] = [];
  const json: string[] = [];
  for (const p of payloads) {
    if (p.type === 'content_block_start') {
      blocks[p.index] = { ...p.content_block };
      json[p.index] = '';
    } else if (p.type === 'content_block_delta' && p.delta.type === 'input_json_delta')
      json[p.index] += p.delta.partial_json;
    else if (p.type === 'content_block_stop') {
      const b = blocks[p.index] as Record<string, unknown>;
      b.input = JSON.parse(json[p.index] || '{}');
    }
  }
  expect(payloads.at(-1).type).toBe('message_stop');
  return { content: blocks };
}
