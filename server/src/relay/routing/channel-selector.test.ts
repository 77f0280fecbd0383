import { describe, expect, it } from 'vitest';
import { MemoryChannelHealth } from './channel-health.js';
import { ChannelSelector, type SelectRequest } from './channel-selector.js';
import { type ChannelRow, toRoutableChannel } from './routable-channel.js';
import { RoutingTable } from './routing-table.js';
import { channelRow, seededRandom } from './test-fixtures.js';

const NOW = 1_700_000_000_000;

function setup(rows: (Partial<ChannelRow> & { id: number })[], random: () => number = seededRandom(1)) {
  let clock = NOW;
  const health = new MemoryChannelHealth(() => clock);
  let table = new RoutingTable(rows.map((r) => toRoutableChannel(channelRow(r))));
  const selector = new ChannelSelector(() => table, health, random);
  const base: SelectRequest = { group: 'default', model: 'gpt-4o', needsTools: false, now: NOW };
  return {
    health,
    selector,
    pick: async (req: Partial<SelectRequest> = {}) =>
      (await selector.select({ ...base, now: clock, ...req }))?.channel.id,
    select: (req: Partial<SelectRequest> = {}) => selector.select({ ...base, now: clock, ...req }),
    advance: (ms: number) => {
      clock += ms;
    },
    replace: (next: (Partial<ChannelRow> & { id: number })[]) => {
      table = new RoutingTable(next.map((r) => toRoutableChannel(channelRow(r))));
    },
  };
}

describe('ChannelSelector: weighted random inside a tier', () => {
  it('picks channels in proportion to their weights (1 : 3 over 20 000 draws)', async () => {
    const { pick } = setup([
      { id: 1, weight: 1 },
      { id: 2, weight: 3 },
      { id: 3, weight: 5, priority: -1 },
    ]);
    const draws = 20_000;
    let first = 0;
    for (let i = 0; i < draws; i++) {
      const id = await pick();
      expect(id === 1 || id === 2).toBe(true);
      if (id === 1) first++;
    }
    const p = 1 / 4;
    const sd = Math.sqrt(draws * p * (1 - p));
    // Four standard deviations: a correct picker fails this about once in 16 000 seeds.
    expect(Math.abs(first - draws * p)).toBeLessThan(4 * sd);
  });

  it('treats weight 0 as 1 (an even split)', async () => {
    const { pick } = setup([
      { id: 1, weight: 0 },
      { id: 2, weight: 1 },
    ]);
    let first = 0;
    const draws = 10_000;
    for (let i = 0; i < draws; i++) if ((await pick()) === 1) first++;
    expect(Math.abs(first - draws / 2)).toBeLessThan(4 * Math.sqrt(draws / 4));
  });

  it('maps the random number onto cumulative weights at the edges', async () => {
    const rows = [
      { id: 1, weight: 1 },
      { id: 2, weight: 3 },
    ];
    expect(await setup(rows, () => 0).pick()).toBe(1);
    expect(await setup(rows, () => 0.2499).pick()).toBe(1);
    expect(await setup(rows, () => 0.25).pick()).toBe(2);
    expect(await setup(rows, () => 0.9999999).pick()).toBe(2);
  });
});

describe('ChannelSelector: tiers and failover', () => {
  const rows = [
    { id: 1, priority: 10 },
    { id: 2, priority: 10 },
    { id: 3, priority: 5 },
    { id: 4, priority: 0 },
  ];

  it('stays in the highest tier while any of its channels is usable', async () => {
    const { pick } = setup(rows);
    for (let i = 0; i < 200; i++) expect([1, 2]).toContain(await pick());
    for (let i = 0; i < 50; i++) expect(await pick({ exclude: new Set([1]) })).toBe(2);
  });

  it('falls through to the next tier when the top tier is excluded', async () => {
    const { pick } = setup(rows);
    expect(await pick({ exclude: new Set([1, 2]) })).toBe(3);
    expect(await pick({ exclude: new Set([1, 2, 3]) })).toBe(4);
    expect(await pick({ exclude: new Set([1, 2, 3, 4]) })).toBeUndefined();
  });

  it('falls through when the top tier is frozen for this model, and returns once the freeze ends', async () => {
    const { pick, health, advance } = setup(rows);
    await health.freeze(1, 'gpt-4o', 5);
    await health.freeze(2, 'gpt-4o', 5);
    expect(await pick()).toBe(3);
    // Every candidate left is frozen: the one whose freeze ends first, not a refusal.
    await health.freeze(1, 'gpt-4o', 3);
    expect(await pick({ exclude: new Set([3, 4]) })).toBe(1);
    expect(await pick({ exclude: new Set([1, 3, 4]) })).toBe(2);
    expect(await pick({ exclude: new Set([1, 2, 3, 4]) })).toBeUndefined();
    advance(4_999);
    expect(await pick()).toBe(3);
    advance(1);
    expect([1, 2]).toContain(await pick());
  });

  it('mixes freezes and exclusions of one request', async () => {
    const { pick, health } = setup(rows);
    await health.freeze(1, 'gpt-4o', 5);
    expect(await pick({ exclude: new Set([2]) })).toBe(3);
    await health.freeze(3, 'gpt-4o', 5);
    expect(await pick({ exclude: new Set([2]) })).toBe(4);
  });

  it('tries the frozen channel whose freeze ends first when all are frozen', async () => {
    const { pick, health, selector } = setup(rows);
    for (const [id, seconds] of [
      [1, 30],
      [2, 20],
      [3, 5],
      [4, 10],
    ] as const)
      await health.freeze(id, 'gpt-4o', seconds);
    expect(await pick()).toBe(3);
    expect(await pick({ exclude: new Set([3]) })).toBe(4);
    expect(selector.hasChannel('default', 'gpt-4o')).toBe(true);
    expect(selector.hasChannel('default', 'nosuch')).toBe(false);
    expect(selector.hasChannel('vip', 'gpt-4o')).toBe(false);
  });

  it('keeps freezes separate per model', async () => {
    const { pick, health } = setup([{ id: 1, models: 'gpt-4o,o3' }]);
    await health.freeze(1, 'gpt-4o', 5);
    const frozen = await health.frozenAmong([1], 'gpt-4o', NOW);
    expect(frozen.has(1)).toBe(true);
    expect((await health.frozenAmong([1], 'o3', NOW)).has(1)).toBe(false);
    // A single-channel model whose only channel cools down still gets its call.
    expect(await pick()).toBe(1);
    expect(await pick({ model: 'o3' })).toBe(1);
  });

  it('skips only_chat channels when the request carries tools', async () => {
    const { pick } = setup([
      { id: 1, priority: 10, only_chat: 1 },
      { id: 2, priority: 0 },
    ]);
    expect(await pick()).toBe(1);
    expect(await pick({ needsTools: true })).toBe(2);
    const onlyChat = setup([{ id: 1, only_chat: 1 }]);
    expect(await onlyChat.pick({ needsTools: true })).toBeUndefined();
  });

  it('never picks a disabled channel and sees a rebuilt table at once', async () => {
    const { pick, replace } = setup([
      { id: 1, priority: 10, status: 2 },
      { id: 2, priority: 5, status: 3 },
      { id: 3, priority: 0 },
    ]);
    for (let i = 0; i < 50; i++) expect(await pick()).toBe(3);
    replace([{ id: 3, status: 2 }]);
    expect(await pick()).toBeUndefined();
  });

  it('answers undefined for an unknown group or model', async () => {
    const { pick } = setup(rows);
    expect(await pick({ group: 'vip' })).toBeUndefined();
    expect(await pick({ model: 'o3' })).toBeUndefined();
  });

  it('routes wildcard requests to the longest prefix and exact names first', async () => {
    const { pick } = setup([
      { id: 1, models: 'gpt-*' },
      { id: 2, models: 'gpt-4o-*' },
      { id: 3, models: 'gpt-4o-mini' },
    ]);
    expect(await pick({ model: 'gpt-4o-mini' })).toBe(3);
    expect(await pick({ model: 'gpt-4o-audio' })).toBe(2);
    expect(await pick({ model: 'gpt-3.5' })).toBe(1);
  });
});

describe('ChannelSelector: model mapping', () => {
  it('sends the mapped model and bills it', async () => {
    const { select } = setup([{ id: 1, models: 'gpt-4', model_mapping: '{"gpt-4":"gpt-4o"}' }]);
    expect(await select({ model: 'gpt-4' })).toMatchObject({
      upstreamModel: 'gpt-4o',
      billedModel: 'gpt-4o',
    });
  });

  it('sends the mapped model but bills the requested one with a leading +', async () => {
    const { select } = setup([{ id: 1, models: 'gpt-4', model_mapping: '{"gpt-4":"+gpt-4o"}' }]);
    expect(await select({ model: 'gpt-4' })).toMatchObject({ upstreamModel: 'gpt-4o', billedModel: 'gpt-4' });
  });

  it('leaves unmapped models alone, also through a wildcard', async () => {
    const { select } = setup([{ id: 1, models: 'gpt-*', model_mapping: '{"gpt-4":"gpt-4o"}' }]);
    expect(await select({ model: 'gpt-4.1' })).toMatchObject({
      upstreamModel: 'gpt-4.1',
      billedModel: 'gpt-4.1',
    });
    expect(await select({ model: 'gpt-4' })).toMatchObject({ upstreamModel: 'gpt-4o' });
  });

  it('applies the chosen channel’s own mapping', async () => {
    const { select } = setup([
      { id: 1, priority: 1, model_mapping: '{"gpt-4o":"gpt-4o-2024-11-20"}' },
      { id: 2, priority: 0 },
    ]);
    expect(await select()).toMatchObject({ upstreamModel: 'gpt-4o-2024-11-20' });
    expect(await select({ exclude: new Set([1]) })).toMatchObject({
      upstreamModel: 'gpt-4o',
      billedModel: 'gpt-4o',
    });
  });
});

describe('ChannelSelector: pinned and excluded channels', () => {
  const rows = [
    { id: 1, priority: 10 },
    { id: 2, priority: 0, group: 'default,vip', models: 'gpt-4o,claude-*' },
    { id: 3, priority: 0, status: 2 },
    { id: 4, priority: 0, only_chat: 1 },
  ];

  it('uses a pinned channel even below the top tier and even while frozen', async () => {
    const { pick, health } = setup(rows);
    for (let i = 0; i < 20; i++) expect(await pick({ pinnedChannelId: 2 })).toBe(2);
    await health.freeze(2, 'gpt-4o', 60);
    expect(await pick({ pinnedChannelId: 2 })).toBe(2);
    expect(await pick({ pinnedChannelId: 2, model: 'claude-3-opus' })).toBe(2);
  });

  it('refuses a pinned channel that is disabled, unknown, or does not serve the group and model', async () => {
    const { pick } = setup(rows);
    expect(await pick({ pinnedChannelId: 3 })).toBeUndefined();
    expect(await pick({ pinnedChannelId: 99 })).toBeUndefined();
    expect(await pick({ pinnedChannelId: 1, group: 'vip' })).toBeUndefined();
    expect(await pick({ pinnedChannelId: 1, model: 'claude-3-opus' })).toBeUndefined();
  });

  it('does not fall back to other channels when the pinned one cannot serve', async () => {
    const { pick } = setup(rows);
    expect(await pick({ pinnedChannelId: 4, needsTools: true })).toBeUndefined();
    expect(await pick({ pinnedChannelId: 1, exclude: new Set([1]) })).toBeUndefined();
  });

  it('never uses the channel excluded with #!id', async () => {
    const { pick } = setup(rows);
    for (let i = 0; i < 20; i++) expect(await pick({ excludedChannelId: 1 })).not.toBe(1);
    expect(await pick({ excludedChannelId: 1, exclude: new Set([2]) })).toBe(4);
  });
});
