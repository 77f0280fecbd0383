import { describe, expect, it } from 'vitest';
import { claudeStreamEvents } from '../../test/claude-events.js';
import { bedrockChunk, bedrockException } from '../../test/event-stream-encoder.js';
import { AnthropicStreamMeter } from '../anthropic/stream-meter.js';
import { AnthropicToOpenAiStream } from '../translate/openai-anthropic.js';
import { BedrockStreamDecoder } from './stream.js';

function frames(events: Record<string, unknown>[]): Buffer {
  return Buffer.concat(
    events.map((e) =>
      bedrockChunk(
        e.type === 'message_stop'
          ? { ...e, 'amazon-bedrock-invocationMetrics': { inputTokenCount: 10, outputTokenCount: 3 } }
          : e,
      ),
    ),
  );
}

describe('Bedrock stream -> Anthropic SSE', () => {
  const events = claudeStreamEvents('msg_1', 'anthropic.claude-x', {
    content: 'Hello there friend',
    inputTokens: 7,
    cacheReadTokens: 20,
    toolCalls: [{ name: 'lookup', input: { q: 'x' } }],
  });

  it('gives the Anthropic events the stream meter bills from, in any chunking', () => {
    const bytes = frames(events);
    for (const size of [1, 7, 64, bytes.length]) {
      const dec = new BedrockStreamDecoder();
      const meter = new AnthropicStreamMeter();
      for (let i = 0; i < bytes.length; i += size) meter.write(dec.write(bytes.subarray(i, i + size)));
      meter.end();
      expect(dec.done).toBe(true);
      expect(dec.error).toBeNull();
      expect(meter.done).toBe(true);
      expect(meter.messageId).toBe('msg_1');
      expect(meter.stopReason).toBe('tool_use');
      expect(meter.usage).toMatchObject({ inputTokens: 27, cachedReadTokens: 20, outputTokens: 4 });
    }
  });

  it('writes SSE an Anthropic client reads, without Bedrock metrics', () => {
    const dec = new BedrockStreamDecoder();
    const text = dec.write(frames(events)).toString();
    expect(text.startsWith('event: message_start\ndata: {"type":"message_start"')).toBe(true);
    expect(text).toContain('event: content_block_delta\ndata: ');
    expect(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    expect(text).not.toContain('amazon-bedrock');
  });

  it('feeds the Anthropic -> OpenAI translator: text, tool call arguments and usage', () => {
    const dec = new BedrockStreamDecoder();
    const tr = new AnthropicToOpenAiStream({ model: 'claude-x', includeUsage: true, created: 1 });
    const out = Buffer.concat([tr.write(dec.write(frames(events))), tr.end()]).toString();
    const chunks = out
      .split('\n\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)));
    const text = chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('');
    const args = chunks
      .map((c) => c.choices?.[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '')
      .join('');
    expect(text).toBe('Hello there friend');
    expect(JSON.parse(args)).toEqual({ q: 'x' });
    expect(chunks.at(-1).usage).toMatchObject({ prompt_tokens: 27, completion_tokens: 4 });
    expect(out.trim().endsWith('data: [DONE]')).toBe(true);
  });

  it('turns an exception frame into an Anthropic error event and a status', () => {
    const dec = new BedrockStreamDecoder();
    const meter = new AnthropicStreamMeter();
    const bytes = Buffer.concat([
      frames(events.slice(0, 2)),
      bedrockException('throttlingException', 'Too many requests, please wait before trying again.'),
    ]);
    meter.write(dec.write(bytes));
    expect(dec.error).toEqual({
      status: 429,
      message: 'Too many requests, please wait before trying again.',
      type: 'throttlingException',
      code: 'throttlingException',
      param: null,
    });
    expect(meter.error).toMatchObject({
      type: 'rate_limit_error',
      message: 'Too many requests, please wait before trying again.',
    });
    expect(dec.done).toBe(false);
  });

  it('maps a model stream error to 424 and an unknown exception to 500', () => {
    const a = new BedrockStreamDecoder();
    a.write(bedrockException('modelStreamErrorException', 'model failed'));
    expect(a.error?.status).toBe(424);
    const b = new BedrockStreamDecoder();
    b.write(bedrockException('somethingNewException', 'new'));
    expect(b.error?.status).toBe(500);
  });
});
