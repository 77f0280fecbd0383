import * as domain from '@switchyard/domain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZodType } from 'zod';
import { AnthropicStreamMeter } from '../providers/anthropic/stream-meter.js';
import { GeminiStreamMeter } from '../providers/gemini/stream-meter.js';
import { OpenAiStreamMeter } from '../providers/openai/stream-meter.js';
import {
  anthropicToOpenAiRequest,
  openAiToAnthropicRequest,
} from '../providers/translate/openai-anthropic-request.js';
import {
  anthropicToOpenAiResponse,
  openAiToAnthropicResponse,
} from '../providers/translate/openai-anthropic-response.js';
import {
  AnthropicToOpenAiStream,
  OpenAiToAnthropicStream,
} from '../providers/translate/openai-anthropic-stream.js';
import {
  geminiToOpenAiRequest,
  openAiToGeminiRequest,
} from '../providers/translate/openai-gemini-request.js';
import {
  geminiToOpenAiResponse,
  openAiToGeminiResponse,
} from '../providers/translate/openai-gemini-response.js';
import { GeminiToOpenAiStream, OpenAiToGeminiStream } from '../providers/translate/openai-gemini-stream.js';
import { chatToResponsesResponse, responsesToChatRequest } from '../providers/translate/responses-chat.js';
import { ChatToResponsesStream } from '../providers/translate/responses-chat-stream.js';
import { SseReader } from '../providers/translate/sse-framing.js';
import type { StreamTranslator } from '../providers/translate/stream-translator.js';
import { TranslationError } from '../providers/translate/translation-error.js';

// Property-based fuzzing (issue #25): the SSE parsers, the protocol translators and every zod
// schema of domain/src/schemas take any input without an unexpected exception, and the stream
// readers give the same result however the bytes are cut. Bounded: the file runs in seconds.

const RUNS = { numRuns: 400 };

// Field names and values of the three wire protocols, so generated bodies reach deep branches
// instead of stopping at "not an object".
const KEYS = [
  'model',
  'messages',
  'role',
  'content',
  'type',
  'text',
  'image_url',
  'url',
  'detail',
  'tools',
  'tool_calls',
  'tool_call_id',
  'tool_choice',
  'function',
  'name',
  'arguments',
  'parameters',
  'input',
  'id',
  'stream',
  'max_tokens',
  'temperature',
  'system',
  'thinking',
  'budget_tokens',
  'reasoning_effort',
  'contents',
  'parts',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'generationConfig',
  'systemInstruction',
  'candidates',
  'finishReason',
  'usageMetadata',
  'promptTokenCount',
  'candidatesTokenCount',
  'choices',
  'delta',
  'message',
  'finish_reason',
  'usage',
  'prompt_tokens',
  'completion_tokens',
  'index',
  'stop_reason',
  'source',
  'data',
  'media_type',
  'tool_use_id',
  'instructions',
  'output',
  'reasoning',
  'reasoning_content',
  'thought',
  'input_tokens',
  'output_tokens',
  'content_block',
  'stop_sequence',
  'response_format',
  'json_schema',
  'schema',
  'error',
  'n',
  'stop',
  'response_id',
  'previous_response_id',
  'max_output_tokens',
];
const WORDS = [
  'user',
  'assistant',
  'system',
  'tool',
  'developer',
  'model',
  'function',
  'text',
  'image_url',
  'image',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'input_text',
  'input_image',
  'output_text',
  'function_call',
  'function_call_output',
  'message',
  'stop',
  'length',
  'tool_calls',
  'end_turn',
  'max_tokens',
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'auto',
  'none',
  'required',
  'high',
  'low',
  'medium',
  'json_object',
  'json_schema',
  'base64',
  'data:image/png;base64,iVBORw0KGgo=',
  'data:,',
  'https://img.example/a.png',
  '{"a":1}',
  '{',
  '',
  '\u0000',
  '\ud800',
];

const { value: shaped } = fc.letrec<{
  value: unknown;
  leaf: unknown;
  array: unknown[];
  object: Record<string, unknown>;
}>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('array'), tie('object')),
  leaf: fc.oneof(
    fc.constantFrom(...WORDS),
    fc.string({ maxLength: 12 }),
    fc.integer({ min: -5, max: 100_000 }),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 6 }),
}));
const body = fc.dictionary(fc.constantFrom(...KEYS), shaped, { maxKeys: 8 });

/** Runs `fn`; only a TranslationError (the client's 400) may come out. */
function translates(fn: () => unknown): void {
  try {
    const out = fn();
    JSON.stringify(out);
  } catch (err) {
    if (!(err instanceof TranslationError)) throw err;
  }
}

/** Cuts `bytes` at the given points (taken modulo its length). */
function cut(bytes: Buffer, points: number[]): Buffer[] {
  const at = [...new Set(points.map((p) => (bytes.length ? p % bytes.length : 0)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of at) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  out.push(bytes.subarray(from));
  return out;
}

const EVENT_NAMES = [
  '',
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
];
/** An SSE stream of plausible events (any protocol), with the odd broken line. */
const sseStream = fc
  .array(
    fc.oneof(
      fc.record({ event: fc.constantFrom(...EVENT_NAMES), data: body.map((b) => JSON.stringify(b)) }),
      fc.record({ event: fc.constant(''), data: fc.constantFrom('[DONE]', '{', ': comment', '') }),
    ),
    { maxLength: 8 },
  )
  .chain((events) =>
    fc
      .constantFrom('\n', '\r\n')
      .map((eol) =>
        Buffer.from(
          events
            .map((e) => `${e.event ? `event: ${e.event}${eol}` : ''}data: ${e.data}${eol}${eol}`)
            .join(''),
          'utf8',
        ),
      ),
  );
const cuts = fc.array(fc.nat(), { maxLength: 6 });

describe('SSE readers', () => {
  it('give the same events however the bytes are cut', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          sseStream,
          fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
        ),
        cuts,
        (bytes, points) => {
          const whole = new SseReader().push(bytes);
          const reader = new SseReader();
          const pieces = cut(bytes, points).flatMap((c) => reader.push(c));
          expect(pieces.map((e) => [e.event, e.data.toString('hex')])).toEqual(
            whole.map((e) => [e.event, e.data.toString('hex')]),
          );
        },
      ),
      RUNS,
    );
  });

  it('meter the same usage and text however the bytes are cut', () => {
    const meters = [
      () => new OpenAiStreamMeter(),
      () => new AnthropicStreamMeter(),
      () => new GeminiStreamMeter(),
    ];
    fc.assert(
      fc.property(sseStream, cuts, fc.nat({ max: 2 }), (bytes, points, which) => {
        const whole = meters[which]!();
        whole.write(bytes);
        whole.end();
        const pieces = meters[which]!();
        for (const c of cut(bytes, points)) pieces.write(c);
        pieces.end();
        expect(pieces.usage).toEqual(whole.usage);
        expect(pieces.completionText()).toBe(whole.completionText());
      }),
      RUNS,
    );
  });
});

describe('stream translators', () => {
  const translators: [string, () => StreamTranslator][] = [
    [
      'anthropic -> openai',
      () => new AnthropicToOpenAiStream({ model: 'm', created: 1, includeUsage: true }),
    ],
    ['openai -> anthropic', () => new OpenAiToAnthropicStream({ model: 'm', estimatedInputTokens: 3 })],
    ['gemini -> openai', () => new GeminiToOpenAiStream({ model: 'm', created: 1, includeUsage: true })],
    ['openai -> gemini', () => new OpenAiToGeminiStream({ model: 'm' })],
    ['chat -> responses', () => new ChatToResponsesStream({ model: 'm', request: {}, createdAt: 1 })],
  ];
  for (const [name, make] of translators) {
    it(`${name}: any stream, cut anywhere, gives the same bytes and never an unexpected error`, () => {
      fc.assert(
        fc.property(sseStream, cuts, (bytes, points) => {
          const run = (chunks: Buffer[]) => {
            const t = make();
            const out: Buffer[] = [];
            try {
              for (const c of chunks) out.push(t.write(c));
              out.push(t.end());
              out.push(t.errorEvent({ status: 502, message: 'x' }));
            } catch (err) {
              if (!(err instanceof TranslationError)) throw err;
              return `TranslationError ${(err as Error).message}`;
            }
            // Ids some translators mint at random are masked.
            return Buffer.concat(out)
              .toString('utf8')
              .replace(/"(id|item_id|response_id|call_id)":"[^"]*"/g, '"$1":"<id>"')
              .replace(/(msg|chatcmpl|resp|rs|fc|call|toolu)_[A-Za-z0-9]+/g, '$1_<id>');
          };
          expect(run(cut(bytes, points))).toBe(run([bytes]));
        }),
        RUNS,
      );
    });
  }
});

describe('request and reply translators', () => {
  const cases: [string, (b: Record<string, unknown>) => unknown][] = [
    ['openai -> anthropic request', (b) => openAiToAnthropicRequest(b, { model: 'claude-x' })],
    ['anthropic -> openai request', (b) => anthropicToOpenAiRequest(b, { model: 'gpt-x' })],
    ['openai -> gemini request', (b) => openAiToGeminiRequest(b, { model: 'gemini-3-pro' })],
    ['gemini -> openai request', (b) => geminiToOpenAiRequest(b, { model: 'gpt-x', stream: true })],
    ['responses -> chat request', (b) => responsesToChatRequest(b, { model: 'gpt-x' })],
    ['anthropic -> openai reply', (b) => anthropicToOpenAiResponse(b, { model: 'm', created: 1 })],
    ['openai -> anthropic reply', (b) => openAiToAnthropicResponse(b, { model: 'm' })],
    ['gemini -> openai reply', (b) => geminiToOpenAiResponse(b, { model: 'm', created: 1 })],
    ['openai -> gemini reply', (b) => openAiToGeminiResponse(b, { model: 'm' })],
    ['chat -> responses reply', (b) => chatToResponsesResponse(b, {}, { model: 'm', createdAt: 1 })],
  ];
  for (const [name, translate] of cases) {
    it(`${name}: any body gives JSON or a TranslationError`, () => {
      fc.assert(
        fc.property(body, (b) => translates(() => translate(b as Record<string, unknown>))),
        RUNS,
      );
    });
  }
});

describe('domain schemas', () => {
  const schemas = Object.entries(domain).filter(([, v]) => v instanceof ZodType) as [string, ZodType][];

  it('are all found', () => {
    // Every schema module of domain/src/schemas exports at least one.
    expect(schemas.length).toBeGreaterThan(20);
  });

  it('answer any input with a result, never an exception', () => {
    fc.assert(
      fc.property(fc.constantFrom(...schemas), fc.oneof(fc.anything(), body, shaped), ([, schema], input) => {
        const result = schema.safeParse(input);
        expect(typeof result.success).toBe('boolean');
        if (!result.success) expect(result.error.issues.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });
});
