import { round } from './stats.js';

// Whether a process's memory stays flat under a steady load. Under load a Node process climbs and
// falls in a saw-tooth: the heap grows until a collection, then drops. The tooth can be tens of MiB
// high and most of a minute long, enough to tilt a line fitted through every sample by several MiB
// a minute depending only on where the soak happened to stop. So the trend is taken from the floor
// instead: the lowest level of each window (a minute, longer than a tooth), the level the process
// falls back to after a collection. A leak raises the floor; the tooth does not. A level counts
// when memory held it for a few seconds (`holdS`): V8's memory-reducing collection gives back the
// spare half of its young generation and takes it again at the next young collection, a dip of a
// few seconds below a level the process never returns to.

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
  /** Samples after the warm-up. */
  samples: number;
  /** Length of the windows the floors are taken over. */
  windowS: number;
  /** The lowest level held `holdS` of each window after the warm-up, in order. */
  floorsMb: number[];
  /** The lowest single sample of each window, held or not, in order. */
  lowestMb: number[];
  /** The first floor (the first window after the warm-up). */
  startMb: number;
  /** The last floor. */
  endMb: number;
  /** Highest sample of the whole run, warm-up included. */
  maxMb: number;
  /** Least-squares slope of the floors over the middles of their windows, MiB per minute. */
  slopeMbPerMin: number;
  /** Least-squares slope of every sample after the warm-up, saw-tooth included, MiB per minute. */
  sampleSlopeMbPerMin: number;
}

export interface TrendWindows {
  /** The first part of the run, left out. */
  warmupS: number;
  /** Longer than a tooth of the saw-tooth, so that every window holds a collection. */
  windowS: number;
  /** The run's planned length: only whole windows inside it count, a cut one may hold no collection. */
  durationS: number;
  /** How long memory must stay at or above a level for it to count as a floor; 0 takes single samples. */
  holdS: number;
}

/** The samples sorted by time, each with its held level: its highest from it to `holdS` seconds later. */
function withHeldLevels(
  samples: readonly MemorySample[],
  holdS: number,
): (MemorySample & { heldMb: number })[] {
  const sorted = [...samples].sort((a, b) => a.tS - b.tS);
  return sorted.map((s, i) => {
    let heldMb = s.mb;
    for (let j = i + 1; j < sorted.length && sorted[j]!.tS <= s.tS + holdS; j++)
      heldMb = Math.max(heldMb, sorted[j]!.mb);
    return { ...s, heldMb };
  });
}

/** The trend of `samples` (any order): floors over the whole windows between warm-up and end. */
export function memoryTrend(samples: readonly MemorySample[], w: TrendWindows): MemoryTrend {
  const all = withHeldLevels(samples, w.holdS);
  const judged = all.filter((s) => s.tS >= w.warmupS);
  const floors: { midMin: number; mb: number }[] = [];
  const lowest: number[] = [];
  const whole = Math.floor((w.durationS - w.warmupS) / w.windowS);
  for (let k = 0; k < whole; k++) {
    const start = w.warmupS + k * w.windowS;
    const inside = judged.filter((s) => s.tS >= start && s.tS < start + w.windowS);
    if (inside.length === 0) continue;
    floors.push({ midMin: (start + w.windowS / 2) / 60, mb: Math.min(...inside.map((s) => s.heldMb)) });
    lowest.push(Math.min(...inside.map((s) => s.mb)));
  }
  const floorsMb = floors.map((f) => round(f.mb, 1));
  return {
    samples: judged.length,
    windowS: w.windowS,
    floorsMb,
    lowestMb: lowest.map((mb) => round(mb, 1)),
    startMb: floorsMb[0] ?? Number.NaN,
    endMb: floorsMb[floorsMb.length - 1] ?? Number.NaN,
    maxMb: round(all.length > 0 ? Math.max(...all.map((s) => s.mb)) : Number.NaN, 1),
    slopeMbPerMin: round(leastSquaresSlope(floors.map((f) => ({ x: f.midMin, y: f.mb }))), 2),
    sampleSlopeMbPerMin: round(leastSquaresSlope(judged.map((s) => ({ x: s.tS / 60, y: s.mb }))), 2),
  };
}
