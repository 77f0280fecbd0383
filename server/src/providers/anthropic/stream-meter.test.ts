import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../billing/pricing/usage.js';
import { anthropicJsonText, readAnthropicJsonUsage } from './json-meter.js';
import { AnthropicStreamMeter } from './stream-meter.js';

function ev(name: string, payload: Record<string, unknown>): string {
  return `event: ${name}\ndata: ${JSON.stringify({ type: name, ...payload })}\n\n`;
}

const STREAM = [
  ev('message_start', {
    message: {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 12,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 2000,
        output_tokens: 1,
      },
    },
  }),
  ev('ping', {}),
  ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
  ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Let me think. ' } }),
  ev('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'c2lnbmF0dXJl' } }),
  ev('content_block_stop', { index: 0 }),
  ev('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
  ev('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Héllo 世界 ' } }),
  ev('content_block_stop', { index: 1 }),
  ev('content_block_start', {
    index: 2,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
  }),
  ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } }),
  ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }),
  ev('content_block_stop', { index: 2 }),
  ev('message_delta', {
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 57 },
  }),
  ev('message_stop', {}),
].join('');

describe('AnthropicStreamMeter', () => {
  const bytes = Buffer.from(STREAM);
  const expected = {
    ...emptyUsage(),
    inputTokens: 2112,
    outputTokens: 57,
    cachedReadTokens: 2000,
    cacheWriteTokens: 100,
  };

  it('passes every byte through and reads usage, stop reason and identity at any split', () => {
    for (let cut = 1; cut < bytes.length; cut += 7) {
      const meter = new AnthropicStreamMeter();
      const a = bytes.subarray(0, cut);
      const b = bytes.subarray(cut);
      expect(meter.write(a)).toBe(a);
      expect(meter.write(b)).toBe(b);
      meter.end();
      expect(meter.usage, `cut ${cut}`).toEqual(expected);
      expect(meter.done).toBe(true);
      expect(meter.stopReason).toBe('tool_use');
      expect(meter.messageId).toBe('msg_01');
      expect(meter.model).toBe('claude-sonnet-4-5');
      expect(meter.events).toBe(15);
      expect(meter.error).toBeNull();
    }
  });

  it('reads byte by byte and collects the text for counting', () => {
    const meter = new AnthropicStreamMeter();
    for (let i = 0; i < bytes.length; i++) meter.write(bytes.subarray(i, i + 1));
    meter.end();
    expect(meter.usage).toEqual(expected);
    expect(meter.completionText()).toBe('Let me think. Héllo 世界 get_weather{"city":"Paris"}');
  });

  it('keeps retained text bounded', () => {
    const meter = new AnthropicStreamMeter({ maxRetainedBytes: 500 });
    for (let i = 0; i < 100; i++) {
      meter.write(
        Buffer.from(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `w${i} ` } })),
      );
    }
    expect(meter.completionText()).toBe(Array.from({ length: 100 }, (_, i) => `w${i} `).join(''));
  });

  it('records an error event and a stream that stops before message_stop', () => {
    const meter = new AnthropicStreamMeter();
    meter.write(Buffer.from(STREAM.slice(0, STREAM.indexOf('event: content_block_start'))));
    meter.write(Buffer.from(ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })));
    meter.end();
    expect(meter.error).toEqual({ message: 'Overloaded', type: 'overloaded_error', code: null, param: null });
    expect(meter.done).toBe(false);
    expect(meter.usage).toMatchObject({ inputTokens: 2112, outputTokens: 1 });
  });

  it('understands streams whose event lines were dropped by a relay', () => {
    const meter = new AnthropicStreamMeter();
    meter.write(Buffer.from(STREAM.replace(/^event: .*\n/gm, '')));
    meter.end();
    expect(meter.usage).toEqual(expected);
    expect(meter.done).toBe(true);
  });
});

describe('Anthropic JSON meter', () => {
  it('reads usage and text of a Message', () => {
    const body = Buffer.from(
      JSON.stringify({
        id: 'msg_1',
        type: 'message',
        content: [
          { type: 'thinking', thinking: 'Hmm. ', signature: 'x' },
          { type: 'text', text: 'Hi' },
          { type: 'tool_use', id: 't', name: 'f', input: { a: 1 } },
        ],
        usage: { input_tokens: 3, cache_read_input_tokens: 7, output_tokens: 9 },
      }),
    );
    expect(readAnthropicJsonUsage(body)).toMatchObject({
      inputTokens: 10,
      cachedReadTokens: 7,
      outputTokens: 9,
    });
    expect(anthropicJsonText(body)).toBe('Hmm. Hif{"a":1}');
    expect(readAnthropicJsonUsage(Buffer.from('not json'))).toBeNull();
  });
});
