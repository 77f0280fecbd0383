import type { CreatedTokenView, TokenView } from '@switchyard/domain';
import { maskApiKey, unsealApiKey } from '../../auth/api-keys.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { TokenRow } from '../../db/queries/tokens.js';

function parseModels(models: string | null): string[] | null {
  if (!models) return null;
  try {
    const list: unknown = JSON.parse(models);
    return Array.isArray(list) ? list.filter((m): m is string => typeof m === 'string') : null;
  } catch {
    return null;
  }
}

function keyHint(row: TokenRow, box: SecretBox): string {
  try {
    return maskApiKey(unsealApiKey(box, row.key_sealed));
  } catch {
    // Sealed under another SECRET_KEY: the list still works, the hint says nothing.
    return maskApiKey('');
  }
}

/** The only shape in which a token leaves the server, besides the create answer and GET .../key. */
export function presentToken(row: TokenRow, box: SecretBox): TokenView {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    key_hint: keyHint(row, box),
    status: row.status,
    created_time: row.created_time,
    accessed_time: row.accessed_time,
    expired_time: row.expired_time,
    remain_quota: row.remain_quota,
    unlimited_quota: row.unlimited_quota === 1,
    used_quota: row.used_quota,
    group: row.group,
    models: parseModels(row.models),
    subnet: row.subnet,
  };
}

/** POST /api/token/ answers with the new key in full, once. */
export function presentCreatedToken(row: TokenRow, box: SecretBox, key: string): CreatedTokenView {
  return { ...presentToken(row, box), key };
}
