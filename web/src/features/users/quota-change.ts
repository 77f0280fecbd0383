import { quotaFromCurrency } from '@switchyard/domain';

// The administrator's quota change: filled in, never deducting more than the user's balance, and a
// currency amount converted to raw units.

export type QuotaUnit = 'currency' | 'raw';

export type QuotaChange =
  | { ok: true; delta: number }
  | { ok: false; problem: 'required' | 'invalid' | 'zero' | 'overdraft' };

export function quotaChange(
  text: string,
  unit: QuotaUnit,
  quotaPerUnit: number,
  balance: number,
): QuotaChange {
  const t = text.trim();
  if (t === '') return { ok: false, problem: 'required' };
  const amount = Number(t);
  if (!Number.isFinite(amount)) return { ok: false, problem: 'invalid' };
  if (unit === 'raw' && !Number.isInteger(amount)) return { ok: false, problem: 'invalid' };
  const delta = unit === 'currency' ? quotaFromCurrency(amount, quotaPerUnit) : amount;
  if (delta === 0) return { ok: false, problem: 'zero' };
  if (delta < 0 && -delta > balance) return { ok: false, problem: 'overdraft' };
  return { ok: true, delta };
}
