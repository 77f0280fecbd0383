import { describe, expect, it } from 'vitest';
import { averageLatency, dailyTotals, daysBetween, groupedSeries, type UsageRow } from './analytics-data';

const row = (
  date: string,
  channel: string,
  quota: number,
  requestCount = 1,
  requestTime = 1000,
): UsageRow => ({
  date,
  channel,
  quota,
  requestCount,
  requestTime,
  promptTokens: 0,
  completionTokens: 0,
});

describe('analytics data', () => {
  it('lists every day of the period, across a month end', () => {
    expect(daysBetween('2026-01-30', '2026-02-02')).toEqual([
      '2026-01-30',
      '2026-01-31',
      '2026-02-01',
      '2026-02-02',
    ]);
    expect(daysBetween('2026-01-02', '2026-01-01')).toEqual([]);
  });

  it('makes one series per group, the biggest first, the rest under "other"', () => {
    const days = ['2026-01-01', '2026-01-02'];
    const rows = [
      row(days[0] as string, 'a', 5),
      row(days[1] as string, 'a', 5),
      row(days[0] as string, 'b', 7),
      row(days[1] as string, 'c', 1),
      row(days[1] as string, 'd', 2),
    ];
    expect(groupedSeries(rows, days, (r) => r.quota, 2, 'other')).toEqual([
      { label: 'a', data: [5, 5] },
      { label: 'b', data: [7, 0] },
      { label: 'other', data: [0, 3] },
    ]);
  });

  it('totals per day and averages latency in seconds', () => {
    const days = ['2026-01-01', '2026-01-02'];
    const rows = [
      row('2026-01-01', 'a', 1, 2, 3000),
      row('2026-01-01', 'b', 1, 2, 1000),
      row('2026-01-03', 'a', 9),
    ];
    expect(dailyTotals(rows, days, (r) => r.quota)).toEqual([2, 0]);
    expect(averageLatency(rows, days)).toEqual([1, 0]);
  });
});
