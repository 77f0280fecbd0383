import { z } from 'zod';
import { TOPUP_MAX } from '../quota.js';

// A top-up is a positive whole amount (in USD units), at most 1000000, at least the minimum the
// administrator set (PaymentMinAmount). One rule for the console's form and the server's order route.

export type TopupAmountProblem = 'required' | 'notWholePositive' | 'tooLarge' | 'belowMinimum';

/** What is wrong with an amount typed as text, or null when it may be paid. */
export function topupAmountProblem(text: string, minimum: number): TopupAmountProblem | null {
  const trimmed = text.trim();
  if (trimmed === '') return 'required';
  if (!/^\d+$/.test(trimmed) || Number(trimmed) <= 0) return 'notWholePositive';
  const amount = Number(trimmed);
  if (amount > TOPUP_MAX) return 'tooLarge';
  if (amount < minimum) return 'belowMinimum';
  return null;
}

/** The same rule for a JSON number, with one-hub's English texts. */
export function topupAmount(minimum: number) {
  return z
    .number({ error: 'Amount is required' })
    .int('Amount must be a positive whole number')
    .positive('Amount must be a positive whole number')
    .max(TOPUP_MAX, `Amount cannot exceed ${TOPUP_MAX}`)
    .min(minimum, `Amount must be at least ${minimum}`);
}
