import { describe, expect, it } from 'vitest';
import { redemptionCreateInput, redemptionStatusInput, topupInput } from './redemption.js';

describe('redemption schemas', () => {
  it('create: count 1..100, quota at least 0, name 1..20', () => {
    expect(redemptionCreateInput.parse({ name: 'n', quota: 0 })).toEqual({ name: 'n', quota: 0, count: 1 });
    for (const bad of [
      { name: 'n', quota: 0, count: 0 },
      { name: 'n', quota: 0, count: 101 },
      { name: 'n', quota: -1 },
      { name: '', quota: 1 },
      { name: 'x'.repeat(21), quota: 1 },
    ])
      expect(redemptionCreateInput.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it('an administrator sets enabled or disabled, never used', () => {
    expect(redemptionStatusInput.safeParse({ id: 1, status: 2, name: 'ignored' }).success).toBe(true);
    expect(redemptionStatusInput.safeParse({ id: 1, status: 3 }).success).toBe(false);
  });

  it('top-up needs a key of sensible length', () => {
    expect(topupInput.parse({ key: ' abc ' })).toEqual({ key: 'abc' });
    expect(topupInput.safeParse({ key: '' }).success).toBe(false);
    expect(topupInput.safeParse({ key: 'x'.repeat(65) }).success).toBe(false);
  });
});
