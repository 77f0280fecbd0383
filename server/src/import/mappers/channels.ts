import type { ChannelsTable } from '../../db/tables.js';
import { mapChannelType } from '../channel-types.js';
import { flag, int, jsonValue, num, text, unixOrNull } from '../row-values.js';
import type { SourceRow } from '../source-reader.js';
import { type MapContext, type Mapped, objectJson } from './mapped.js';

type NewChannel = Omit<ChannelsTable, 'id'> & { id: number };

/** A channel keeps its id (logs refer to it); its type is mapped and its base URL made an API root. */
export function mapChannel(r: SourceRow, ctx: MapContext): Mapped<NewChannel> {
  const id = int(r, 'id');
  if (id <= 0) return { skip: 'no id' };
  const oldType = int(r, 'type');
  const mapped = mapChannelType(ctx.system, oldType, text(r, 'base_url'));
  if (!mapped.ok) return { skip: mapped.reason };
  const key = text(r, 'key').trim();
  if (key === '') return { skip: 'empty key' };
  const notes: string[] = [];
  if (mapped.note) notes.push(mapped.note);
  if (text(r, 'system_prompt').trim()) notes.push('system prompt not carried over');
  // one-api and new-api keep type settings (region, API version) in `config`; `other` is older.
  const config = jsonValue(r, 'config') as Record<string, unknown> | undefined;
  let other = text(r, 'other');
  if (!other && config && typeof config.region === 'string') other = config.region;
  if (!other && config && typeof config.api_version === 'string') other = config.api_version;
  const row: NewChannel = {
    id,
    type: mapped.type,
    key_sealed: ctx.box.encrypt(key),
    status: int(r, 'status', 1),
    name: text(r, 'name').slice(0, 191),
    weight: int(r, 'weight', 1),
    created_time: int(r, 'created_time') || ctx.nowSeconds,
    test_time: int(r, 'test_time'),
    response_time: int(r, 'response_time'),
    base_url: mapped.baseUrl,
    other,
    balance: num(r, 'balance'),
    balance_updated_time: int(r, 'balance_updated_time'),
    models: text(r, 'models'),
    group: text(r, 'group', 'default') || 'default',
    tag: text(r, 'tag').slice(0, 191),
    used_quota: int(r, 'used_quota'),
    model_mapping: objectJson(jsonValue(r, 'model_mapping')),
    model_headers: objectJson(jsonValue(r, 'model_headers')),
    custom_parameter: objectJson(jsonValue(r, 'custom_parameter')),
    priority: int(r, 'priority'),
    proxy: text(r, 'proxy'),
    test_model: text(r, 'test_model'),
    only_chat: flag(r, 'only_chat'),
    pre_cost: int(r, 'pre_cost', 1),
    plugin: objectJson(jsonValue(r, 'plugin')),
    deleted_at: unixOrNull(r, 'deleted_at'),
  };
  return notes.length ? { row, note: notes.join('; ') } : { row };
}
