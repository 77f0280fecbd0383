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
  /** The full soak: five minutes, the first one warm-up, floors per minute (single samples). */
  const minutes = { warmupS: 60, windowS: 60, durationS: 300, holdS: 0 };
  /** The garbage collector's saw-tooth: 80 MiB of growth over `periodS`, then back to the floor. */
  const tooth = (tS: number, periodS = 40) => ((tS % periodS) / periodS) * 80;

  it('takes the floor of each minute after the warm-up, and the slope of the floors', () => {
    // A floor rising 3 MiB a minute under the tooth; the warm-up climbs steeply and is left out.
    const samples = series(300, (t) => (t < 60 ? 50 + t : 200 + ((t - 60) / 60) * 3 + tooth(t)));
    const trend = memoryTrend(samples, minutes);
    expect(trend.floorsMb).toHaveLength(4);
    expect(trend.slopeMbPerMin).toBeCloseTo(3, 0);
    // The first trough after the warm-up is at 80 s, the last at 240 s.
    expect(trend.startMb).toBeCloseTo(201, 1);
    expect(trend.endMb).toBeCloseTo(209, 1);
    expect(trend.samples).toBe(121);
  });

  it('does not depend on where in a tooth the soak stops, unlike a line through every sample', () => {
    // A flat process with a 55 s tooth, the soak stopping anywhere in its last ten seconds.
    const flat = (t: number) => 200 + tooth(t, 55);
    const trends = [];
    for (let stop = 290; stop <= 300; stop += 2) trends.push(memoryTrend(series(stop, flat), minutes));
    for (const t of trends) {
      expect(Math.abs(t.slopeMbPerMin)).toBeLessThan(0.5);
      expect(t.endMb).toBeLessThan(t.startMb + 3);
    }
    // A line through every sample of the same process tilts by more than 2 MiB a minute.
    const stops = [];
    for (let stop = 270; stop <= 300; stop += 2) stops.push(memoryTrend(series(stop, flat), minutes));
    expect(Math.max(...stops.map((t) => Math.abs(t.sampleSlopeMbPerMin)))).toBeGreaterThan(2);
  });

  it('counts only the whole windows inside the planned length', () => {
    // A 190 s run: the minutes from 60 s and from 120 s count; the cut one from 180 s does not.
    const cut = memoryTrend(
      series(190, (t) => (t >= 180 ? 10 : 100)),
      { ...minutes, durationS: 190 },
    );
    expect(cut.floorsMb).toEqual([100, 100]);
    expect(cut.endMb).toBe(100);
    // A soak that stopped early has its missing windows left out, not filled.
    expect(
      memoryTrend(
        series(150, () => 100),
        minutes,
      ).floorsMb,
    ).toEqual([100, 100]);
  });

  it('takes the maximum over the whole run, warm-up included', () => {
    const trend = memoryTrend(
      series(300, (t) => (t === 10 ? 250 : 150)),
      minutes,
    );
    expect(trend.maxMb).toBe(250);
    expect(trend.slopeMbPerMin).toBe(0);
  });

  it('sorts the samples by time first', () => {
    const samples = series(300, (t) => 100 + t / 30).reverse();
    expect(memoryTrend(samples, minutes).slopeMbPerMin).toBeCloseTo(2);
  });

  it('has no figures when nothing was sampled after the warm-up', () => {
    const trend = memoryTrend(
      series(30, () => 100),
      minutes,
    );
    expect(trend.samples).toBe(0);
    expect(trend.floorsMb).toEqual([]);
    expect(trend.slopeMbPerMin).toBeNaN();
    expect(trend.startMb).toBeNaN();
    expect(trend.maxMb).toBe(100);
  });

  it('takes a level memory held, not a dip shorter than the hold', () => {
    // Flat at 170 MiB, but for a 4 s dip to 158 MiB at 105 s and a 30 s stretch at 150 MiB at 200 s.
    const samples = series(300, (t) => (t >= 104 && t <= 108 ? 158 : t >= 200 && t < 230 ? 150 : 170));
    const trend = memoryTrend(samples, { ...minutes, holdS: 10 });
    expect(trend.floorsMb).toEqual([170, 170, 150, 170]);
    expect(trend.lowestMb).toEqual([158, 170, 150, 170]);
    // Single samples, as before a hold was asked for: the dip is the first floor.
    expect(memoryTrend(samples, minutes).floorsMb).toEqual([158, 170, 150, 170]);
  });

  it('holds across a window boundary: a level held from the end of one window into the next counts', () => {
    const samples = series(300, (t) => (t >= 114 && t <= 130 ? 160 : 170));
    expect(memoryTrend(samples, { ...minutes, holdS: 10 }).floorsMb).toEqual([160, 160, 170, 170]);
  });
});
