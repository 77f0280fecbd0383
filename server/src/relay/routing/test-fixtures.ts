// Shared by tests: the routing tests, and the ledger's where it needs channel rows.
import type { ChannelRow } from './routable-channel.js';

/** A stored channel row with defaults like the console's create form; override what a test needs. */
export function channelRow(overrides: Partial<ChannelRow> & { id: number }): ChannelRow {
  return {
    type: 1,
    key_sealed: `sealed-${overrides.id}`,
    status: 1,
    name: `channel ${overrides.id}`,
    weight: 1,
    created_time: 1_700_000_000,
    test_time: 0,
    response_time: 0,
    base_url: '',
    other: '',
    balance: 0,
    balance_updated_time: 0,
    models: 'gpt-4o',
    group: 'default',
    tag: '',
    used_quota: 0,
    model_mapping: '',
    model_headers: '',
    custom_parameter: '',
    priority: 0,
    proxy: '',
    test_model: '',
    only_chat: 0,
    pre_cost: 1,
    plugin: '',
    deleted_at: null,
    ...overrides,
  };
}

/** mulberry32: a tiny deterministic generator, so statistical tests give the same draws every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
