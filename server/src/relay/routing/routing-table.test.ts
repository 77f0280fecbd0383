import { describe, expect, it } from 'vitest';
import { type ChannelRow, toRoutableChannel } from './routable-channel.js';
import { channelServesModel, RoutingTable } from './routing-table.js';
import { channelRow } from './test-fixtures.js';

function table(...rows: (Partial<ChannelRow> & { id: number })[]): RoutingTable {
  return new RoutingTable(rows.map((r) => toRoutableChannel(channelRow(r))));
}

function ids(t: RoutingTable, group: string, model: string): number[][] | undefined {
  return t.tiers(group, model)?.map((tier) => tier.channels.map((c) => c.id));
}

describe('RoutingTable', () => {
  it('indexes every (group, model) pair of enabled channels only', () => {
    const t = table(
      { id: 1, group: 'default,vip', models: 'gpt-4o,gpt-4o-mini' },
      { id: 2, status: 2, models: 'gpt-4o' },
      { id: 3, status: 3, models: 'gpt-4o' },
      { id: 4, status: 0, models: 'gpt-4o' },
    );
    expect(ids(t, 'default', 'gpt-4o')).toEqual([[1]]);
    expect(ids(t, 'vip', 'gpt-4o-mini')).toEqual([[1]]);
    expect(t.tiers('other', 'gpt-4o')).toBeUndefined();
    expect(t.tiers('default', 'gpt-3.5')).toBeUndefined();
    expect(t.channel(2)).toBeUndefined();
    expect(t.channel(1)?.id).toBe(1);
    expect(t.size).toBe(1);
  });

  it('orders tiers by descending priority, channels by id inside a tier', () => {
    const t = table(
      { id: 5, priority: 0 },
      { id: 2, priority: 10 },
      { id: 9, priority: 0 },
      { id: 1, priority: 10 },
      { id: 3, priority: -5 },
    );
    expect(t.tiers('default', 'gpt-4o')?.map((x) => x.priority)).toEqual([10, 0, -5]);
    expect(ids(t, 'default', 'gpt-4o')).toEqual([[1, 2], [5, 9], [3]]);
  });

  it('prefers the exact model to any wildcard', () => {
    const t = table({ id: 1, models: 'gpt-4o' }, { id: 2, models: 'gpt-4*' }, { id: 3, models: 'gpt-4o*' });
    expect(ids(t, 'default', 'gpt-4o')).toEqual([[1]]);
  });

  it('uses the longest matching wildcard, whatever order the channels came in', () => {
    const rows = [
      { id: 1, models: 'gpt-*' },
      { id: 2, models: 'gpt-4o-*' },
      { id: 3, models: 'gpt-4*' },
      { id: 4, models: 'claude-*' },
    ];
    for (const order of [rows, [...rows].reverse(), [rows[2]!, rows[0]!, rows[3]!, rows[1]!]]) {
      const t = table(...order);
      expect(ids(t, 'default', 'gpt-4o-mini')).toEqual([[2]]);
      expect(ids(t, 'default', 'gpt-4-turbo')).toEqual([[3]]);
      expect(ids(t, 'default', 'gpt-3.5-turbo')).toEqual([[1]]);
      expect(ids(t, 'default', 'claude-3-opus')).toEqual([[4]]);
      expect(t.tiers('default', 'gemini-pro')).toBeUndefined();
      // A wildcard's prefix alone is a match too ("gpt-" starts with "gpt-").
      expect(ids(t, 'default', 'gpt-')).toEqual([[1]]);
    }
  });

  it('merges channels listing the same wildcard into one entry with tiers', () => {
    const t = table({ id: 1, models: 'gpt-*', priority: 1 }, { id: 2, models: 'gpt-*', priority: 2 });
    expect(ids(t, 'default', 'gpt-x')).toEqual([[2], [1]]);
  });

  it('ignores a bare "*"; an inner "*" is part of a literal name', () => {
    const t = new RoutingTable([{ ...toRoutableChannel(channelRow({ id: 1 })), models: ['*', 'a*b'] }]);
    expect(t.tiers('default', 'anything')).toBeUndefined();
    expect(t.tiers('default', 'a*b')?.length).toBe(1);
    expect(t.tiers('default', 'axb')).toBeUndefined();
  });

  it('answers whether a channel serves a group and model, and lists exact models per group', () => {
    const t = table(
      { id: 1, group: 'vip', models: 'gpt-4o,claude-*' },
      { id: 2, group: 'vip', models: 'o3', status: 2 },
    );
    expect(t.serves(1, 'vip', 'gpt-4o')).toBe(true);
    expect(t.serves(1, 'vip', 'claude-3-haiku')).toBe(true);
    expect(t.serves(1, 'default', 'gpt-4o')).toBe(false);
    expect(t.serves(1, 'vip', 'o3')).toBe(false);
    expect(t.serves(2, 'vip', 'o3')).toBe(false);
    expect(t.models('vip')).toEqual(['gpt-4o']);
    expect(t.groupNames()).toEqual(['vip']);
    const c = t.channel(1)!;
    expect(channelServesModel(c, 'claude-')).toBe(true);
    expect(channelServesModel(c, 'claude')).toBe(false);
  });

  it('builds 10 000 channels in linear time', () => {
    const channels = Array.from({ length: 10_000 }, (_, i) =>
      toRoutableChannel(
        channelRow({
          id: i + 1,
          group: `g${i % 10},default`,
          models: `m${i % 100},m${(i + 1) % 100},w${i % 7}-*`,
          priority: i % 3,
        }),
      ),
    );
    const t = new RoutingTable(channels);
    expect(t.size).toBe(10_000);
    // Each of the 100 models is listed by 200 channels, spread over 3 priorities.
    expect(t.tiers('default', 'm5')?.reduce((n, tier) => n + tier.channels.length, 0)).toBe(200);
    expect(t.tiers('g3', 'w2-anything')?.length).toBe(3);
  });
});
