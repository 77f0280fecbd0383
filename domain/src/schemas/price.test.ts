import { describe, expect, it } from 'vitest';
import { priceInput, priceMultipleInput, priceSyncInput } from './price.js';

const valid = { model: 'm', type: 'tokens', channel_type: 1, input: 1, output: 2 };

describe('price schemas', () => {
  it('fill defaults and keep known extra ratios', () => {
    expect(priceInput.parse({ ...valid, extra_ratios: { cached_read_tokens: 0.1 } })).toEqual({
      ...valid,
      locked: false,
      extra_ratios: { cached_read_tokens: 0.1 },
    });
  });

  it('name the unknown extra ratio in the error path', () => {
    const r = priceInput.safeParse({ ...valid, extra_ratios: { cached_read_tokens: 1, bogus: 1 } });
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['extra_ratios.bogus']);
  });

  it('refuse repeats in a batch and in a sync list', () => {
    expect(
      priceMultipleInput.safeParse({
        models: ['a', 'a'],
        price: { type: 'times', channel_type: 1, input: 1, output: 0 },
      }).success,
    ).toBe(false);
    const sync = priceSyncInput.safeParse([valid, { ...valid, input: 3 }]);
    expect(sync.error?.issues[0]?.path).toEqual([1, 'model']);
  });
});
