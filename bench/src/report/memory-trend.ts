import { median } from './combine.js';
import { round } from './stats.js';

// Whether a process's memory stays flat under a steady load: the least-squares slope of its samples
// after a warm-up (JIT, pools, caches and the heap settle first), and the level at the start and the
// end of that window. A leak of a few bytes per request shows as a steady climb; the garbage
// collector's saw-tooth does not move a line fitted over minutes.

export interface MemorySample {
  /** Seconds since the load started. */
  tS: number;
  mb: number;
}

/** Least-squares slope of y over x; NaN with fewer than two distinct x. */
export function leastSquaresSlope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  let sx = 0;
  let sy = 0;
  for (const p of points) {
    sx += p.x;
    sy += p.y;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) ** 2;
  }
  return sxx > 0 ? sxy / sxx : Number.NaN;
}

export interface MemoryTrend {
  /** Samples in the judged window (after the warm-up). */
  samples: number;
  /** Median of the first samples of the window, so one collection does not decide it. */
  startMb: number;
  /** Median of the last samples of the window. */
  endMb: number;
  /** Highest sample of the whole run, warm-up included. */
  maxMb: number;
  /** Least-squares slope over the window, MiB per minute. */
  slopeMbPerMin: number;
}

/** Samples at each end of the window whose median is the start and the end level. */
export const EDGE_SAMPLES = 5;

/** The trend of `samples` (any order) over the window from `warmupS` on. */
export function memoryTrend(samples: readonly MemorySample[], warmupS: number): MemoryTrend {
  const all = [...samples].sort((a, b) => a.tS - b.tS);
  const window = all.filter((s) => s.tS >= warmupS);
  const head = window.slice(0, EDGE_SAMPLES).map((s) => s.mb);
  const tail = window.slice(-EDGE_SAMPLES).map((s) => s.mb);
  return {
    samples: window.length,
    startMb: round(median(head), 1),
    endMb: round(median(tail), 1),
    maxMb: round(all.length > 0 ? Math.max(...all.map((s) => s.mb)) : Number.NaN, 1),
    slopeMbPerMin: round(leastSquaresSlope(window.map((s) => ({ x: s.tS / 60, y: s.mb }))), 2),
  };
}
