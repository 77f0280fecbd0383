import { describe, expect, it } from 'vitest';
import type { DailyModelUsage } from './api';
import { lastSevenDays, seriesByModel, totalsOn } from './daily-usage';

const row = (date: string, modelName: string, quota: number): DailyModelUsage => ({
  date,
  modelName,
  requestCount: 2,
  quota,
  promptTokens: 10,
  completionTokens: 5,
  requestTime: 100,
});

describe('dashboard figures', () => {
  const rows = [
    row('2026-11-20', 'gpt-4o', 100),
    row('2026-11-23', 'gpt-4o', 30),
    row('2026-11-23', 'claude', 12),
  ];

  it('sums today over every model', () => {
    expect(totalsOn(rows, '2026-11-23')).toEqual({ requests: 4, quota: 42, tokens: 30 });
    expect(totalsOn(rows, '2026-11-22')).toEqual({ requests: 0, quota: 0, tokens: 0 });
  });

  it('lists the seven UTC days ending today', () => {
    expect(lastSevenDays(new Date('2026-11-23T22:00:00Z'))).toEqual([
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
    ]);
  });

  it('makes one series per model with zeros on days without use', () => {
    const days = lastSevenDays(new Date('2026-11-23T00:00:00Z'));
    expect(seriesByModel(rows, days, (r) => r.quota)).toEqual([
      { model: 'claude', data: [0, 0, 0, 0, 0, 0, 12] },
      { model: 'gpt-4o', data: [0, 0, 0, 100, 0, 0, 30] },
    ]);
  });
});
