import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../billing/pricing/usage.js';
import { fromGeminiUsage, toGeminiUsageMetadata } from './usage.js';

describe('fromGeminiUsage', () => {
  it('adds thoughts to the output as reasoning; cached tokens are part of the prompt', () => {
    expect(
      fromGeminiUsage({
        promptTokenCount: 1000,
        candidatesTokenCount: 50,
        thoughtsTokenCount: 200,
        cachedContentTokenCount: 800,
        totalTokenCount: 1250,
      }),
    ).toEqual({
      ...emptyUsage(),
      inputTokens: 1000,
      outputTokens: 250,
      cachedReadTokens: 800,
      reasoningTokens: 200,
    });
  });

  it('counts tool-use prompt tokens as input and splits modalities without double-counting the cache', () => {
    const u = fromGeminiUsage({
      promptTokenCount: 900,
      toolUsePromptTokenCount: 100,
      candidatesTokenCount: 30,
      totalTokenCount: 1030,
      cachedContentTokenCount: 300,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 400 },
        { modality: 'AUDIO', tokenCount: 300 },
        { modality: 'IMAGE', tokenCount: 200 },
      ],
      cacheTokensDetails: [{ modality: 'AUDIO', tokenCount: 300 }],
      candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: 30 }],
    });
    expect(u).toMatchObject({
      inputTokens: 1000,
      cachedReadTokens: 300,
      inputAudioTokens: 0,
      inputImageTokens: 200,
      outputTokens: 30,
      outputAudioTokens: 30,
    });
  });

  it('derives the visible output from the total when candidatesTokenCount is missing', () => {
    expect(
      fromGeminiUsage({ promptTokenCount: 10, totalTokenCount: 25, thoughtsTokenCount: 5 }),
    ).toMatchObject({
      inputTokens: 10,
      outputTokens: 15,
      reasoningTokens: 5,
    });
    expect(fromGeminiUsage({ promptTokenCount: 10, totalTokenCount: 10 })).toMatchObject({ outputTokens: 0 });
  });

  it('rejects what is not usage', () => {
    expect(fromGeminiUsage(undefined)).toBeNull();
    expect(fromGeminiUsage({})).toBeNull();
  });
});

describe('toGeminiUsageMetadata', () => {
  it('round-trips reasoning and cached tokens', () => {
    const usage = {
      ...emptyUsage(),
      inputTokens: 1000,
      outputTokens: 250,
      cachedReadTokens: 800,
      reasoningTokens: 200,
    };
    const meta = toGeminiUsageMetadata(usage);
    expect(meta).toEqual({
      promptTokenCount: 1000,
      candidatesTokenCount: 50,
      totalTokenCount: 1250,
      cachedContentTokenCount: 800,
      thoughtsTokenCount: 200,
    });
    expect(fromGeminiUsage(meta)).toEqual(usage);
  });
});
