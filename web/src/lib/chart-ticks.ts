/**
 * The decimals a currency axis needs so that neighbouring ticks read differently: at least two,
 * and enough for the tick spacing of an axis from zero to `maxAmount` with about `ticks` ticks.
 */
export function currencyTickDigits(maxAmount: number, ticks = 5): number {
  if (!(maxAmount > 0) || !Number.isFinite(maxAmount)) return 2;
  const raw = maxAmount / ticks;
  // Charts step by 1, 2 or 5 times a power of ten; the smallest of these bounds the decimals.
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const digits = Math.ceil(-Math.log10(step) - 1e-9);
  return Math.min(10, Math.max(2, digits));
}
