import { z } from 'zod';
import { RedemptionStatus } from '../enums.js';

// Redemption codes (count at least 1, quota at least 0) and top-up by code: bodies shared with the console's forms.

export const REDEMPTION_NAME_MAX = 20;
export const REDEMPTION_COUNT_MAX = 100;
export const REDEMPTION_QUOTA_MAX = 1_000_000_000_000_000;
/** Generated keys are 32 hex characters; anything much longer is not a key. */
export const REDEMPTION_KEY_MAX = 64;

const name = z
  .string({ error: 'Name is required' })
  .trim()
  .min(1, 'Name is required')
  .max(REDEMPTION_NAME_MAX, `Name must be at most ${REDEMPTION_NAME_MAX} characters`);

const quota = z
  .number({ error: 'Quota is required' })
  .int('Quota must be a whole number')
  .min(0, 'Quota cannot be negative')
  .max(REDEMPTION_QUOTA_MAX, 'Quota is too large');

/** POST /api/redemption/: `count` codes of `quota` each, named `name`. */
export const redemptionCreateInput = z.strictObject({
  name,
  quota,
  count: z
    .number({ error: 'Count is required' })
    .int('Count must be a whole number')
    .min(1, 'Count must be at least 1')
    .max(REDEMPTION_COUNT_MAX, `Count must be at most ${REDEMPTION_COUNT_MAX}`)
    .default(1),
});
export type RedemptionCreateInput = z.infer<typeof redemptionCreateInput>;

const id = z.number({ error: 'id is required' }).int().positive('id is required');

/** PUT /api/redemption/: name and quota of an unused code. */
export const redemptionUpdateInput = z.strictObject({ id, name, quota });
export type RedemptionUpdateInput = z.infer<typeof redemptionUpdateInput>;

/** An administrator switches a code on or off; "used" is a state only redeeming sets. */
export const redemptionAdminStatus = z.union(
  [z.literal(RedemptionStatus.Enabled), z.literal(RedemptionStatus.Disabled)],
  { error: 'status must be 1 (enabled) or 2 (disabled)' },
);

/**
 * PUT /api/redemption/?status_only=1: only `id` and `status` are read, so the console may send the
 * whole row back with a new status.
 */
export const redemptionStatusInput = z.object({ id, status: redemptionAdminStatus });
export type RedemptionStatusInput = z.infer<typeof redemptionStatusInput>;

/** POST /api/user/topup. */
export const topupInput = z.strictObject({
  key: z
    .string({ error: 'The redemption code is required' })
    .trim()
    .min(1, 'The redemption code is required')
    .max(REDEMPTION_KEY_MAX, 'This is not a redemption code'),
});
export type TopupInput = z.infer<typeof topupInput>;

/** A code as the admin list shows it: never the key (that leaves only through `.../key` and export). */
export interface RedemptionView {
  id: number;
  /** The administrator who created it. */
  user_id: number;
  name: string;
  quota: number;
  status: number;
  created_time: number;
  redeemed_time: number;
  /** The user who redeemed it; 0 while unused. */
  redeemed_by: number;
}

/** A code with its key: the create answer and the export. */
export interface RedemptionKeyView {
  id: number;
  name: string;
  quota: number;
  status: number;
  key: string;
}
