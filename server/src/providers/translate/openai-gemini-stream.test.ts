import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../billing/pricing/usage.js';
import { GeminiToOpenAiStream, OpenAiToGeminiStream } from './openai-gemini.js';
import { SseReader } from './sse-framing.js';
import type { StreamTranslator } from './stream-translator.js';

function gev(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\r\n\r\n`;
}

function chunk(
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
): string {
  return `data: ${JSON.stringify({
    id: 'chatcmpl-7',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  })}\n\n`;
}

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

function datas(bytes: Buffer): string[] {
  const reader = new SseReader();
  return [...reader.push(bytes), ...reader.end()].map((e) => e.data.toString('utf8'));
}

// ---- Gemini -> OpenAI

const base = { modelVersion: 'gemini-2.5-flash', responseId: 'r-9' };
const GEMINI_STREAM = [
  gev({
    candidates: [{ content: { role: 'model', parts: [{ text: 'Considering ', thought: true }] }, index: 0 }],
    usageMetadata: { promptTokenCount: 300, totalTokenCount: 300 },
    ...base,
  }),
  gev({
    candidates: [{ content: { role: 'model', parts: [{ text: 'both cities.', thought: true }] }, index: 0 }],
    usageMetadata: { promptTokenCount: 300, totalTokenCount: 300 },
    ...base,
  }),
  gev({
    candidates: [
      { content: { role: 'model', parts: [{ text: 'Sure — ', thoughtSignature: 'Q2lJQg==' }] }, index: 0 },
    ],
    usageMetadata: { promptTokenCount: 300, candidatesTokenCount: 2, totalTokenCount: 302 },
    ...base,
  }),
  gev({
    candidates: [
      {
        content: {
          role: 'model',
          parts: [
            { text: 'calling tools.' },
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { name: 'get_weather', args: { city: 'Oslo', days: [1, 2] } } },
          ],
        },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: 300,
      candidatesTokenCount: 20,
      thoughtsTokenCount: 80,
      cachedContentTokenCount: 256,
      totalTokenCount: 400,
    },
    ...base,
  }),
].join('');

function assembleOpenAi(bytes: Buffer) {
  let content = '';
  let reasoning = '';
  let finish: string | null = null;
  let usage: unknown = null;
  let done = false;
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const d of datas(bytes)) {
    if (d === '[DONE]') {
      done = true;
      continue;
    }
    const c = JSON.parse(d);
    if (c.usage) usage = c.usage;
    for (const choice of c.choices ?? []) {
      content += choice.delta.content ?? '';
      reasoning += choice.delta.reasoning_content ?? '';
      for (const tc of choice.delta.tool_calls ?? []) {
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

describe('GeminiToOpenAiStream', () => {
  const bytes = Buffer.from(GEMINI_STREAM);
  const make = () => new GeminiToOpenAiStream({ includeUsage: true, created: 1700000000 });

  it('writes OpenAI chunks with reasoning, text, whole tool calls, tool_calls finish, usage and [DONE]', () => {
    const t = make();
    const out = feed(t, bytes, []);
    const a = assembleOpenAi(out);
    expect(a.content).toBe('Sure — calling tools.');
    expect(a.reasoning).toBe('Considering both cities.');
    expect(a.calls.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual([
      { name: 'get_weather', arguments: '{"city":"Paris"}' },
      { name: 'get_weather', arguments: '{"city":"Oslo","days":[1,2]}' },
    ]);
    expect(a.calls[0]?.id).toMatch(/^call_/);
    expect(a.calls[0]?.id).not.toBe(a.calls[1]?.id);
    expect(a.finish).toBe('tool_calls');
    expect(a.usage).toEqual({
      prompt_tokens: 300,
      completion_tokens: 100,
      total_tokens: 400,
      prompt_tokens_details: { cached_tokens: 256, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 80, audio_tokens: 0 },
    });
    expect(a.done).toBe(true);
    expect(JSON.parse(datas(out)[0] ?? '{}')).toMatchObject({
      id: 'chatcmpl-r-9',
      model: 'gemini-2.5-flash',
    });
    expect(out.toString()).not.toContain('Q2lJQg==');
    expect(t.usage).toEqual({
      ...emptyUsage(),
      inputTokens: 300,
      outputTokens: 100,
      cachedReadTokens: 256,
      reasoningTokens: 80,
    });
    expect(t.completed).toBe(true);
  });

  it('writes the same bytes for every chunking, and the same call ids for the same reply', () => {
    const whole = feed(make(), bytes, []);
    expect(
      feed(
        make(),
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(whole);
    for (const seed of [5, 77, 31337])
      expect(feed(make(), bytes, randomCuts(bytes.length, seed))).toEqual(whole);
  });

  it('does not end a stream that broke before its finish, and passes a mid-stream error on', () => {
    const firstTwo = GEMINI_STREAM.split('\r\n\r\n').slice(0, 2).join('\r\n\r\n');
    const t = make();
    const out = feed(
      t,
      Buffer.from(
        `${firstTwo}\r\n\r\n${gev({ error: { code: 500, message: 'Internal error', status: 'INTERNAL' } })}`,
      ),
      [],
    );
    const list = datas(out);
    expect(list).not.toContain('[DONE]');
    expect(JSON.parse(list.at(-1) ?? '{}')).toEqual({
      error: { message: 'Internal error', type: 'INTERNAL', code: 'INTERNAL', param: null },
    });
    expect(t.completed).toBe(false);
    expect(t.error?.type).toBe('INTERNAL');
  });

  it('finishes a blocked prompt as content_filter', () => {
    const blocked = gev({
      promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
      usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
      ...base,
    });
    const a = assembleOpenAi(feed(make(), Buffer.from(blocked), []));
    expect(a).toMatchObject({ content: '', finish: 'content_filter', done: true });
  });
});

// ---- OpenAI -> Gemini

const OPENAI_STREAM = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ reasoning_content: 'Plan: ' }),
  chunk({ reasoning_content: 'call search.' }),
  chunk({ content: 'Searching ' }),
  chunk({ content: 'now…' }),
  chunk({
    tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'search', arguments: '' } }],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"cats"}' } }] }),
  chunk({
    tool_calls: [
      { index: 1, id: 'call_2', type: 'function', function: { name: 'open', arguments: '{"n":1}' } },
    ],
  }),
  chunk({}, 'tool_calls'),
  chunk({}, null, {
    choices: [],
    usage: {
      prompt_tokens: 50,
      completion_tokens: 40,
      total_tokens: 90,
      prompt_tokens_details: { cached_tokens: 32 },
      completion_tokens_details: { reasoning_tokens: 12 },
    },
  }),
  'data: [DONE]\n\n',
].join('');

describe('OpenAiToGeminiStream', () => {
  const bytes = Buffer.from(OPENAI_STREAM);
  const make = () => new OpenAiToGeminiStream({ model: 'gemini-2.5-pro' });

  it('writes Gemini responses: thought and text parts as they come, whole calls, finish with usage', () => {
    const t = make();
    const out = feed(t, bytes, []);
    expect(out.toString()).toMatch(/\r\n\r\n$/);
    const responses = datas(out).map((d) => JSON.parse(d));
    const parts = responses.flatMap((r) => r.candidates[0].content.parts);
    expect(parts).toEqual([
      { text: 'Plan: ', thought: true },
      { text: 'call search.', thought: true },
      { text: 'Searching ' },
      { text: 'now…' },
      { functionCall: { name: 'search', args: { q: 'cats' } } },
      { functionCall: { name: 'open', args: { n: 1 } } },
      { text: '' },
    ]);
    for (const r of responses) expect(r).toMatchObject({ modelVersion: 'gemini-2.5-pro', responseId: '7' });
    const last = responses.at(-1);
    expect(last.candidates[0].finishReason).toBe('STOP');
    expect(responses.slice(0, -1).every((r) => r.candidates[0].finishReason === undefined)).toBe(true);
    expect(last.usageMetadata).toEqual({
      promptTokenCount: 50,
      candidatesTokenCount: 28,
      thoughtsTokenCount: 12,
      cachedContentTokenCount: 32,
      totalTokenCount: 90,
    });
    expect(t.usage).toMatchObject({
      inputTokens: 50,
      outputTokens: 40,
      reasoningTokens: 12,
      cachedReadTokens: 32,
    });
    expect(t.completed).toBe(true);
  });

  it('writes the same bytes for every chunking', () => {
    const whole = feed(make(), bytes, []);
    expect(
      feed(
        make(),
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(whole);
    for (const seed of [8, 512]) expect(feed(make(), bytes, randomCuts(bytes.length, seed))).toEqual(whole);
  });

  it('waits for the relay count without upstream usage, and maps length', () => {
    const stream = [chunk({ content: 'abc' }), chunk({}, 'length'), 'data: [DONE]\n\n'].join('');
    const t = make();
    const early = t.write(Buffer.from(stream));
    expect(datas(early).map((d) => JSON.parse(d).candidates[0].finishReason)).toEqual([undefined]);
    const rest = datas(t.end({ ...emptyUsage(), inputTokens: 7, outputTokens: 3, estimated: true })).map(
      (d) => JSON.parse(d),
    );
    expect(rest).toHaveLength(1);
    expect(rest[0].candidates[0].finishReason).toBe('MAX_TOKENS');
    expect(rest[0].usageMetadata).toEqual({
      promptTokenCount: 7,
      candidatesTokenCount: 3,
      totalTokenCount: 10,
    });
  });

  it('turns an error chunk into a Google error event', () => {
    const t = make();
    const out = feed(
      t,
      Buffer.from(`${chunk({ content: 'x' })}data: {"error":{"message":"boom","type":"server_error"}}\n\n`),
      [],
    );
    expect(JSON.parse(datas(out).at(-1) ?? '{}')).toEqual({
      error: { code: 500, message: 'boom', status: 'INTERNAL' },
    });
    expect(t.completed).toBe(false);
    expect(datas(t.errorEvent({ status: 503, message: 'gone' }))[0]).toBe(
      '{"error":{"code":503,"message":"gone","status":"UNAVAILABLE"}}',
    );
  });
});
