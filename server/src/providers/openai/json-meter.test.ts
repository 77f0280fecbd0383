import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyUsage } from '../../billing/pricing/usage.js';
import { jsonCompletionText, readJsonUsage } from './json-meter.js';

const chatReply = {
  id: 'chatcmpl-B9',
  object: 'chat.completion',
  created: 1730000000,
  model: 'gpt-4o-2024-08-06',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Hi! The "usage": {"prompt_tokens": 999} field is yours.',
        refusal: null,
      },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 12,
    completion_tokens: 9,
    total_tokens: 21,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  },
  service_tier: 'default',
  system_fingerprint: 'fp_45cf54deae',
};

const b = (v: unknown, space?: number) => Buffer.from(JSON.stringify(v, null, space));

/** Spies on JSON.parse and reports the longest text it was given. */
function watchParse(): () => number {
  const spy = vi.spyOn(JSON, 'parse');
  return () => Math.max(0, ...spy.mock.calls.map((c) => String(c[0]).length));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('readJsonUsage', () => {
  it('reads chat usage followed by more members, in compact and pretty form', () => {
    const expected = { ...emptyUsage(), inputTokens: 12, outputTokens: 9 };
    expect(readJsonUsage(b(chatReply))).toEqual(expected);
    expect(readJsonUsage(b(chatReply, 2))).toEqual(expected);
    const { service_tier: _s, system_fingerprint: _f, ...usageLast } = chatReply;
    expect(readJsonUsage(b(usageLast))).toEqual(expected);
  });

  it('finds usage in the tail of a large body without parsing the body', () => {
    const image = Buffer.alloc(15_000_000, 3).toString('base64');
    const body = b({
      created: 1730000000,
      data: [{ b64_json: image }, { b64_json: image }],
      usage: {
        input_tokens: 50,
        input_tokens_details: { text_tokens: 10, image_tokens: 40 },
        output_tokens: 4160,
        total_tokens: 4210,
      },
    });
    const longestParse = watchParse();
    const started = performance.now();
    const usage = readJsonUsage(body);
    const elapsed = performance.now() - started;
    expect(usage).toEqual({
      ...emptyUsage(),
      inputTokens: 50,
      outputTokens: 4160,
      inputImageTokens: 40,
      outputImageTokens: 4160,
    });
    expect(longestParse()).toBeLessThan(500);
    // A full parse of this body takes tens of milliseconds; the tail scan about one.
    expect(elapsed).toBeLessThan(50);
  });

  it('answers null for a large body without usage, also without parsing it', () => {
    const body = b({
      created: 1,
      data: [{ b64_json: Buffer.alloc(5_000_000).toString('base64'), revised_prompt: 'a cat' }],
    });
    const longestParse = watchParse();
    expect(readJsonUsage(body)).toBeNull();
    expect(longestParse()).toBe(0);
  });

  it('ignores "usage" inside strings, before and after the real one', () => {
    const reply = {
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'See "usage": {"prompt_tokens": 1} and \\"usage\\"' },
        },
      ],
    };
    expect(readJsonUsage(b(reply))).toEqual({ ...emptyUsage(), inputTokens: 3, outputTokens: 4 });
  });

  it('falls back to a full parse when the last usage key is nested', () => {
    const nested = { object: 'list', data: [{ usage: { prompt_tokens: 100 } }], model: 'x' };
    expect(readJsonUsage(b(nested))).toBeNull();
    const both = {
      usage: { prompt_tokens: 5, total_tokens: 5 },
      data: [{ index: 0, usage: { prompt_tokens: 100 } }],
    };
    expect(readJsonUsage(b(both))).toEqual({ ...emptyUsage(), inputTokens: 5 });
  });

  it('handles null usage, non-JSON and truncated bodies', () => {
    expect(readJsonUsage(b({ id: 'x', usage: null }))).toBeNull();
    expect(readJsonUsage(Buffer.from('<html>"usage": oops</html>'))).toBeNull();
    expect(readJsonUsage(Buffer.from('{"id":"x","usage":{"prompt_tokens":1'))).toBeNull();
    expect(readJsonUsage(Buffer.alloc(0))).toBeNull();
  });

  it('reads embeddings, rerank and token-billed transcription usage', () => {
    expect(
      readJsonUsage(
        b({
          object: 'list',
          data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
          model: 'text-embedding-3-small',
          usage: { prompt_tokens: 8, total_tokens: 8 },
        }),
      ),
    ).toEqual({ ...emptyUsage(), inputTokens: 8 });
    expect(
      readJsonUsage(b({ model: 'r', usage: { total_tokens: 21, prompt_tokens: 21 }, results: [] }))
        ?.inputTokens,
    ).toBe(21);
    expect(
      readJsonUsage(
        b({
          text: 'hello',
          usage: {
            type: 'tokens',
            input_tokens: 14,
            input_token_details: { audio_tokens: 14 },
            output_tokens: 2,
            total_tokens: 16,
          },
        }),
      ),
    ).toEqual({ ...emptyUsage(), inputTokens: 14, outputTokens: 2, inputAudioTokens: 14 });
  });
});

describe('jsonCompletionText', () => {
  it('reads chat content, reasoning and tool calls, and completions text', () => {
    expect(jsonCompletionText(b(chatReply))).toBe(chatReply.choices[0]?.message.content);
    const tools = {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            reasoning_content: 'plan ',
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
          },
        },
      ],
    };
    expect(jsonCompletionText(b(tools))).toBe('plan lookup{"q":"x"}');
    expect(
      jsonCompletionText(b({ object: 'text_completion', choices: [{ text: 'one' }, { text: 'two' }] })),
    ).toBe('onetwo');
  });

  it('reads Responses output and transcription text', () => {
    const responses = {
      object: 'response',
      output: [
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'why ' }] },
        { type: 'message', content: [{ type: 'output_text', text: 'answer' }] },
        { type: 'function_call', name: 'f', arguments: '{}' },
      ],
    };
    expect(jsonCompletionText(b(responses))).toBe('why answerf{}');
    expect(jsonCompletionText(b({ text: 'transcribed' }))).toBe('transcribed');
    expect(jsonCompletionText(Buffer.from('not json'))).toBe('');
  });
});
