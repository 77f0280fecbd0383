import type { DailyModelUsage } from './api';

export interface DayTotals {
  requests: number;
  quota: number;
  tokens: number;
}

/** Requests, quota and tokens on `date`, all models together. */
export function totalsOn(rows: readonly DailyModelUsage[], date: string): DayTotals {
  const out: DayTotals = { requests: 0, quota: 0, tokens: 0 };
  for (const r of rows) {
    if (r.date !== date) continue;
    out.requests += r.requestCount;
    out.quota += r.quota;
    out.tokens += r.promptTokens + r.completionTokens;
  }
  return out;
}

/** The seven UTC dates ending with `today` (the server's rollup days), oldest first. */
export function lastSevenDays(today: Date): string[] {
  const days: string[] = [];
  for (let i = 6; i >= 0; i--)
    days.push(new Date(today.getTime() - i * 86_400_000).toISOString().slice(0, 10));
  return days;
}

/** One series per model over `days` (missing days are 0), of the metric chosen. */
export function seriesByModel(
  rows: readonly DailyModelUsage[],
  days: readonly string[],
  metric: (r: DailyModelUsage) => number,
): { model: string; data: number[] }[] {
  const byModel = new Map<string, number[]>();
  for (const r of rows) {
    const index = days.indexOf(r.date);
    if (index < 0) continue;
    let data = byModel.get(r.modelName);
    if (!data) {
      data = days.map(() => 0);
      byModel.set(r.modelName, data);
    }
    data[index] = (data[index] ?? 0) + metric(r);
  }
  return [...byModel].sort(([a], [b]) => a.localeCompare(b)).map(([model, data]) => ({ model, data }));
}
