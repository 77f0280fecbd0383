import { describe, expect, it } from 'vitest';
import { leastSquaresSlope, type MemorySample, memoryTrend } from './memory-trend.js';

/** A sample every 2 s for `seconds`, memory given by `mb(t)`. */
function series(seconds: number, mb: (tS: number) => number): MemorySample[] {
  return Array.from({ length: seconds / 2 + 1 }, (_, i) => ({ tS: i * 2, mb: mb(i * 2) }));
}

describe('leastSquaresSlope', () => {
  it('recovers the slope of points on a line', () => {
    expect(leastSquaresSlope([0, 1, 2, 3].map((x) => ({ x, y: 5 + 2 * x })))).toBeCloseTo(2);
    expect(leastSquaresSlope([0, 1, 2].map((x) => ({ x, y: 7 - x })))).toBeCloseTo(-1);
  });

  it('fits through scatter: symmetric noise around a flat line gives no slope', () => {
    const points = [
      { x: 0, y: 10 },
      { x: 1, y: 12 },
      { x: 2, y: 8 },
      { x: 3, y: 8 },
      { x: 4, y: 12 },
      { x: 5, y: 10 },
    ];
    expect(leastSquaresSlope(points)).toBeCloseTo(0);
  });

  it('is NaN without two distinct x', () => {
    expect(leastSquaresSlope([])).toBeNaN();
    expect(leastSquaresSlope([{ x: 1, y: 1 }])).toBeNaN();
    expect(
      leastSquaresSlope([
        { x: 1, y: 1 },
        { x: 1, y: 3 },
      ]),
    ).toBeNaN();
  });
});

describe('memoryTrend', () => {
  it('judges only the window after the warm-up, in MiB per minute', () => {
    // Steep growth in the first minute (warm-up), then 1 MiB per minute.
    const samples = series(300, (t) => (t < 60 ? 100 + t : 160 + (t - 60) / 60));
    const trend = memoryTrend(samples, 60);
    expect(trend.slopeMbPerMin).toBeCloseTo(1, 2);
    expect(trend.samples).toBe(121);
    // Medians of the first and last five samples of the window: t = 64 s and t = 292 s.
    expect(trend.startMb).toBeCloseTo(160.1, 1);
    expect(trend.endMb).toBeCloseTo(163.9, 1);
  });

  it('takes the maximum over the whole run, warm-up included', () => {
    const samples = series(120, (t) => (t === 10 ? 250 : 150));
    const trend = memoryTrend(samples, 60);
    expect(trend.maxMb).toBe(250);
    expect(trend.slopeMbPerMin).toBe(0);
  });

  it('does not let one collection decide the start or the end level', () => {
    const samples = series(300, (t) => (t === 60 || t === 300 ? 90 : 150));
    const trend = memoryTrend(samples, 60);
    expect(trend.startMb).toBe(150);
    expect(trend.endMb).toBe(150);
  });

  it('sorts the samples by time first', () => {
    const samples = series(180, (t) => 100 + t / 30).reverse();
    expect(memoryTrend(samples, 60).slopeMbPerMin).toBeCloseTo(2);
  });

  it('has no figures when nothing was sampled after the warm-up', () => {
    const trend = memoryTrend(
      series(30, () => 100),
      60,
    );
    expect(trend.samples).toBe(0);
    expect(trend.slopeMbPerMin).toBeNaN();
    expect(trend.startMb).toBeNaN();
    expect(trend.maxMb).toBe(100);
  });
});
