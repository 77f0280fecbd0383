import type { Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../../db/create-db.js';
import { migrateToLatest } from '../../db/migrations/index.js';
import type { Tables } from '../../db/tables.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { SettlementQueue, type SettlementQueueOptions } from './settlement-queue.js';
import { WriteBatcher, WriteBatcherClosedError } from './write-batcher.js';

// Items are keys written into `options` (unique key), so a duplicate is a real failure on every engine.

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`SettlementQueue on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    const queues: SettlementQueue<string, string>[] = [];
    /** The item lists of the groups as they ran (a group run again appears again). */
    let groups: string[][];
    /** What each of those runs was told: whether its group had run before. */
    let again: boolean[];
    let alone: string[];
    let writer: WriteBatcher;

    const write = (trx: Transaction<Tables>, keys: readonly string[]) =>
      trx
        .insertInto('options')
        .values(keys.map((key) => ({ key, value: key, updated_at: 0 })))
        .execute();
    const make = (options: SettlementQueueOptions = {}) => {
      groups = [];
      again = [];
      alone = [];
      writer = new WriteBatcher(d.db);
      const q = new SettlementQueue<string, string>(
        writer,
        {
          runGroup: async (trx, items, ranBefore) => {
            groups.push([...items]);
            again.push(ranBefore);
            await write(trx, items);
            return items.map((k) => `done:${k}`);
          },
          runOne: async (trx, item) => {
            alone.push(item);
            await write(trx, [item]);
            return `alone:${item}`;
          },
        },
        options,
      );
      queues.push(q);
      return q;
    };
    const keys = async (prefix: string) =>
      (await d.db.selectFrom('options').select('key').where('key', 'like', `${prefix}%`).execute())
        .map((r) => r.key)
        .sort();

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url);
      await migrateToLatest(d.db, d.dialect);
    });
    afterAll(async () => {
      for (const q of queues) await q.close();
      await d?.close();
      await testDb?.drop();
    });

    it('runs the items added while a group waits as that one group, answering each', async () => {
      const q = make();
      const names = Array.from({ length: 30 }, (_, i) => `q1-${String(i).padStart(2, '0')}`);
      const results = await Promise.all(names.map((k) => q.add(k)));
      expect(results).toEqual(names.map((k) => `done:${k}`));
      expect(groups).toEqual([names]);
      expect(alone).toEqual([]);
      expect(await keys('q1-')).toEqual(names);
    });

    it('starts a new group once the running one took its items', async () => {
      const q = make();
      const first = q.add('q2-a');
      await first;
      const second = await Promise.all([q.add('q2-b'), q.add('q2-c')]);
      expect(second).toEqual(['done:q2-b', 'done:q2-c']);
      expect(groups).toEqual([['q2-a'], ['q2-b', 'q2-c']]);
    });

    it('caps a group at maxGroup items', async () => {
      const q = make({ maxGroup: 4 });
      const names = Array.from({ length: 10 }, (_, i) => `q3-${i}`);
      await Promise.all(names.map((k) => q.add(k)));
      expect(groups.map((g) => g.length)).toEqual([4, 4, 2]);
      expect(groups.flat()).toEqual(names);
    });

    it('runs the items of a failed group alone: only the bad one fails, nothing is written twice', async () => {
      await d.db.insertInto('options').values({ key: 'q4-taken', value: '', updated_at: 0 }).execute();
      const q = make();
      const names = ['q4-a', 'q4-b', 'q4-taken', 'q4-c'];
      const flushed = (async () => {
        // Added before the flush: it must wait for the items run alone, not only for the group.
        await Promise.resolve();
        await q.flush();
        return keys('q4-');
      })();
      const results = await Promise.allSettled(names.map((k) => q.add(k)));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect(results.filter((r) => r.status === 'fulfilled').map((r) => r.value)).toEqual([
        'alone:q4-a',
        'alone:q4-b',
        'alone:q4-c',
      ]);
      // The writer may run an item alone more than once (its batch rolled back); it commits once.
      expect([...new Set(alone)].sort()).toEqual([...names].sort());
      expect(await flushed).toEqual(['q4-a', 'q4-b', 'q4-c', 'q4-taken']);
    });

    it('tells a group run again that it ran before', async () => {
      const q = make();
      const added = q.add('q6-a');
      // In the same batch, a job that fails after the group: the batch rolls back, the group runs again.
      const failing = writer.submit((trx) => write(trx, ['q6-a']).then(() => {}));
      expect(await added).toBe('done:q6-a');
      await expect(failing).rejects.toThrow();
      expect(groups).toEqual([['q6-a'], ['q6-a']]);
      expect(again).toEqual([false, true]);
    });

    it('close answers every added item, then refuses new ones', async () => {
      const q = make();
      const names = Array.from({ length: 5 }, (_, i) => `q5-${i}`);
      const done = names.map((k) => q.add(k));
      await q.close();
      expect(await Promise.all(done)).toEqual(names.map((k) => `done:${k}`));
      expect(await keys('q5-')).toEqual(names);
      await expect(q.add('q5-late')).rejects.toBeInstanceOf(WriteBatcherClosedError);
    });
  });
}

describe('SettlementQueue options', () => {
  it('rejects a nonsense group size', () => {
    const writer = {} as WriteBatcher;
    const handlers = { runGroup: async () => [], runOne: async () => '' };
    expect(() => new SettlementQueue(writer, handlers, { maxGroup: 0 })).toThrow(RangeError);
    expect(() => new SettlementQueue(writer, handlers, { maxGroup: 1.5 })).toThrow(RangeError);
  });
});
