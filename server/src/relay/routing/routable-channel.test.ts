import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../../db/create-db.js';
import { migrateToLatest } from '../../db/migrations/index.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { splitList, toRoutableChannel } from './routable-channel.js';
import { RoutingTable } from './routing-table.js';
import { channelRow } from './test-fixtures.js';

describe('toRoutableChannel', () => {
  it('splits group and model lists, trimming blanks and repeats', () => {
    const c = toRoutableChannel(
      channelRow({ id: 1, group: ' default, vip ,,default', models: 'gpt-4o, gpt-4o-mini,gpt-4o ,claude-*' }),
    );
    expect(c.groups).toEqual(['default', 'vip']);
    expect(c.models).toEqual(['gpt-4o', 'gpt-4o-mini', 'claude-*']);
    expect(c.problems).toEqual([]);
    expect(splitList('')).toEqual([]);
  });

  it('treats weight 0 as 1 and keeps other weights and priorities', () => {
    expect(toRoutableChannel(channelRow({ id: 1, weight: 0 })).weight).toBe(1);
    expect(toRoutableChannel(channelRow({ id: 1, weight: -4 })).weight).toBe(1);
    const c = toRoutableChannel(channelRow({ id: 1, weight: 7, priority: -3 }));
    expect(c.weight).toBe(7);
    expect(c.priority).toBe(-3);
  });

  it('reads only_chat as a boolean and keeps the key sealed', () => {
    const c = toRoutableChannel(channelRow({ id: 9, only_chat: 1, key_sealed: 'v1:abc' }));
    expect(c.onlyChat).toBe(true);
    expect(c.keySealed).toBe('v1:abc');
    expect(toRoutableChannel(channelRow({ id: 9, only_chat: 0 })).onlyChat).toBe(false);
  });

  it('parses the model mapping, with + meaning "bill the requested model"', () => {
    const c = toRoutableChannel(
      channelRow({
        id: 1,
        model_mapping: JSON.stringify({ 'gpt-4': 'gpt-4o', cheap: '+gpt-4o-mini', blank: '', '+': '+' }),
      }),
    );
    expect([...c.modelMapping]).toEqual([
      ['gpt-4', { upstream: 'gpt-4o', billRequested: false }],
      ['cheap', { upstream: 'gpt-4o-mini', billRequested: true }],
    ]);
    expect(c.problems).toEqual([]);
  });

  it('survives invalid JSON in mapping and headers, treating it as empty and reporting it', () => {
    const c = toRoutableChannel(channelRow({ id: 1, model_mapping: '{"a": ', model_headers: '[1,2]' }));
    expect(c.modelMapping.size).toBe(0);
    expect(c.modelHeaders).toEqual({});
    expect(c.problems).toEqual([
      'model_mapping is not valid JSON; ignored',
      'model_headers must be a JSON object; ignored',
    ]);
  });

  it('reports non-string mapping targets and bad headers, keeping the good entries', () => {
    const c = toRoutableChannel(
      channelRow({
        id: 1,
        model_mapping: '{"a": 5, "b": "c"}',
        // Written as text: an object literal's __proto__ would set a prototype, not a key.
        model_headers:
          '{"X-Org":"acme","Bad Name":"x","X-Split":"a\\r\\nInjected: 1","X-Num":3,"__proto__":"x"}',
      }),
    );
    expect([...c.modelMapping.keys()]).toEqual(['b']);
    expect(Object.entries(c.modelHeaders)).toEqual([
      ['X-Org', 'acme'],
      ['__proto__', 'x'],
    ]);
    expect(Object.getPrototypeOf(c.modelHeaders)).toBe(Object.prototype);
    expect(c.problems).toEqual([
      'model_mapping for "a" is not a string; ignored',
      'model_headers "Bad Name" is not a valid header name; ignored',
      'model_headers "X-Split" contains a line break; ignored',
      'model_headers "X-Num" is not a string; ignored',
    ]);
  });

  it('drops a bare "*" model, which would match nothing, and says so', () => {
    const c = toRoutableChannel(channelRow({ id: 1, models: '*,gpt-*' }));
    expect(c.models).toEqual(['gpt-*']);
    expect(c.problems).toHaveLength(1);
  });

  it('accepts empty and null JSON silently', () => {
    const c = toRoutableChannel(channelRow({ id: 1, model_mapping: 'null', model_headers: '  ' }));
    expect(c.modelMapping.size).toBe(0);
    expect(c.problems).toEqual([]);
  });
});

// The rows the relay loads come from a real database: check the column shapes on every engine
// (a quoted `group` column, bigint priority, 0/1 only_chat) arrive in a form the router accepts.
for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`channel rows from ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url);
      await migrateToLatest(d.db, d.dialect);
    });
    afterAll(async () => {
      await d?.close();
      await testDb?.drop();
    });

    it('builds a routing table from stored channels', async () => {
      const { id: _a, ...high } = channelRow({
        id: 0,
        name: 'high',
        group: 'default,vip',
        models: 'gpt-4o,claude-*',
        priority: 10_000_000_000,
        only_chat: 1,
        model_mapping: '{"gpt-4o":"+gpt-4o-2024-08-06"}',
      });
      const { id: _b, ...low } = channelRow({ id: 0, name: 'low', priority: -1, weight: 0 });
      const { id: _c, ...off } = channelRow({ id: 0, name: 'off', status: 2 });
      await d.db.insertInto('channels').values([high, low, off]).execute();

      const rows = await d.db.selectFrom('channels').selectAll().where('deleted_at', 'is', null).execute();
      const table = new RoutingTable(rows.map(toRoutableChannel));
      expect(table.size).toBe(2);
      const tiers = table.tiers('default', 'gpt-4o')!;
      expect(tiers.map((t) => [t.priority, t.channels.map((c) => c.name)])).toEqual([
        [10_000_000_000, ['high']],
        [-1, ['low']],
      ]);
      const top = tiers[0]!.channels[0]!;
      expect(top.onlyChat).toBe(true);
      expect(top.groups).toEqual(['default', 'vip']);
      expect(top.modelMapping.get('gpt-4o')).toEqual({ upstream: 'gpt-4o-2024-08-06', billRequested: true });
      expect(tiers[1]!.channels[0]!.weight).toBe(1);
      expect(table.tiers('vip', 'claude-3-haiku')?.[0]?.channels[0]?.name).toBe('high');
    });
  });
}
