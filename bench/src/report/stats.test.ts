import { describe, expect, it } from 'vitest';
import { percentile, round, summarize } from './stats.js';

describe('percentile (nearest rank)', () => {
  const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

  it('returns a sample that was measured, never an interpolation', () => {
    expect(percentile(sorted, 50)).toBe(5);
    expect(percentile(sorted, 90)).toBe(9);
    expect(percentile(sorted, 99)).toBe(10);
    expect(percentile(sorted, 100)).toBe(10);
    expect(percentile([1.5, 2.5], 50)).toBe(1.5);
  });

  it('takes the smallest sample for p0 and the only sample of a single-sample set', () => {
    expect(percentile(sorted, 0)).toBe(1);
    expect(percentile([42], 99)).toBe(42);
  });

  it('is NaN without samples and refuses p outside 0..100', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile(sorted, 101)).toThrow(RangeError);
    expect(() => percentile(sorted, -1)).toThrow(RangeError);
  });

  it('p99 of 1000 samples is the 990th smallest', () => {
    const many = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(percentile(many, 99)).toBe(990);
    expect(percentile(many, 50)).toBe(500);
  });
});

describe('summarize', () => {
  it('sorts numerically (not as strings) without touching its input', () => {
    const samples = [10, 9, 100, 1, 2];
    const s = summarize(samples);
    expect(samples).toEqual([10, 9, 100, 1, 2]);
    expect(s).toMatchObject({ count: 5, p50: 9, p99: 100, max: 100 });
    expect(s.mean).toBeCloseTo(24.4);
  });

  it('reports NaN figures for an empty run', () => {
    const s = summarize([]);
    expect(s.count).toBe(0);
    expect(s.p50).toBeNaN();
    expect(s.max).toBeNaN();
    expect(s.mean).toBeNaN();
  });
});

describe('round', () => {
  it('rounds to the given decimals and lets NaN through', () => {
    expect(round(0.123456, 3)).toBe(0.123);
    expect(round(2.5, 0)).toBe(3);
    expect(round(Number.NaN, 2)).toBeNaN();
  });
});
