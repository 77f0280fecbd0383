import { describe, expect, it } from 'vitest';
import { userGroupCreateInput, userGroupEnableInput, userGroupUpdateInput } from './user-group.js';

describe('user group schemas', () => {
  it('default ratio 1, API rate 600, private and enabled', () => {
    expect(userGroupCreateInput.parse({ symbol: 'pro', name: 'Pro' })).toEqual({
      symbol: 'pro',
      name: 'Pro',
      ratio: 1,
      api_rate: 600,
      public: false,
      enable: true,
    });
  });

  it('require a name and a symbol a comma list can hold', () => {
    for (const bad of [
      { symbol: 'pro' },
      { symbol: 'pro', name: ' ' },
      { symbol: 'a,b', name: 'x' },
      { symbol: 'a b', name: 'x' },
      { symbol: '', name: 'x' },
    ])
      expect(userGroupCreateInput.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it('refuse a negative ratio or API rate and a fractional API rate', () => {
    const base = { id: 1, name: 'x', ratio: 1, api_rate: 1, public: true };
    expect(userGroupUpdateInput.safeParse(base).success).toBe(true);
    for (const patch of [{ ratio: -0.01 }, { api_rate: -1 }, { api_rate: 2.5 }])
      expect(userGroupUpdateInput.safeParse({ ...base, ...patch }).success, JSON.stringify(patch)).toBe(
        false,
      );
  });

  it('let the enable switch send nothing (flip) or a boolean', () => {
    expect(userGroupEnableInput.parse({})).toEqual({});
    expect(userGroupEnableInput.safeParse({ enable: 'no' }).success).toBe(false);
  });
});
