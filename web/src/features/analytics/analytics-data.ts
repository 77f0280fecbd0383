// Shapes of GET /api/analytics/statistics and /period (with this server's camelCase keys)
// and their conversion into chart series: one series per model, owner or channel, per UTC day.

export interface AnalyticsStatistics {
  userStatistics: { totalQuota: number; totalUsedQuota: number; totalUser: number; totalInviterUser: number };
  channelStatistics: { status: number; totalChannels: number }[];
  redemptionStatistics: { status: number; count: number; quota: number }[];
  orderStatistics: { orderCurrency: string; quota: number; money: number }[];
}

export interface UsageRow {
  date: string;
  channel: string;
  requestCount: number;
  quota: number;
  promptTokens: number;
  completionTokens: number;
  requestTime: number;
}

export interface AnalyticsPeriod {
  from: string;
  to: string;
  userStatistics: { date: string; userCount: number; inviterUserCount: number }[];
  channelStatistics: UsageRow[];
  redemptionStatistics: { date: string; count: number; quota: number; userCount: number }[];
  orderStatistics: {
    date: string;
    orderCurrency: string;
    count: number;
    orderAmount: number;
    quota: number;
  }[];
}

/** Every UTC date from `from` to `to` (YYYY-MM-DD), inclusive. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end && out.length < 400; t += 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

export interface Series {
  label: string;
  data: number[];
}

/**
 * One series per group (model, owner or channel) of `value`, aligned on `days`. The `limit` biggest
 * groups keep their name; the rest are summed under `otherLabel` so the chart stays readable.
 */
export function groupedSeries(
  rows: readonly UsageRow[],
  days: readonly string[],
  value: (row: UsageRow) => number,
  limit: number,
  otherLabel: string,
): Series[] {
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(r.channel, (totals.get(r.channel) ?? 0) + value(r));
  const ranked = [...totals.entries()].filter(([, total]) => total > 0).sort((a, b) => b[1] - a[1]);
  const named = new Set(ranked.slice(0, limit).map(([name]) => name));
  const index = new Map(days.map((d, i) => [d, i]));
  const series = new Map<string, number[]>();
  for (const r of rows) {
    const i = index.get(r.date);
    const v = value(r);
    if (i === undefined || v === 0) continue;
    const label = named.has(r.channel) ? r.channel : otherLabel;
    let data = series.get(label);
    if (!data) {
      data = days.map(() => 0);
      series.set(label, data);
    }
    data[i] = (data[i] ?? 0) + v;
  }
  const order = [...ranked.slice(0, limit).map(([name]) => name), otherLabel];
  return order
    .filter((label) => series.has(label))
    .map((label) => ({ label, data: series.get(label) as number[] }));
}

/** A per-day total of `value` over rows that carry a date. */
export function dailyTotals<R extends { date: string }>(
  rows: readonly R[],
  days: readonly string[],
  value: (row: R) => number,
): number[] {
  const out = days.map(() => 0);
  const index = new Map(days.map((d, i) => [d, i]));
  for (const r of rows) {
    const i = index.get(r.date);
    if (i !== undefined) out[i] = (out[i] ?? 0) + value(r);
  }
  return out;
}

/** Average latency per day in seconds: summed request time over summed requests. */
export function averageLatency(rows: readonly UsageRow[], days: readonly string[]): number[] {
  const time = dailyTotals(rows, days, (r) => r.requestTime);
  const count = dailyTotals(rows, days, (r) => r.requestCount);
  return time.map((ms, i) => (count[i] ? Math.round(ms / (count[i] as number)) / 1000 : 0));
}
