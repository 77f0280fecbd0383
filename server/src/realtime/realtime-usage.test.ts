import { describe, expect, it } from 'vitest';
import { fromRealtimeUsage } from './realtime-usage.js';

describe('fromRealtimeUsage', () => {
  it('reads the response.done usage of a text and audio reply', () => {
    const usage = fromRealtimeUsage({
      total_tokens: 253,
      input_tokens: 132,
      output_tokens: 121,
      input_token_details: {
        text_tokens: 119,
        audio_tokens: 13,
        image_tokens: 0,
        cached_tokens: 64,
        cached_tokens_details: { text_tokens: 64, audio_tokens: 0, image_tokens: 0 },
      },
      output_token_details: { text_tokens: 30, audio_tokens: 91 },
    });
    expect(usage).toEqual({
      inputTokens: 132,
      outputTokens: 121,
      cachedReadTokens: 64,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      inputAudioTokens: 13,
      outputAudioTokens: 91,
      inputImageTokens: 0,
      outputImageTokens: 0,
      estimated: false,
    });
  });

  it('counts cached audio once, as cached', () => {
    const usage = fromRealtimeUsage({
      input_tokens: 100,
      output_tokens: 0,
      input_token_details: {
        text_tokens: 40,
        audio_tokens: 60,
        cached_tokens: 50,
        cached_tokens_details: { text_tokens: 20, audio_tokens: 30 },
      },
    });
    expect(usage).toMatchObject({ inputTokens: 100, cachedReadTokens: 50, inputAudioTokens: 30 });
  });

  it('keeps kinds within their totals and treats an empty usage as none', () => {
    expect(
      fromRealtimeUsage({ input_tokens: 5, output_tokens: 3, output_token_details: { audio_tokens: 9 } }),
    ).toMatchObject({ outputTokens: 3, outputAudioTokens: 3 });
    expect(fromRealtimeUsage({ input_tokens: 0, output_tokens: 0 })).toBeNull();
    expect(fromRealtimeUsage(null)).toBeNull();
    expect(fromRealtimeUsage({ input_tokens: 'x' })).toBeNull();
  });
});
