import { describe, expect, it } from 'vitest';
import { modelOwnerInput } from './model-owner.js';

describe('model owner schema', () => {
  it('accepts ids above 1000 with a name and an optional http(s) icon', () => {
    expect(modelOwnerInput.parse({ id: 1001, name: 'Mine' })).toEqual({ id: 1001, name: 'Mine', icon: '' });
    expect(modelOwnerInput.safeParse({ id: 1001, name: 'Mine', icon: 'https://x.test/i.png' }).success).toBe(
      true,
    );
  });

  it('refuses reserved ids, missing names and other icon schemes', () => {
    for (const bad of [
      { id: 1000, name: 'x' },
      { id: 0, name: 'x' },
      { id: 1001 },
      { id: 1001, name: '' },
      { id: 1001, name: 'x', icon: 'data:image/png;base64,AAAA' },
    ])
      expect(modelOwnerInput.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });
});
