import { describe, expect, it } from 'vitest';
import {
  CNY_PER_QUOTA_UNIT,
  currencyFromQuota,
  formatTimestamp,
  QUOTA_PER_UNIT_DEFAULT,
  quotaFromCurrency,
  renderNumber,
  renderPrice,
  renderQuota,
  significant,
  TOPUP_MAX,
  USD_PER_QUOTA_UNIT,
} from './quota.js';

describe('constants', () => {
  it('match the published unit: 500000 per $1, 0.002 USD and 0.014 CNY per unit', () => {
    expect(QUOTA_PER_UNIT_DEFAULT).toBe(500000);
    expect(USD_PER_QUOTA_UNIT).toBe(0.002);
    expect(CNY_PER_QUOTA_UNIT).toBe(0.014);
    expect(TOPUP_MAX).toBe(1000000);
  });
});

describe('renderNumber', () => {
  it('shows small numbers as the integer', () => {
    expect(renderNumber(0)).toBe('0');
    expect(renderNumber(42)).toBe('42');
    expect(renderNumber(9999)).toBe('9999');
    expect(renderNumber(12.6)).toBe('13');
  });

  it('switches unit exactly at 1e4, 1e6 and 1e9', () => {
    expect(renderNumber(10000)).toBe('10.0k');
    expect(renderNumber(12345)).toBe('12.3k');
    expect(renderNumber(999_949)).toBe('999.9k');
    expect(renderNumber(1_000_000)).toBe('1.0M');
    expect(renderNumber(2_560_000)).toBe('2.6M');
    expect(renderNumber(999_999_999)).toBe('1.0B');
    expect(renderNumber(1_000_000_000)).toBe('1.0B');
    expect(renderNumber(1_234_567_890)).toBe('1.2B');
    expect(renderNumber(5e12)).toBe('5000.0B');
  });

  it('moves up a unit instead of showing 1000.0 of the smaller one', () => {
    expect(renderNumber(999_960)).toBe('1.0M');
  });

  it('keeps the sign', () => {
    expect(renderNumber(-25_000)).toBe('-25.0k');
    expect(renderNumber(-7)).toBe('-7');
  });
});

describe('renderQuota', () => {
  const currency = { quotaPerUnit: 500000, displayInCurrency: true };

  it('shows dollars with two decimals when displaying currency', () => {
    expect(renderQuota(500000, currency)).toBe('$1.00');
    expect(renderQuota(0, currency)).toBe('$0.00');
    expect(renderQuota(1, currency)).toBe('$0.00');
    expect(renderQuota(1_234_567, currency)).toBe('$2.47');
    expect(renderQuota(-250000, currency)).toBe('-$0.50');
    expect(renderQuota(1, { ...currency, digits: 6 })).toBe('$0.000002');
    expect(renderQuota(1000, { quotaPerUnit: 1000, displayInCurrency: true })).toBe('$1.00');
  });

  it('shows the compact number otherwise', () => {
    const raw = { quotaPerUnit: 500000, displayInCurrency: false };
    expect(renderQuota(500000, raw)).toBe('500.0k');
    expect(renderQuota(999, raw)).toBe('999');
  });
});

describe('currency conversion', () => {
  it('multiplies by quotaPerUnit and rounds to an integer', () => {
    expect(quotaFromCurrency(1, 500000)).toBe(500000);
    expect(quotaFromCurrency(0.1, 500000)).toBe(50000);
    expect(quotaFromCurrency(0.0000011, 500000)).toBe(1);
    expect(quotaFromCurrency(0.0000009, 500000)).toBe(0);
    expect(quotaFromCurrency(1.234567, 500000)).toBe(617284);
    expect(quotaFromCurrency(-0.000001, 500000)).toBe(-1);
    expect(Object.is(quotaFromCurrency(-0.0000001, 500000), 0)).toBe(true);
  });

  it('converts back', () => {
    expect(currencyFromQuota(500000, 500000)).toBe(1);
    expect(currencyFromQuota(1, 500000)).toBe(0.000002);
  });
});

describe('significant', () => {
  it('keeps six significant digits and trims zeros without exponents', () => {
    expect(significant(0.0025)).toBe('0.0025');
    expect(significant(1 / 3)).toBe('0.333333');
    expect(significant(1234567)).toBe('1234570');
    expect(significant(2e-7)).toBe('0.0000002');
    expect(significant(100)).toBe('100');
    expect(significant(0)).toBe('0');
  });
});

describe('renderPrice', () => {
  it('says Free for zero', () => {
    expect(renderPrice(0)).toBe('Free');
    expect(renderPrice(0, { perThousand: true })).toBe('Free');
  });

  it('converts at 0.002 USD and 0.014 CNY per unit', () => {
    expect(renderPrice(1)).toEqual({ usd: '0.002', cny: '0.014' });
    expect(renderPrice(1.25)).toEqual({ usd: '0.0025', cny: '0.0175' });
    expect(renderPrice(0.075)).toEqual({ usd: '0.00015', cny: '0.00105' });
  });

  it('multiplies by 1000 when asked', () => {
    expect(renderPrice(1.25, { perThousand: true })).toEqual({ usd: '2.5', cny: '17.5' });
    expect(renderPrice(5, { perThousand: true })).toEqual({ usd: '10', cny: '70' });
    expect(renderPrice(1 / 3, { perThousand: true })).toEqual({ usd: '0.666667', cny: '4.66667' });
  });
});

describe('formatTimestamp', () => {
  it('formats seconds as YYYY-MM-DD HH:mm:ss in the given zone', () => {
    expect(formatTimestamp(0, 'UTC')).toBe('1970-01-01 00:00:00');
    expect(formatTimestamp(1_700_000_000, 'UTC')).toBe('2023-11-14 22:13:20');
    expect(formatTimestamp(1_700_000_000, 'Asia/Shanghai')).toBe('2023-11-15 06:13:20');
    expect(formatTimestamp(1_700_000_000, 'America/New_York')).toBe('2023-11-14 17:13:20');
  });

  it('shows midnight as 00, not 24', () => {
    expect(formatTimestamp(86_400, 'UTC')).toBe('1970-01-02 00:00:00');
  });

  it('uses the runtime zone by default', () => {
    expect(formatTimestamp(1_700_000_000)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('reports unusable input as Invalid date', () => {
    expect(formatTimestamp(Number.NaN)).toBe('Invalid date');
    expect(formatTimestamp(Number.POSITIVE_INFINITY)).toBe('Invalid date');
    expect(formatTimestamp(1e16)).toBe('Invalid date');
  });
});
