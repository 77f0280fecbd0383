// Quota units, currency and number formatting. Shared by the console and by server-side
// texts (log details, mails) so both show the same figures.

export const QUOTA_PER_UNIT_DEFAULT = 500000;
/** Price ratio 1 = $0.002 per 1K tokens = 1 quota per token at the default QuotaPerUnit. */
export const USD_PER_QUOTA_UNIT = 0.002;
export const CNY_PER_QUOTA_UNIT = 0.014;
/** Largest single top-up amount. */
export const TOPUP_MAX = 1000000;

const UNITS = [
  { div: 1e9, suffix: 'B', from: 1e9 },
  { div: 1e6, suffix: 'M', from: 1e6 },
  { div: 1e3, suffix: 'k', from: 1e4 },
] as const;

/** 1e9 and up as "1.2B", 1e6 as "M", 1e4 as "k" (one decimal); smaller numbers as the integer. */
export function renderNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const sign = n < 0 ? '-' : '';
  const abs = Math.abs(n);
  for (let i = 0; i < UNITS.length; i++) {
    const u = UNITS[i]!;
    if (abs < u.from) continue;
    const shown = Math.round((abs / u.div) * 10) / 10;
    // 999_960 would otherwise read "1000.0k": move up a unit once rounding reaches it.
    const bigger = UNITS[i - 1];
    if (shown >= 1000 && bigger)
      return sign + (Math.round((abs / bigger.div) * 10) / 10).toFixed(1) + bigger.suffix;
    return sign + shown.toFixed(1) + u.suffix;
  }
  return sign + String(Math.round(abs));
}

export interface QuotaDisplay {
  quotaPerUnit: number;
  displayInCurrency: boolean;
  digits?: number;
}

/** "$" + quota / quotaPerUnit when showing currency, else the compact number. */
export function renderQuota(quota: number, o: QuotaDisplay): string {
  if (!o.displayInCurrency) return renderNumber(quota);
  const amount = currencyFromQuota(Math.abs(quota), o.quotaPerUnit);
  return (quota < 0 ? '-$' : '$') + amount.toFixed(o.digits ?? 2);
}

/** A currency amount typed by a person, in raw quota units (rounded half away from zero: -0.5 → -1 like 0.5 → 1). */
export function quotaFromCurrency(amount: number, quotaPerUnit: number): number {
  const raw = amount * quotaPerUnit;
  const rounded = Math.sign(raw) * Math.round(Math.abs(raw));
  return rounded === 0 ? 0 : rounded;
}

export function currencyFromQuota(quota: number, quotaPerUnit: number): number {
  return quota / quotaPerUnit;
}

/** Up to `digits` significant digits, trailing zeros trimmed, never in exponent notation. */
export function significant(x: number, digits = 6): string {
  if (x === 0 || !Number.isFinite(x)) return String(x === 0 ? 0 : x);
  const rounded = Number(x.toPrecision(digits));
  const magnitude = Math.floor(Math.log10(Math.abs(rounded)));
  const decimals = Math.min(100, Math.max(0, digits - 1 - magnitude));
  const s = rounded.toFixed(decimals);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

export interface PriceFigures {
  /** Dollars, without the symbol. */
  usd: string;
  /** Yuan, without the symbol. */
  cny: string;
}

/**
 * A price ratio as money: per 1K tokens (or per call for times prices), or ×1000 (per 1M tokens)
 * when `perThousand` is set. Zero is "Free".
 */
export function renderPrice(ratio: number, o: { perThousand?: boolean } = {}): 'Free' | PriceFigures {
  if (ratio === 0) return 'Free';
  const scale = o.perThousand ? 1000 : 1;
  return {
    usd: significant(ratio * USD_PER_QUOTA_UNIT * scale),
    cny: significant(ratio * CNY_PER_QUOTA_UNIT * scale),
  };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string | undefined): Intl.DateTimeFormat {
  const cacheKey = timeZone ?? '';
  let f = formatters.get(cacheKey);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      // h23, not hour12:false, which some engines render as "24" at midnight.
      hourCycle: 'h23',
    });
    formatters.set(cacheKey, f);
  }
  return f;
}

/** Unix seconds as "YYYY-MM-DD HH:mm:ss" in `timeZone` (default: the runtime's zone). */
export function formatTimestamp(seconds: number, timeZone?: string): string {
  if (!Number.isFinite(seconds)) return 'Invalid date';
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) return 'Invalid date';
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(date)) parts[p.type] = p.value;
  const year = (parts['year'] ?? '').padStart(4, '0');
  return `${year}-${parts['month']}-${parts['day']} ${parts['hour']}:${parts['minute']}:${parts['second']}`;
}
