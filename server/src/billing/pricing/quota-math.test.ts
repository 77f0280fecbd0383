import { describe, expect, it } from 'vitest';
import type { ExtraRatios, ModelPrice } from './price-book.js';
import {
  breakdownMetadata,
  ceilQuota,
  computeQuota,
  reserveAmount,
  timesQuota,
  tokensQuota,
} from './quota-math.js';
import { emptyUsage, type Usage } from './usage.js';

function price(input: number, output: number, extraRatios: ExtraRatios = {}): ModelPrice {
  return { model: 'm', type: 'tokens', channelType: 1, input, output, locked: false, extraRatios };
}

function perCall(input: number): ModelPrice {
  return {
    model: 'mj_imagine',
    type: 'times',
    channelType: 34,
    input,
    output: 0,
    locked: false,
    extraRatios: {},
  };
}

function usage(patch: Partial<Usage>): Usage {
  return { ...emptyUsage(), ...patch };
}

describe('ceilQuota', () => {
  const reference = (x: number) => Math.max(0, Math.ceil(Number(x.toPrecision(12))));

  it('rounds up exactly as the trimmed amount would, noise, near-integers and large amounts included', () => {
    const cases = [
      0,
      0.1,
      7,
      10 * 0.7,
      3 * 0.1 * 10,
      1 + 1e-13,
      1 + 4e-12,
      1 + 6e-12,
      1 - 1e-13,
      99.99999999999,
      123456.0000000001,
      1e11 - 0.5,
      1e11 + 0.3,
      1234567890123.7,
      5e14 + 0.25,
      -0.5,
    ];
    for (const x of cases) expect(ceilQuota(x), String(x)).toBe(reference(x));
    // Amounts as the pricing makes them: tokens x ratios, with and without float noise.
    let seed = 42;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 100_000; i++) {
      const tokens = Math.floor(next() * 10 ** (1 + Math.floor(next() * 9)));
      const ratio = Math.round(next() * 1000) / [1, 10, 100, 1000, 3][i % 5]!;
      const x = tokens * ratio * (i % 7 === 0 ? 0.1 * 3 : 1);
      expect(ceilQuota(x)).toBe(reference(x));
    }
  });
});

describe('tokens pricing', () => {
  it('bills input x inputRatio + output x outputRatio', () => {
    // gpt-4o at $2.5/$10 per 1M: ratios 1.25 and 5.
    const b = tokensQuota(price(1.25, 5), 1, usage({ inputTokens: 1000, outputTokens: 500 }));
    expect(b.quota).toBe(3750);
    expect(b).toMatchObject({ priceType: 'tokens', groupRatio: 1, inputRatio: 1.25, outputRatio: 5 });
    expect(b.extras).toEqual([]);
    expect(b.minimumApplied).toBe(false);
  });

  it('multiplies both sides by the group ratio', () => {
    const b = tokensQuota(price(1.25, 5), 1.5, usage({ inputTokens: 1000, outputTokens: 500 }));
    expect(b.inputRatio).toBe(1.875);
    expect(b.outputRatio).toBe(7.5);
    expect(b.quota).toBe(5625);
    expect(tokensQuota(price(1.25, 5), 0.5, usage({ inputTokens: 1000, outputTokens: 500 })).quota).toBe(
      1875,
    );
  });

  it('rounds a fractional amount up', () => {
    expect(tokensQuota(price(0.075, 0.3), 1, usage({ inputTokens: 10 })).quota).toBe(1); // 0.75
    expect(tokensQuota(price(0.075, 0.3), 1, usage({ inputTokens: 101 })).quota).toBe(8); // 7.575
    expect(tokensQuota(price(0.075, 0.3), 1, usage({ inputTokens: 100, outputTokens: 1 })).quota).toBe(8); // 7.8
    expect(tokensQuota(price(1, 1), 1, usage({ inputTokens: 3 })).quota).toBe(3);
  });

  it('does not let float noise add a unit', () => {
    // 100 x 0.07 is 7.000000000000001 in binary floating point.
    expect(100 * 0.07).toBeGreaterThan(7);
    expect(tokensQuota(price(0.07, 0), 1, usage({ inputTokens: 100 })).quota).toBe(7);
    expect(tokensQuota(price(0.1, 0), 1, usage({ inputTokens: 3 })).quota).toBe(1); // 0.30000000000000004
    expect(tokensQuota(price(1.15, 0), 1, usage({ inputTokens: 100 })).quota).toBe(115);
    expect(tokensQuota(price(0.7, 0), 1, usage({ inputTokens: 10 })).quota).toBe(7);
  });

  it('bills nothing when no tokens were used, whatever the price', () => {
    const b = tokensQuota(price(30, 30), 2, emptyUsage());
    expect(b.quota).toBe(0);
    expect(b.minimumApplied).toBe(false);
  });

  it('bills at least 1 when the price is non-zero and tokens were used', () => {
    // Every prompt token served from a cache priced at 0: the amount is 0, the minimum applies.
    const b = tokensQuota(
      price(2, 8, { cached_read_tokens: 0 }),
      1,
      usage({ inputTokens: 50, cachedReadTokens: 50 }),
    );
    expect(b.exact).toBe(0);
    expect(b.quota).toBe(1);
    expect(b.minimumApplied).toBe(true);
    // Output-only price, input-only usage: still a call on a priced model.
    expect(tokensQuota(price(0, 1), 1, usage({ inputTokens: 5 })).quota).toBe(1);
  });

  it('bills a free model or a free group nothing, with no minimum', () => {
    expect(tokensQuota(price(0, 0), 1, usage({ inputTokens: 1000, outputTokens: 1000 })).quota).toBe(0);
    const free = tokensQuota(price(1.25, 5), 0, usage({ inputTokens: 1000, outputTokens: 1000 }));
    expect(free.quota).toBe(0);
    expect(free.minimumApplied).toBe(false);
  });

  it('bills cache reads at 0.1 of the input ratio by default', () => {
    const b = tokensQuota(price(2, 8), 1, usage({ inputTokens: 1000, cachedReadTokens: 400 }));
    // 600 x 2 + 400 x 0.2 = 1200 + 80
    expect(b.quota).toBe(1280);
    expect(b.extras).toEqual([{ key: 'cached_read_tokens', side: 'input', tokens: 400, ratio: 0.1 }]);
  });

  it('uses the price cache-read ratio, and reads cached_tokens as its older name', () => {
    const u = usage({ inputTokens: 1000, cachedReadTokens: 400 });
    expect(tokensQuota(price(2, 8, { cached_read_tokens: 0.5 }), 1, u).quota).toBe(1600);
    expect(tokensQuota(price(2, 8, { cached_tokens: 0.25 }), 1, u).quota).toBe(1400);
    // The specific key wins over the older one.
    expect(tokensQuota(price(2, 8, { cached_tokens: 0.25, cached_read_tokens: 0.5 }), 1, u).quota).toBe(1600);
    expect(tokensQuota(price(2, 8, { cached_tokens: 0.25 }), 1, u).extras[0]?.ratio).toBe(0.25);
  });

  it('bills cache writes at 1.25 of the input ratio by default', () => {
    const u = usage({ inputTokens: 1000, cacheWriteTokens: 200 });
    // 1000 x 2 + 200 x 0.25 x 2
    expect(tokensQuota(price(2, 8), 1, u).quota).toBe(2100);
    expect(tokensQuota(price(2, 8, { cached_write_tokens: 2 }), 1, u).quota).toBe(2400);
    expect(tokensQuota(price(2, 8, { cached_write_tokens: 1 }), 1, u).quota).toBe(2000);
  });

  it('applies cache reads and writes together (Anthropic)', () => {
    // claude-sonnet-4-5 at $3/$15: ratios 1.5 and 7.5; 100 plain + 2000 read + 500 written; 300 out.
    const u = usage({ inputTokens: 2600, cachedReadTokens: 2000, cacheWriteTokens: 500, outputTokens: 300 });
    const b = tokensQuota(price(1.5, 7.5, { cached_read_tokens: 0.1, cached_write_tokens: 1.25 }), 1, u);
    // 2600 x 1.5 - 2000 x 0.9 x 1.5 + 500 x 0.25 x 1.5 + 300 x 7.5 = 3900 - 2700 + 187.5 + 2250
    expect(b.exact).toBeCloseTo(3637.5, 9);
    expect(b.quota).toBe(3638);
  });

  it('bills input and output audio at their ratios', () => {
    // gpt-4o-audio-preview: 1.25 / 5, input audio x16, output audio x8.
    const p = price(1.25, 5, { input_audio_tokens: 16, output_audio_tokens: 8 });
    const b = tokensQuota(
      p,
      1,
      usage({ inputTokens: 100, inputAudioTokens: 60, outputTokens: 100, outputAudioTokens: 50 }),
    );
    // 125 + 60 x 15 x 1.25 + 500 + 50 x 7 x 5 = 125 + 1125 + 500 + 1750
    expect(b.quota).toBe(3500);
    expect(b.extras).toEqual([
      { key: 'input_audio_tokens', side: 'input', tokens: 60, ratio: 16 },
      { key: 'output_audio_tokens', side: 'output', tokens: 50, ratio: 8 },
    ]);
  });

  it('bills reasoning tokens as output, at their own ratio when set', () => {
    const u = usage({ inputTokens: 10, outputTokens: 100, reasoningTokens: 40 });
    expect(tokensQuota(price(1, 1), 1, u).quota).toBe(110);
    expect(tokensQuota(price(1, 1, { reasoning_tokens: 2 }), 1, u).quota).toBe(150);
    expect(tokensQuota(price(1, 1), 1, u).extras).toEqual([
      { key: 'reasoning_tokens', side: 'output', tokens: 40, ratio: 1 },
    ]);
  });

  it('bills image tokens on each side', () => {
    const p = price(1, 2, { input_image_tokens: 2, output_image_tokens: 3 });
    const b = tokensQuota(
      p,
      1,
      usage({ inputTokens: 100, inputImageTokens: 30, outputTokens: 50, outputImageTokens: 20 }),
    );
    // 100 + 30 x 1 x 1 + 100 + 20 x 2 x 2
    expect(b.quota).toBe(310);
  });

  it('prices text tokens as the rest of a side once a text ratio is set (gpt-image-1)', () => {
    // $10/$40 per 1M: ratios 5 and 20; text input at half price.
    const p = price(5, 20, { input_text_tokens: 0.5 });
    const b = tokensQuota(
      p,
      1,
      usage({ inputTokens: 1000, inputImageTokens: 600, outputTokens: 100, outputImageTokens: 100 }),
    );
    // 1000 x 5 - 400 x 0.5 x 5 + 100 x 20
    expect(b.quota).toBe(6000);
    expect(b.extras).toContainEqual({ key: 'input_text_tokens', side: 'input', tokens: 400, ratio: 0.5 });
    const out = tokensQuota(
      price(1, 1, { output_text_tokens: 3 }),
      1,
      usage({ outputTokens: 100, reasoningTokens: 30 }),
    );
    // 100 + 70 x 2
    expect(out.quota).toBe(240);
    // Without a text ratio text is never listed.
    expect(tokensQuota(price(5, 20), 1, usage({ inputTokens: 10 })).extras).toEqual([]);
  });

  it('never lets over-reported kinds make text negative', () => {
    const b = tokensQuota(
      price(1, 1, { input_text_tokens: 0.5 }),
      1,
      usage({ inputTokens: 10, inputImageTokens: 20 }),
    );
    expect(b.extras.find((e) => e.key === 'input_text_tokens')).toBeUndefined();
    expect(b.quota).toBe(10);
  });

  it('rejects negative or non-finite counts', () => {
    expect(() => tokensQuota(price(1, 1), 1, usage({ inputTokens: -1 }))).toThrow(RangeError);
    expect(() => tokensQuota(price(1, 1), 1, usage({ outputTokens: Number.NaN }))).toThrow(RangeError);
    expect(() => tokensQuota(price(1, 1), 1, usage({ inputTokens: 5, cachedReadTokens: -2 }))).toThrow(
      RangeError,
    );
    expect(() => tokensQuota(price(1, 1), -1, usage({ inputTokens: 5 }))).toThrow(RangeError);
  });
});

describe('times pricing', () => {
  it('bills 1000 x input x groupRatio per call', () => {
    const b = timesQuota(perCall(50), 1);
    expect(b.quota).toBe(50_000);
    expect(b).toMatchObject({ priceType: 'times', calls: 1, inputRatio: 50, minimumApplied: false });
    expect(timesQuota(perCall(50), 1.5).quota).toBe(75_000);
    expect(timesQuota(perCall(25), 0.8).quota).toBe(20_000);
  });

  it('multiplies by the calls the caller names', () => {
    expect(timesQuota(perCall(50), 1, 4).quota).toBe(200_000);
    expect(timesQuota(perCall(50), 1, 0).quota).toBe(0);
    expect(() => timesQuota(perCall(50), 1, 1.5)).toThrow(RangeError);
  });

  it('rounds each call to the nearest unit, half up, before multiplying', () => {
    expect(timesQuota(perCall(0.0025), 1).quota).toBe(3); // 2.5
    expect(timesQuota(perCall(0.0024), 1).quota).toBe(2); // 2.4
    // 1.5 per call: 2 each, so 3 calls are 6 (not round(4.5) = 5).
    expect(timesQuota(perCall(0.0015), 1, 3).quota).toBe(6);
  });

  it('bills at least 1 per call for a non-zero price, 0 for a free one', () => {
    const tiny = timesQuota(perCall(0.0004), 1, 2);
    expect(tiny.quota).toBe(2);
    expect(tiny.minimumApplied).toBe(true);
    expect(timesQuota(perCall(0), 1).quota).toBe(0);
    expect(timesQuota(perCall(50), 0).quota).toBe(0);
  });

  it('ignores token usage and the output price', () => {
    const p: ModelPrice = { ...perCall(5), output: 99 };
    expect(computeQuota(p, 1, usage({ inputTokens: 10_000, outputTokens: 10_000 })).quota).toBe(5000);
  });
});

describe('computeQuota', () => {
  it('dispatches on the price type', () => {
    expect(computeQuota(price(1, 2), 1, usage({ inputTokens: 10, outputTokens: 10 })).quota).toBe(30);
    expect(computeQuota(perCall(1), 2, emptyUsage(), 3).quota).toBe(6000);
  });
});

describe('reserveAmount', () => {
  const base = { groupRatio: 1, preConsumedQuota: 500 };

  it('reserves prompt cost + PreConsumedQuota when the reply size is unknown', () => {
    expect(reserveAmount({ ...base, price: price(1.25, 5), promptTokens: 1000 })).toBe(1750);
    expect(reserveAmount({ ...base, price: price(1.25, 5), promptTokens: 1000, maxTokens: 0 })).toBe(1750);
    expect(reserveAmount({ ...base, price: price(0.075, 0.3), promptTokens: 101 })).toBe(508); // 7.575 + 500
    expect(reserveAmount({ ...base, price: price(1, 1), promptTokens: 0, preConsumedQuota: 0 })).toBe(0);
  });

  it('reserves the worst case when max_tokens bounds the reply', () => {
    // 1000 x 1.25 + 2000 x 5
    expect(reserveAmount({ ...base, price: price(1.25, 5), promptTokens: 1000, maxTokens: 2000 })).toBe(
      11_250,
    );
    // n completions may each reach max_tokens.
    expect(reserveAmount({ ...base, price: price(1.25, 5), promptTokens: 1000, maxTokens: 2000, n: 3 })).toBe(
      31_250,
    );
  });

  it('applies the group ratio to both parts but not to PreConsumedQuota', () => {
    expect(
      reserveAmount({ ...base, groupRatio: 2, price: price(1.25, 5), promptTokens: 1000, maxTokens: 100 }),
    ).toBe(3500);
    expect(reserveAmount({ ...base, groupRatio: 2, price: price(1.25, 5), promptTokens: 1000 })).toBe(3000);
  });

  it('covers the dearest output kind in the worst case', () => {
    const audio = price(1.25, 5, { output_audio_tokens: 8 });
    // 100 x 1.25 + 100 x 5 x 8
    expect(reserveAmount({ ...base, price: audio, promptTokens: 100, maxTokens: 100 })).toBe(4125);
    // Ratios below 1 never shrink the worst case.
    const cheapReasoning = price(1, 1, { reasoning_tokens: 0.5 });
    expect(reserveAmount({ ...base, price: cheapReasoning, promptTokens: 0, maxTokens: 100 })).toBe(100);
  });

  it('rounds the reserve up without float noise', () => {
    expect(reserveAmount({ ...base, price: price(0.07, 0), promptTokens: 100, preConsumedQuota: 0 })).toBe(7);
    expect(reserveAmount({ ...base, price: price(0.075, 0), promptTokens: 10, preConsumedQuota: 0 })).toBe(1);
  });

  it('reserves nothing for a free price or a free group', () => {
    expect(reserveAmount({ ...base, price: price(0, 0), promptTokens: 1000, maxTokens: 100 })).toBe(0);
    expect(reserveAmount({ ...base, groupRatio: 0, price: price(1, 1), promptTokens: 1000 })).toBe(0);
  });

  it('reserves the full call price for times pricing', () => {
    expect(reserveAmount({ ...base, price: perCall(50), promptTokens: 999 })).toBe(50_000);
    expect(reserveAmount({ ...base, price: perCall(50), promptTokens: 0, calls: 2, groupRatio: 1.5 })).toBe(
      150_000,
    );
  });

  it('equals the final cost when the reply uses max_tokens exactly', () => {
    const p = price(0.625, 5, { reasoning_tokens: 1 });
    const reserve = reserveAmount({ ...base, price: p, promptTokens: 333, maxTokens: 777 });
    const final = tokensQuota(p, 1, usage({ inputTokens: 333, outputTokens: 777, reasoningTokens: 500 }));
    expect(reserve).toBe(final.quota);
  });
});

describe('breakdownMetadata', () => {
  it('flattens the breakdown into the log metadata keys', () => {
    const b = tokensQuota(
      price(1.5, 7.5, { cached_read_tokens: 0.1 }),
      2,
      usage({ inputTokens: 100, cachedReadTokens: 40, outputTokens: 10, reasoningTokens: 4 }),
    );
    expect(breakdownMetadata(b)).toEqual({
      price_type: 'tokens',
      group_ratio: 2,
      input_ratio: 3,
      output_ratio: 15,
      cached_read_tokens: 40,
      cached_read_tokens_ratio: 0.1,
      reasoning_tokens: 4,
      reasoning_tokens_ratio: 1,
    });
    expect(breakdownMetadata(timesQuota(perCall(50), 1, 2))).toEqual({
      price_type: 'times',
      group_ratio: 1,
      input_ratio: 50,
      output_ratio: 0,
      calls: 2,
    });
  });
});
