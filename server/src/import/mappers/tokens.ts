import { sealApiKey } from '../../auth/api-keys.js';
import type { TokensTable } from '../../db/tables.js';
import { flag, int, jsonValue, text, unixOrNull } from '../row-values.js';
import type { SourceRow } from '../source-reader.js';
import type { MapContext, Mapped } from './mapped.js';

export type NewToken = Omit<TokensTable, 'id'> & { id: number };

const list = (raw: string, sep: RegExp) =>
  raw
    .split(sep)
    .map((s) => s.trim())
    .filter(Boolean);

/** Allowed models and subnets: one-api/new-api columns, or one-hub's `setting.limits` JSON. */
function limits(r: SourceRow): { models: string | null; subnet: string } {
  const setting = jsonValue(r, 'setting') as
    | {
        limits?: {
          limit_model_setting?: { enabled?: boolean; models?: string[] };
          limits_ip_setting?: { enabled?: boolean; whitelist?: string[] };
        };
      }
    | undefined;
  let models: string[] | null = null;
  let subnet: string[] = [];
  const lm = setting?.limits?.limit_model_setting;
  if (lm?.enabled && Array.isArray(lm.models) && lm.models.length) models = lm.models.map(String);
  const ip = setting?.limits?.limits_ip_setting;
  if (ip?.enabled && Array.isArray(ip.whitelist)) subnet = ip.whitelist.map(String);
  // one-api: `models` comma list, `subnet` comma list.
  const oneApiModels = list(text(r, 'models'), /,/);
  if (oneApiModels.length) models = oneApiModels;
  if (text(r, 'subnet').trim()) subnet = list(text(r, 'subnet'), /,/);
  // new-api: `model_limits_enabled` + `model_limits`, `allow_ips` one per line.
  if (flag(r, 'model_limits_enabled') && list(text(r, 'model_limits'), /,/).length)
    models = list(text(r, 'model_limits'), /,/);
  if (text(r, 'allow_ips').trim()) subnet = list(text(r, 'allow_ips'), /[\n,]/);
  return { models: models ? JSON.stringify(models) : null, subnet: subnet.join(',') };
}

/**
 * A token keeps its id and its key: the old key string (48 characters, stored without `sk-`) is
 * sealed and HMAC-indexed like ours, so clients holding it go on working with or without `sk-`.
 */
export function mapToken(r: SourceRow, ctx: MapContext): Mapped<NewToken> {
  const id = int(r, 'id');
  const key = text(r, 'key').trim();
  const userId = int(r, 'user_id');
  if (id <= 0) return { skip: 'no id' };
  if (key === '' || key === 'sk-') return { skip: 'empty key' };
  if (!ctx.userIds.has(userId)) return { skip: `its user #${userId} is not imported` };
  const { models, subnet } = limits(r);
  return {
    row: {
      id,
      user_id: userId,
      name: text(r, 'name').slice(0, 191),
      ...sealApiKey(ctx.box, key),
      status: int(r, 'status', 1),
      created_time: int(r, 'created_time') || ctx.nowSeconds,
      accessed_time: int(r, 'accessed_time'),
      expired_time: int(r, 'expired_time', -1),
      remain_quota: int(r, 'remain_quota'),
      unlimited_quota: flag(r, 'unlimited_quota'),
      used_quota: int(r, 'used_quota'),
      group: text(r, 'group'),
      models,
      subnet,
      deleted_at: unixOrNull(r, 'deleted_at'),
    },
  };
}
