import { z } from 'zod';

// What a balance log row records, as fields: the console writes the sentence in the reader's
// language (with the amount as the site shows money), and the row's English `content` stays for
// API clients and for rows written before events existed. Stored in the row's metadata as `event`.

export const logEventSchema = z.discriminatedUnion('kind', [
  /** A redemption code was redeemed; the row's quota is what it credited. */
  z.object({ kind: z.literal('redeem'), code: z.string(), code_id: z.number().int() }),
  /** An administrator changed the balance by the row's quota (negative: deducted). */
  z.object({ kind: z.literal('admin_quota'), remark: z.string().optional() }),
  /** An online payment was credited. */
  z.object({
    kind: z.literal('topup'),
    /** Dollars bought. */
    amount: z.number(),
    /** What the payer paid, in `currency` (two decimals). */
    paid: z.string(),
    currency: z.string(),
    gateway: z.string(),
    trade_no: z.string(),
  }),
  z.object({ kind: z.literal('signup_bonus') }),
  z.object({ kind: z.literal('invitee_bonus') }),
  z.object({ kind: z.literal('inviter_reward'), invitee: z.string() }),
]);

export type LogEvent = z.infer<typeof logEventSchema>;
export type LogEventKind = LogEvent['kind'];

/** The event of a row's metadata, or undefined when it has none or one this version does not know. */
export function logEventOf(metadata: unknown): LogEvent | undefined {
  if (!metadata || typeof metadata !== 'object') return undefined;
  const parsed = logEventSchema.safeParse((metadata as { event?: unknown }).event);
  return parsed.success ? parsed.data : undefined;
}
