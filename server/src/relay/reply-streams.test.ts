import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../billing/pricing/usage.js';
import { AnthropicToOpenAiStream } from '../providers/translate/openai-anthropic-stream.js';
import type { StreamReframer } from './channels/channel-transports.js';
import {
  anthropicPassthrough,
  GeminiArrayFraming,
  geminiPassthrough,
  openAiPassthrough,
  reframed,
  responsesPassthrough,
  translatedStream,
} from './reply-streams.js';

const event = (text: string, finish = false) =>
  `data: ${JSON.stringify({
    candidates: [
      { content: { role: 'model', parts: [{ text }] }, ...(finish ? { finishReason: 'STOP' } : {}) },
    ],
    usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 },
  })}\r\n\r\n`;

describe('GeminiArrayFraming', () => {
  const sse = Buffer.from(event('Bon') + event('jour', true));

  it('re-frames SSE events as one JSON array at any split, reading usage on the way', () => {
    for (let cut = 1; cut < sse.length; cut += 17) {
      const s = new GeminiArrayFraming(geminiPassthrough());
      const out = Buffer.concat([s.write(sse.subarray(0, cut)), s.write(sse.subarray(cut)), s.end(null)]);
      const array = JSON.parse(out.toString('utf8')) as {
        candidates: { content: { parts: { text: string }[] } }[];
      }[];
      expect(array.map((e) => e.candidates[0]?.content.parts[0]?.text)).toEqual(['Bon', 'jour']);
      expect(s.usage).toMatchObject({ inputTokens: 4, outputTokens: 2 });
    }
  });

  it('closes the array after an error object when the upstream breaks off', () => {
    const s = new GeminiArrayFraming(geminiPassthrough());
    const out = Buffer.concat([s.write(Buffer.from(event('Bon'))), s.brokenEvent()]);
    const array = JSON.parse(out.toString('utf8')) as Record<string, unknown>[];
    expect(array).toHaveLength(2);
    expect(array[1]).toMatchObject({ error: { code: 502 } });
    const empty = new GeminiArrayFraming(geminiPassthrough());
    expect(JSON.parse(empty.end({ ...emptyUsage() }).toString('utf8'))).toEqual([]);
  });
});

describe('reframed', () => {
  it('lets a transport turn its own framing into SSE before the meter reads it', () => {
    // A stand-in framing: one JSON document per line.
    let carry = '';
    const lines: StreamReframer = {
      write(chunk) {
        const parts = (carry + chunk.toString('utf8')).split('\n');
        carry = parts.pop() ?? '';
        return Buffer.from(parts.map((p) => `data: ${p}\r\n\r\n`).join(''));
      },
      end: () => Buffer.from(carry ? `data: ${carry}\r\n\r\n` : ''),
    };
    const s = reframed(geminiPassthrough(), lines);
    const docs = [event('a'), event('b', true)].map((e) => e.slice('data: '.length).trim()).join('\n');
    const out = Buffer.concat(
      [s.write(Buffer.from(docs.slice(0, 30))), s.write(Buffer.from(docs.slice(30))), s.end(null)].flat(),
    );
    expect(out.toString('utf8')).toBe(
      docs
        .split('\n')
        .map((d) => `data: ${d}\r\n\r\n`)
        .join(''),
    );
    expect(s.usage).toMatchObject({ inputTokens: 4, outputTokens: 2 });
    expect(s.completionText()).toBe('ab');
  });
});

describe('reply streams', () => {
  // V8's own answer (see reply-streams.ts for what a stream in dictionary mode cost).
  setFlagsFromString('--allow-natives-syntax');
  const fastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
  const lines: StreamReframer = { write: (chunk) => chunk, end: () => Buffer.alloc(0) };

  it('keep fast properties (no dictionary mode)', () => {
    const kinds: (() => object)[] = [
      () => openAiPassthrough(false),
      () => responsesPassthrough(),
      () => anthropicPassthrough(),
      () => geminiPassthrough(),
      () => translatedStream(new AnthropicToOpenAiStream()),
      () => reframed(geminiPassthrough(), lines),
    ];
    for (const make of kinds) expect(fastProperties(make())).toBe(true);
  });
});
