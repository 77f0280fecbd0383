import { isOptionKey, parseOption } from '@switchyard/domain';
import type { OptionsTable, UserGroupsTable } from '../../db/tables.js';
import { text } from '../row-values.js';
import type { SourceRow } from '../source-reader.js';
import type { Mapped } from './mapped.js';

/** An option whose key exists here and whose value passes our validation. */
export function mapOption(r: SourceRow, nowSeconds: number): Mapped<OptionsTable> {
  const key = text(r, 'key');
  const value = text(r, 'value');
  if (!isOptionKey(key)) return { skip: 'no counterpart option' };
  const parsed = parseOption(key, value);
  if (!parsed.ok) return { skip: parsed.message };
  return { row: { key, value, updated_at: nowSeconds } };
}

/**
 * one-api and new-api have no user-group table: their groups live in the GroupRatio option as
 * `{"default":1,"vip":1}`. Each becomes a group with that ratio.
 */
export function groupsFromGroupRatio(raw: string): Mapped<Omit<UserGroupsTable, 'id'>>[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return [{ skip: 'GroupRatio is not JSON' }];
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return [{ skip: 'GroupRatio is not an object' }];
  return Object.entries(parsed as Record<string, unknown>).map(([symbol, ratio]) => {
    const n = Number(ratio);
    if (!symbol.trim() || symbol.length > 50)
      return { skip: `group "${symbol.slice(0, 60)}" has no usable name` };
    if (!Number.isFinite(n) || n < 0) return { skip: `group ${symbol} has ratio ${String(ratio)}` };
    return {
      row: { symbol, name: symbol, ratio: n, api_rate: 600, public: symbol === 'default' ? 1 : 0, enable: 1 },
    };
  });
}
