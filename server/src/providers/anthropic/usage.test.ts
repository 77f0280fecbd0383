import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../billing/pricing/usage.js';
import { fromAnthropicUsage, mergeAnthropicUsage, toAnthropicUsage } from './usage.js';

describe('fromAnthropicUsage', () => {
  it('adds cache reads and writes into the input tokens', () => {
    expect(
      fromAnthropicUsage({
        input_tokens: 25,
        cache_creation_input_tokens: 1200,
        cache_read_input_tokens: 3000,
        output_tokens: 90,
        service_tier: 'standard',
      }),
    ).toEqual({
      ...emptyUsage(),
      inputTokens: 4225,
      outputTokens: 90,
      cachedReadTokens: 3000,
      cacheWriteTokens: 1200,
    });
  });

  it('reads thinking tokens from output_tokens_details, never beyond the output', () => {
    const u = fromAnthropicUsage({
      input_tokens: 5,
      output_tokens: 40,
      output_tokens_details: { thinking_tokens: 30 },
    });
    expect(u).toMatchObject({ inputTokens: 5, outputTokens: 40, reasoningTokens: 30 });
    expect(
      fromAnthropicUsage({
        input_tokens: 5,
        output_tokens: 10,
        output_tokens_details: { thinking_tokens: 99 },
      }),
    ).toMatchObject({ reasoningTokens: 10 });
  });

  it('treats null cache fields as zero and rejects non-usage', () => {
    expect(
      fromAnthropicUsage({ input_tokens: 3, output_tokens: 1, cache_read_input_tokens: null }),
    ).toMatchObject({
      inputTokens: 3,
      cachedReadTokens: 0,
    });
    expect(fromAnthropicUsage(null)).toBeNull();
    expect(fromAnthropicUsage({ service_tier: 'standard' })).toBeNull();
  });
});

describe('toAnthropicUsage', () => {
  it('takes the cache reads and writes back out of input_tokens', () => {
    const usage = {
      ...emptyUsage(),
      inputTokens: 4225,
      outputTokens: 90,
      cachedReadTokens: 3000,
      cacheWriteTokens: 1200,
      reasoningTokens: 20,
    };
    expect(toAnthropicUsage(usage)).toEqual({
      input_tokens: 25,
      output_tokens: 90,
      cache_creation_input_tokens: 1200,
      cache_read_input_tokens: 3000,
      output_tokens_details: { thinking_tokens: 20 },
    });
    expect(fromAnthropicUsage(toAnthropicUsage(usage))).toEqual(usage);
  });
});

describe('mergeAnthropicUsage', () => {
  it('lets later non-null totals replace earlier ones without adding up', () => {
    const start = mergeAnthropicUsage(
      {},
      { input_tokens: 50, cache_read_input_tokens: 10, output_tokens: 1 },
    );
    const end = mergeAnthropicUsage(start, {
      output_tokens: 77,
      input_tokens: null,
      cache_read_input_tokens: null,
    });
    expect(end).toEqual({ input_tokens: 50, cache_read_input_tokens: 10, output_tokens: 77 });
    expect(fromAnthropicUsage(end)).toMatchObject({
      inputTokens: 60,
      outputTokens: 77,
      cachedReadTokens: 10,
    });
  });
});
