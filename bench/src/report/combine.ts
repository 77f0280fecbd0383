import type { LoadResult, LoopDelay } from './results.js';
import { round } from './stats.js';

// The targets are measured in short interleaved rounds (direct, bare proxy, gateway, in rotating
// order), so a burst of noise from elsewhere on the machine hits all three alike. Each figure is
// then the median over the rounds.

export function median(values: readonly number[]): number {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
}

/** The list started at position `shift` (round r puts a different target first). */
export function rotate<T>(list: readonly T[], shift: number): T[] {
  if (list.length === 0) return [];
  const s = ((shift % list.length) + list.length) % list.length;
  return [...list.slice(s), ...list.slice(0, s)];
}

function medianOf<T>(runs: readonly T[], pick: (r: T) => number | undefined): number | undefined {
  const values = runs.map(pick).filter((v): v is number => v !== undefined);
  return values.length === 0 ? undefined : median(values);
}

/**
 * One result from the rounds of one target: medians of the rates, percentiles, CPU and loop delay;
 * totals of requests and failures; the worst max latency and backlog. `roundsRps` keeps each round's
 * rate, so the spread is visible in the results file.
 */
export function combineRounds(runs: readonly LoadResult[]): LoadResult {
  const first = runs[0];
  if (!first) throw new Error('no rounds to combine');
  const sum = (pick: (r: LoadResult) => number) => runs.reduce((n, r) => n + pick(r), 0);
  const combined: LoadResult = {
    connections: first.connections,
    durationS: round(
      sum((r) => r.durationS),
      2,
    ),
    requests: sum((r) => r.requests),
    rps: round(median(runs.map((r) => r.rps)), 1),
    p50Ms: round(median(runs.map((r) => r.p50Ms)), 3),
    p99Ms: round(median(runs.map((r) => r.p99Ms)), 3),
    maxMs: round(Math.max(...runs.map((r) => r.maxMs)), 3),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    roundsRps: runs.map((r) => r.rps),
  };
  const cpu = medianOf(runs, (r) => r.proxyCpuUsPerRequest);
  if (cpu !== undefined) combined.proxyCpuUsPerRequest = round(cpu, 0);
  const dbCpu = medianOf(runs, (r) => r.databaseCpuUsPerRequest);
  if (dbCpu !== undefined) combined.databaseCpuUsPerRequest = round(dbCpu, 0);
  const balancerCpu = medianOf(runs, (r) => r.balancerCpuUsPerRequest);
  if (balancerCpu !== undefined) combined.balancerCpuUsPerRequest = round(balancerCpu, 0);
  const loops = runs.map((r) => r.proxyLoopDelay).filter((l): l is LoopDelay => l !== undefined);
  if (loops.length > 0) {
    combined.proxyLoopDelay = {
      p50Ms: round(median(loops.map((l) => l.p50Ms)), 2),
      p99Ms: round(median(loops.map((l) => l.p99Ms)), 2),
      maxMs: round(Math.max(...loops.map((l) => l.maxMs)), 2),
    };
  }
  const backlogs = runs.map((r) => r.backlogS).filter((b): b is number => b !== undefined);
  if (backlogs.length > 0) combined.backlogS = Math.max(...backlogs);
  return combined;
}
