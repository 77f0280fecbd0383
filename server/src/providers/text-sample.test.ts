import { describe, expect, it } from 'vitest';
import { OpenAiStreamMeter } from './openai/stream-meter.js';
import { CompletionTextSample } from './text-sample.js';

describe('CompletionTextSample', () => {
  it('keeps the whole text while it is short', () => {
    const s = new CompletionTextSample(100);
    s.pieces.push('hello ', 'world');
    expect(s.text()).toBe('hello world');
    expect(s.ratio()).toBe(1);
  });

  it('keeps a bounded sample of a long text and scales its count to the whole', () => {
    const s = new CompletionTextSample(10);
    for (let i = 0; i < 1000; i++) {
      s.pieces.push('abcde');
      s.settle();
    }
    expect(s.text()).toBe('abcdeabcde');
    expect(s.pieces.length).toBe(2);
    expect(s.ratio()).toBe(500);
  });

  it('bounds pieces pushed one by one, as the stream translators push them', () => {
    const s = new CompletionTextSample(8);
    for (let i = 0; i < 100; i++) s.push('ab', 'cd');
    expect(s.pieces.length).toBe(4);
    expect(s.text()).toBe('abcdabcd');
    expect(s.text().length * s.ratio()).toBe(400);
  });

  it('lets a meter estimate a long stream without usage from its sample', () => {
    const meter = new OpenAiStreamMeter({ maxRetainedBytes: 1024 });
    const event = `data: ${JSON.stringify({ choices: [{ delta: { content: 'x'.repeat(1000) } }] })}\n\n`;
    // 4 MiB of text: more than the sample keeps.
    for (let i = 0; i < 4 * 1024; i++) meter.write(Buffer.from(event));
    meter.end();
    const kept = meter.completionText().length;
    expect(kept).toBeLessThanOrEqual(1024 * 1024);
    expect(kept * meter.completionTextRatio()).toBe(4 * 1024 * 1000);
  });
});
