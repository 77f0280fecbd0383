import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../billing/pricing/usage.js';
import { geminiJsonText, readGeminiJsonUsage } from './json-meter.js';
import { GeminiStreamMeter } from './stream-meter.js';

function ev(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\r\n\r\n`;
}

const base = { modelVersion: 'gemini-2.5-flash', responseId: 'r1' };
const STREAM = [
  ev({
    candidates: [{ content: { role: 'model', parts: [{ text: 'Thinking… ', thought: true }] }, index: 0 }],
    usageMetadata: { promptTokenCount: 40, totalTokenCount: 45, thoughtsTokenCount: 5 },
    ...base,
  }),
  ev({
    candidates: [
      { content: { role: 'model', parts: [{ text: 'Bonjour ', thoughtSignature: 'sig' }] }, index: 0 },
    ],
    usageMetadata: {
      promptTokenCount: 40,
      candidatesTokenCount: 1,
      totalTokenCount: 46,
      thoughtsTokenCount: 5,
    },
    ...base,
  }),
  ev({
    candidates: [
      {
        content: { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'x' } } }] },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: 40,
      candidatesTokenCount: 9,
      totalTokenCount: 64,
      thoughtsTokenCount: 15,
      cachedContentTokenCount: 32,
    },
    ...base,
  }),
].join('');

describe('GeminiStreamMeter', () => {
  const bytes = Buffer.from(STREAM);
  const expected = {
    ...emptyUsage(),
    inputTokens: 40,
    outputTokens: 24,
    reasoningTokens: 15,
    cachedReadTokens: 32,
  };

  it('passes bytes through and takes the last usageMetadata at any split, byte by byte too', () => {
    for (let cut = 1; cut < bytes.length; cut += 5) {
      const meter = new GeminiStreamMeter();
      const a = bytes.subarray(0, cut);
      expect(meter.write(a)).toBe(a);
      meter.write(bytes.subarray(cut));
      meter.end();
      expect(meter.usage, `cut ${cut}`).toEqual(expected);
      expect(meter.done).toBe(true);
      expect(meter.events).toBe(3);
    }
    const meter = new GeminiStreamMeter();
    for (let i = 0; i < bytes.length; i++) meter.write(bytes.subarray(i, i + 1));
    meter.end();
    expect(meter.usage).toEqual(expected);
    expect(meter.completionText()).toBe('Thinking… Bonjour lookup{"q":"x"}');
  });

  it('is not done before a finish reason, and records an error object', () => {
    const meter = new GeminiStreamMeter();
    meter.write(Buffer.from(STREAM.split('\r\n\r\n')[0] ?? ''));
    meter.write(Buffer.from('\r\n\r\n'));
    expect(meter.done).toBe(false);
    meter.write(
      Buffer.from(
        ev({ error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } }),
      ),
    );
    meter.end();
    expect(meter.error).toMatchObject({ message: 'An internal error has occurred.', type: 'INTERNAL' });
    expect(meter.usage).toMatchObject({ inputTokens: 40, outputTokens: 5 });
  });

  it('does not take answer text that mentions finishReason for the end', () => {
    const meter = new GeminiStreamMeter();
    meter.write(
      Buffer.from(
        ev({ candidates: [{ content: { parts: [{ text: '"finishReason": "error"' }] }, index: 0 }] }),
      ),
    );
    expect(meter.done).toBe(false);
  });
});

describe('Gemini JSON meter', () => {
  it('reads usage and text of a reply', () => {
    const body = Buffer.from(
      JSON.stringify({
        candidates: [
          {
            content: { parts: [{ text: 'Hi' }, { functionCall: { name: 'f', args: {} } }] },
            finishReason: 'STOP',
          },
        ],
        usageMetadata: {
          promptTokenCount: 4,
          candidatesTokenCount: 2,
          thoughtsTokenCount: 3,
          totalTokenCount: 9,
        },
      }),
    );
    expect(readGeminiJsonUsage(body)).toMatchObject({ inputTokens: 4, outputTokens: 5, reasoningTokens: 3 });
    expect(geminiJsonText(body)).toBe('Hif{}');
  });
});
