import { describe, expect, it } from 'vitest';
import { currencyTickDigits } from './chart-ticks';

/** The labels of an axis from 0 to max in steps as a chart takes them. */
function labels(max: number, digits: number): string[] {
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const out: string[] = [];
  for (let v = 0; v <= max + step / 2; v += step) out.push(`$${v.toFixed(digits)}`);
  return out;
}

describe('currencyTickDigits', () => {
  it('keeps cents for amounts of a dollar and more', () => {
    expect(currencyTickDigits(12)).toBe(2);
    expect(currencyTickDigits(0)).toBe(2);
    expect(currencyTickDigits(Number.NaN)).toBe(2);
  });

  it('gives ticks that all differ for axes of tiny amounts', () => {
    for (const max of [0.00012, 0.0004, 0.003, 0.07, 0.9]) {
      const ticks = labels(max, currencyTickDigits(max));
      expect(new Set(ticks).size, ticks.join(' ')).toBe(ticks.length);
    }
    // The dashboard's old fixed four decimals repeated "$0.0000" / "$0.0001" on this axis.
    const old = labels(0.00012, 4);
    expect(new Set(old).size).toBeLessThan(old.length);
  });
});
