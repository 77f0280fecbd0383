import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../billing/pricing/usage.js';
import { fromOpenAiUsage, isMeaningfulUsage, toOpenAiChatUsage } from './usage.js';

describe('fromOpenAiUsage', () => {
  it('maps chat usage with cached, audio and reasoning details', () => {
    const u = fromOpenAiUsage({
      prompt_tokens: 1200,
      completion_tokens: 300,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 50 },
      completion_tokens_details: {
        reasoning_tokens: 200,
        audio_tokens: 40,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    });
    expect(u).toEqual({
      ...emptyUsage(),
      inputTokens: 1200,
      outputTokens: 300,
      cachedReadTokens: 1024,
      inputAudioTokens: 50,
      reasoningTokens: 200,
      outputAudioTokens: 40,
    });
  });

  it('maps plain chat usage and cache writes', () => {
    expect(fromOpenAiUsage({ prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 })).toEqual({
      ...emptyUsage(),
      inputTokens: 9,
      outputTokens: 12,
    });
    const u = fromOpenAiUsage({
      prompt_tokens: 100,
      completion_tokens: 1,
      prompt_tokens_details: { cached_tokens: 10, cache_write_tokens: 60 },
    });
    expect(u?.cacheWriteTokens).toBe(60);
    expect(u?.cachedReadTokens).toBe(10);
  });

  it('maps embeddings usage (prompt only) and a bare total', () => {
    expect(fromOpenAiUsage({ prompt_tokens: 8, total_tokens: 8 })).toEqual({
      ...emptyUsage(),
      inputTokens: 8,
    });
    expect(fromOpenAiUsage({ total_tokens: 33 })).toEqual({ ...emptyUsage(), inputTokens: 33 });
  });

  it('maps Responses-style usage', () => {
    const u = fromOpenAiUsage({
      input_tokens: 500,
      input_tokens_details: { cached_tokens: 128 },
      output_tokens: 90,
      output_tokens_details: { reasoning_tokens: 64 },
      total_tokens: 590,
    });
    expect(u).toEqual({
      ...emptyUsage(),
      inputTokens: 500,
      outputTokens: 90,
      cachedReadTokens: 128,
      reasoningTokens: 64,
    });
  });

  it('maps gpt-image-1 usage: image input tokens and image output', () => {
    const u = fromOpenAiUsage({
      input_tokens: 50,
      input_tokens_details: { text_tokens: 10, image_tokens: 40 },
      output_tokens: 4160,
      total_tokens: 4210,
    });
    expect(u).toEqual({
      ...emptyUsage(),
      inputTokens: 50,
      outputTokens: 4160,
      inputImageTokens: 40,
      outputImageTokens: 4160,
    });
    // When the output is split, only its image part is image tokens.
    const split = fromOpenAiUsage({
      input_tokens: 20,
      input_tokens_details: { text_tokens: 20, image_tokens: 0 },
      output_tokens: 300,
      output_tokens_details: { text_tokens: 28, image_tokens: 272 },
      total_tokens: 320,
    });
    expect(split?.outputImageTokens).toBe(272);
  });

  it('maps token-billed transcription usage and refuses duration usage', () => {
    expect(
      fromOpenAiUsage({
        type: 'tokens',
        input_tokens: 14,
        input_token_details: { text_tokens: 0, audio_tokens: 14 },
        output_tokens: 45,
        total_tokens: 59,
      }),
    ).toEqual({ ...emptyUsage(), inputTokens: 14, outputTokens: 45, inputAudioTokens: 14 });
    expect(fromOpenAiUsage({ type: 'duration', seconds: 3 })).toBeNull();
  });

  it('reads vendor cache fields (DeepSeek, Moonshot)', () => {
    expect(
      fromOpenAiUsage({
        prompt_tokens: 70,
        completion_tokens: 5,
        prompt_cache_hit_tokens: 64,
        prompt_cache_miss_tokens: 6,
      })?.cachedReadTokens,
    ).toBe(64);
    expect(
      fromOpenAiUsage({ prompt_tokens: 70, completion_tokens: 5, cached_tokens: 30 })?.cachedReadTokens,
    ).toBe(30);
  });

  it('keeps the kinds disjoint parts of their totals and ignores junk', () => {
    const u = fromOpenAiUsage({
      prompt_tokens: 10,
      completion_tokens: 5,
      prompt_tokens_details: { cached_tokens: 8, audio_tokens: 8 },
      completion_tokens_details: { reasoning_tokens: 9 },
    });
    expect(u?.cachedReadTokens).toBe(8);
    expect(u?.inputAudioTokens).toBe(2);
    expect(u?.reasoningTokens).toBe(5);
    expect(fromOpenAiUsage({ prompt_tokens: -3, completion_tokens: 2.7 })).toEqual({
      ...emptyUsage(),
      outputTokens: 2,
    });
    expect(fromOpenAiUsage(null)).toBeNull();
    expect(fromOpenAiUsage('usage')).toBeNull();
    expect(fromOpenAiUsage({})).toBeNull();
    expect(fromOpenAiUsage({ prompt_tokens: '12' })).toBeNull();
  });

  it('treats all-zero usage as not meaningful and writes chat usage back', () => {
    expect(isMeaningfulUsage(fromOpenAiUsage({ prompt_tokens: 0, completion_tokens: 0 }))).toBe(false);
    expect(isMeaningfulUsage(null)).toBe(false);
    const u = { ...emptyUsage(), inputTokens: 12, outputTokens: 3, cachedReadTokens: 4, reasoningTokens: 1 };
    expect(isMeaningfulUsage(u)).toBe(true);
    const back = toOpenAiChatUsage(u);
    expect(back).toMatchObject({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
    expect(fromOpenAiUsage(back)).toEqual(u);
  });
});
