import type { ModelOwnersTable, PricesTable, StatisticsTable, UserGroupsTable } from '../../db/tables.js';
import { flag, int, jsonValue, num, text } from '../row-values.js';
import type { SourceRow } from '../source-reader.js';
import { type Mapped, objectJson } from './mapped.js';

// one-hub's user groups, prices and model owners share our columns (one-hub numbers channel types
// as our catalog does, so a price's channel_type needs no mapping).

export function mapUserGroup(r: SourceRow): Mapped<Omit<UserGroupsTable, 'id'>> {
  const symbol = text(r, 'symbol').trim();
  if (!symbol) return { skip: 'empty symbol' };
  const enable = r.enable === null || r.enable === undefined ? 1 : flag(r, 'enable');
  return {
    row: {
      symbol,
      name: text(r, 'name') || symbol,
      ratio: num(r, 'ratio', 1),
      api_rate: int(r, 'api_rate', 600),
      public: flag(r, 'public'),
      enable,
    },
  };
}

export function mapPrice(r: SourceRow): Mapped<PricesTable> {
  const model = text(r, 'model').trim();
  if (!model) return { skip: 'empty model name' };
  if (model.length > 191) return { skip: 'model name longer than 191 characters' };
  const type = text(r, 'type', 'tokens');
  if (type !== 'tokens' && type !== 'times') return { skip: `price type ${type}` };
  return {
    row: {
      model,
      type,
      channel_type: int(r, 'channel_type'),
      input: num(r, 'input'),
      output: num(r, 'output'),
      locked: flag(r, 'locked'),
      extra_ratios: objectJson(jsonValue(r, 'extra_ratios')),
    },
  };
}

export function mapModelOwner(r: SourceRow): Mapped<ModelOwnersTable> {
  const id = int(r, 'id');
  const name = text(r, 'name').trim();
  if (id <= 0) return { skip: 'no id' };
  if (!name) return { skip: 'empty name' };
  return { row: { id, name: name.slice(0, 191), icon: text(r, 'icon') } };
}

/** A day of one-hub's statistics table (date, user, channel, model): the console's history charts. */
export function mapStatistic(r: SourceRow): Mapped<StatisticsTable> {
  const raw = r.date;
  const date =
    raw instanceof Date ? raw.toISOString().slice(0, 10) : /^\d{4}-\d{2}-\d{2}/.exec(text(r, 'date'))?.[0];
  if (!date) return { skip: `unreadable date ${text(r, 'date')}` };
  const model = text(r, 'model_name');
  if (model.length > 191) return { skip: 'model name longer than 191 characters' };
  return {
    row: {
      date,
      user_id: int(r, 'user_id'),
      channel_id: int(r, 'channel_id'),
      model_name: model,
      request_count: int(r, 'request_count'),
      quota: int(r, 'quota'),
      prompt_tokens: int(r, 'prompt_tokens'),
      completion_tokens: int(r, 'completion_tokens'),
      request_time: int(r, 'request_time'),
    },
  };
}
