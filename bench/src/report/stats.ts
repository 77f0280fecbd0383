// Latency statistics over raw samples, for the measurements taken by our own Node clients (wrk and
// autocannon report their own percentiles).

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/**
 * Nearest-rank percentile of samples sorted ascending: the smallest sample with at least p% of
 * the samples at or below it. Nearest rank, not interpolation, so the answer is always a value that
 * was actually measured.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError('p must be between 0 and 100');
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** Percentiles, max and mean of unsorted samples (the input is not modified). */
export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  const list = Array.from(sorted);
  let total = 0;
  for (const v of list) total += v;
  return {
    count: list.length,
    p50: percentile(list, 50),
    p90: percentile(list, 90),
    p99: percentile(list, 99),
    max: list.length > 0 ? (list[list.length - 1] as number) : Number.NaN,
    mean: list.length > 0 ? total / list.length : Number.NaN,
  };
}

/** Rounds to a number of decimals for the report (NaN and infinities pass through). */
export function round(value: number, decimals: number): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}
