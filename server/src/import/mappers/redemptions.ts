import type { RedemptionsTable } from '../../db/tables.js';
import { int, text } from '../row-values.js';
import type { SourceRow } from '../source-reader.js';
import type { MapContext, Mapped } from './mapped.js';

type NewRedemption = Omit<RedemptionsTable, 'id'> & { id: number };

/** A code keeps its status: unused ones stay redeemable with the same string (looked up by HMAC). */
export function mapRedemption(r: SourceRow, ctx: MapContext): Mapped<NewRedemption> {
  const id = int(r, 'id');
  const key = text(r, 'key').trim();
  if (id <= 0) return { skip: 'no id' };
  if (key === '') return { skip: 'empty code' };
  return {
    row: {
      id,
      user_id: int(r, 'user_id'),
      // Same normalisation as redeeming: codes are matched lowercased.
      key_hash: ctx.box.mac(key.toLowerCase()),
      key_sealed: ctx.box.encrypt(key),
      status: int(r, 'status', 1),
      name: text(r, 'name').slice(0, 191),
      quota: int(r, 'quota'),
      created_time: int(r, 'created_time') || ctx.nowSeconds,
      redeemed_time: int(r, 'redeemed_time'),
      redeemed_by: int(r, 'used_user_id'),
    },
  };
}
