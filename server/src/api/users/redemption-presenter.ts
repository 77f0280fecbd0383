import type { RedemptionKeyView, RedemptionView } from '@switchyard/domain';
import type { RedemptionRow } from '../../db/queries/redemptions.js';

/** A code as lists and details show it: never its key. */
export function presentRedemption(r: RedemptionRow): RedemptionView {
  return {
    id: r.id,
    user_id: r.user_id,
    name: r.name,
    quota: r.quota,
    status: r.status,
    created_time: r.created_time,
    redeemed_time: r.redeemed_time,
    redeemed_by: r.redeemed_by,
  };
}

/** A code with its key, for the create answer and the export only. */
export function presentRedemptionKey(
  r: Pick<RedemptionRow, 'id' | 'name' | 'quota' | 'status'>,
  key: string,
): RedemptionKeyView {
  return { id: r.id, name: r.name, quota: r.quota, status: r.status, key };
}
