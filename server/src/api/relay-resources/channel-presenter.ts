import type { ChannelView } from '@switchyard/domain';
import type { ChannelRow } from '../../db/queries/channels.js';

function jsonMap<T>(text: string, isValue: (v: unknown) => v is T): Record<string, T> {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, T] => isValue(e[1])));
  } catch {
    return {};
  }
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isAny = (_: unknown): _ is unknown => true;

const list = (stored: string) =>
  stored
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The only shape in which a channel leaves the server: everything but its key. */
export function presentChannel(row: ChannelRow): ChannelView {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    status: row.status,
    priority: row.priority,
    weight: row.weight,
    base_url: row.base_url,
    other: row.other,
    models: list(row.models),
    group: list(row.group),
    tag: row.tag,
    model_mapping: jsonMap(row.model_mapping, isString),
    model_headers: jsonMap(row.model_headers, isString),
    custom_parameter: jsonMap(row.custom_parameter, isAny),
    plugin: jsonMap(row.plugin, isAny),
    proxy: row.proxy,
    test_model: row.test_model,
    only_chat: row.only_chat === 1,
    pre_cost: row.pre_cost,
    created_time: row.created_time,
    test_time: row.test_time,
    response_time: row.response_time,
    balance: row.balance,
    balance_updated_time: row.balance_updated_time,
    used_quota: row.used_quota,
  };
}
