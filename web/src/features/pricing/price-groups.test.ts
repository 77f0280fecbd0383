import type { PriceView } from '@switchyard/domain';
import { describe, expect, it } from 'vitest';
import { groupPrices } from './price-groups';

const price = (model: string, input: number, extra: PriceView['extra_ratios'] = {}): PriceView => ({
  model,
  type: 'tokens',
  channel_type: 1,
  input,
  output: input * 2,
  locked: false,
  extra_ratios: extra,
});

describe('groupPrices', () => {
  it('puts models with identical prices in one group, sorted', () => {
    const groups = groupPrices([
      price('b', 1),
      price('a', 1),
      price('c', 2),
      price('d', 1, { input_audio_tokens: 8 }),
      price('e', 1, { input_audio_tokens: 8 }),
    ]);
    expect(groups.map((g) => g.models)).toEqual([['a', 'b'], ['c'], ['d', 'e']]);
    expect(groups[2]?.price).toMatchObject({ input: 1, extra_ratios: { input_audio_tokens: 8 } });
  });

  it('treats extra ratios in any order as the same price', () => {
    const groups = groupPrices([
      price('a', 1, { input_audio_tokens: 8, output_audio_tokens: 4 }),
      price('b', 1, { output_audio_tokens: 4, input_audio_tokens: 8 }),
    ]);
    expect(groups).toHaveLength(1);
  });
});
