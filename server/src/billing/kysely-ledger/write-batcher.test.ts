import type { Transaction } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { migrateToLatest } from '../../db/migrations/index.js';
import type { Tables } from '../../db/tables.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import {
  MAX_GAP_MS,
  nodeGapMs,
  WriteBatcher,
  WriteBatcherClosedError,
  type WriteJob,
} from './write-batcher.js';

// Jobs write rows into `options` (a plain key/value table with a unique key), so a duplicate key is
// a real database failure on every engine.

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`WriteBatcher on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    const batchers: WriteBatcher[] = [];
    /** Transactions each job ran in, in the order the jobs ran. */
    let seen: Transaction<Tables>[];

    const make = (options: ConstructorParameters<typeof WriteBatcher>[1] = {}) => {
      const b = new WriteBatcher(d.db, options);
      batchers.push(b);
      return b;
    };
    const put =
      (key: string): WriteJob =>
      async (trx) => {
        seen.push(trx);
        await trx.insertInto('options').values({ key, value: key, updated_at: 0 }).execute();
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
    beforeEach(() => {
      seen = [];
    });
    afterAll(async () => {
      for (const b of batchers) await b.close();
      await d?.close();
      await testDb?.drop();
    });

    it('groups jobs submitted together into one transaction', async () => {
      const b = make();
      const names = Array.from({ length: 100 }, (_, i) => `g1-${String(i).padStart(3, '0')}`);
      await Promise.all(names.map((k) => b.submit(put(k))));
      expect(new Set(seen).size).toBe(1);
      expect(b.stats()).toEqual({
        transactions: 1,
        commits: 1,
        committedJobs: 100,
        failedJobs: 0,
        reconnectRetries: 0,
      });
      expect(await keys('g1-')).toEqual(names);
    });

    it('reports how long its oldest unfinished job has waited', async () => {
      const b = make({ intervalMs: 0 });
      expect(b.lagMs()).toBe(0);
      const held = gate();
      const slow = b.submit(async (trx) => {
        await held.opened;
        await put('lag-1')(trx);
      });
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(b.lagMs()).toBeGreaterThanOrEqual(50);
      held.open();
      await slow;
      expect(b.lagMs()).toBe(0);
    });

    it('caps a transaction at maxBatch jobs', async () => {
      const b = make({ maxBatch: 256, intervalMs: 50 });
      const names = Array.from({ length: 600 }, (_, i) => `g2-${String(i).padStart(3, '0')}`);
      await Promise.all(names.map((k) => b.submit(put(k))));
      const perTrx = new Map<Transaction<Tables>, number>();
      for (const t of seen) perTrx.set(t, (perTrx.get(t) ?? 0) + 1);
      expect([...perTrx.values()]).toEqual([256, 256, 88]);
      expect(b.stats().commits).toBe(3);
      expect(await keys('g2-')).toEqual(names);
    });

    it('collects jobs arriving within the interval', async () => {
      const b = make({ intervalMs: 100 });
      const done: Promise<void>[] = [];
      for (let i = 0; i < 5; i++) {
        done.push(b.submit(put(`g3-${i}`)));
        await tick();
      }
      await Promise.all(done);
      expect(new Set(seen).size).toBe(1);
      expect(b.stats().commits).toBe(1);
    });

    it('resolves a submit only once its transaction committed', async () => {
      const b = make({ intervalMs: 0 });
      const g = gate();
      let resolved = false;
      const p = b
        .submit(async (trx) => {
          await trx.insertInto('options').values({ key: 'g4-a', value: '', updated_at: 0 }).execute();
          await g.opened;
        })
        .then(() => {
          resolved = true;
        });
      for (let i = 0; i < 20; i++) await tick();
      expect(resolved).toBe(false);
      g.open();
      await p;
      expect(await keys('g4-')).toEqual(['g4-a']);
    });

    it('does not lose the neighbours of a failing job', async () => {
      await d.db.insertInto('options').values({ key: 'g5-taken', value: '', updated_at: 0 }).execute();
      const b = make({ intervalMs: 20 });
      const names = Array.from({ length: 10 }, (_, i) => `g5-${i}`);
      const results = await Promise.allSettled(names.map((k, i) => b.submit(put(i === 4 ? 'g5-taken' : k))));
      const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [{ i, reason: r.reason }] : []));
      expect(failed.map((f) => f.i)).toEqual([4]);
      expect(isUniqueViolation(failed[0]?.reason)).toBe(true);
      expect(await keys('g5-')).toEqual([...names.filter((_, i) => i !== 4), 'g5-taken'].sort());
      const s = b.stats();
      expect(s.committedJobs).toBe(9);
      expect(s.failedJobs).toBe(1);
      // The failed batch, then the 4 before it, the culprit alone, the 5 after it.
      expect(s.transactions).toBe(4);
      expect(s.commits).toBe(2);
    });

    it('retries a job alone after a transient engine error', async () => {
      const b = make({ intervalMs: 0 });
      let runs = 0;
      await b.submit(async (trx) => {
        runs++;
        await trx
          .insertInto('options')
          .values({ key: 'g6-a', value: String(runs), updated_at: 0 })
          .execute();
        if (runs < 3) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      });
      expect(runs).toBe(3);
      expect(await keys('g6-')).toEqual(['g6-a']);
      const permanent = b.submit(async () => {
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      });
      await expect(permanent).rejects.toThrow('deadlock detected');
    });

    it('makes submit wait when full, and admits the waiting jobs in order', async () => {
      const b = make({ capacity: 3, maxBatch: 2, intervalMs: 0 });
      const g = gate();
      const order: string[] = [];
      const job =
        (k: string, wait = false): WriteJob =>
        async (trx) => {
          if (wait) await g.opened;
          order.push(k);
          await trx.insertInto('options').values({ key: k, value: '', updated_at: 0 }).execute();
        };
      const all = [b.submit(job('g7-0', true))];
      await tick();
      for (let i = 1; i <= 6; i++) all.push(b.submit(job(`g7-${i}`)));
      await tick();
      expect(b.inFlight).toBe(3);
      expect(b.blocked).toBe(4);
      expect(order).toEqual([]);
      g.open();
      await Promise.all(all);
      expect(order).toEqual(['g7-0', 'g7-1', 'g7-2', 'g7-3', 'g7-4', 'g7-5', 'g7-6']);
      expect(b.inFlight).toBe(0);
      expect(b.blocked).toBe(0);
      expect((await keys('g7-')).length).toBe(7);
    });

    it('flush runs queued jobs at once instead of waiting for the interval', async () => {
      const b = make({ intervalMs: 60_000 });
      const p = b.submit(put('g8-a'));
      const started = Date.now();
      await b.flush();
      await p;
      expect(Date.now() - started).toBeLessThan(5000);
      expect(await keys('g8-')).toEqual(['g8-a']);
    });

    it('waits out the gap after a batch, gathering what arrives into the next one', async () => {
      const b = make({ intervalMs: 0, gapMs: 100 });
      const held = gate();
      const first = b.submit(async (trx) => {
        await put('g10-a')(trx);
        await held.opened;
      });
      while (seen.length === 0) await tick();
      const startedFirst = performance.now();
      // Arrive while the first batch runs, and one by one after it ended.
      const later = [b.submit(put('g10-b'))];
      held.open();
      await first;
      for (const k of ['g10-c', 'g10-d']) {
        await tick();
        later.push(b.submit(put(k)));
      }
      await Promise.all(later);
      const finished = performance.now();
      expect(new Set(seen).size).toBe(2);
      expect(b.stats().commits).toBe(2);
      // Timers may fire a millisecond early; never tens.
      expect(finished - startedFirst).toBeGreaterThanOrEqual(90);
      expect(await keys('g10-')).toEqual(['g10-a', 'g10-b', 'g10-c', 'g10-d']);
    });

    it('takes a new gap for the batches after the change', async () => {
      const b = make({ intervalMs: 0, gapMs: 600_000 });
      await b.submit(put('g12-a'));
      // Under a ten-minute gap the next batch would time the test out; the new gap lets it run, after
      // the rest of its 100 ms (timers may fire a millisecond early; never tens).
      b.setGapMs(100);
      expect(b.currentGapMs).toBe(100);
      const started = performance.now();
      await b.submit(put('g12-b'));
      expect(performance.now() - started).toBeGreaterThanOrEqual(80);
      expect(b.stats().commits).toBe(2);
      b.setGapMs(0);
      await b.submit(put('g12-c'));
      expect(await keys('g12-')).toEqual(['g12-a', 'g12-b', 'g12-c']);
    });

    it('skips the gap for a full batch and for a flush', async () => {
      const b = make({ intervalMs: 0, gapMs: 600_000, maxBatch: 3 });
      await b.submit(put('g11-a'));
      // The gap has begun: a full batch runs at once, and so does what a flush asks for.
      await Promise.all(['g11-b', 'g11-c', 'g11-d'].map((k) => b.submit(put(k))));
      const alone = b.submit(put('g11-e'));
      await b.flush();
      await alone;
      expect(b.stats().commits).toBe(3);
      expect(await keys('g11-')).toEqual(['g11-a', 'g11-b', 'g11-c', 'g11-d', 'g11-e']);
    });

    it('close drains everything, including callers held back, then refuses new jobs', async () => {
      const b = make({ intervalMs: 60_000, capacity: 10, maxBatch: 4 });
      const names = Array.from({ length: 50 }, (_, i) => `g9-${String(i).padStart(2, '0')}`);
      const done = names.map((k) => b.submit(put(k)));
      expect(b.blocked).toBe(40);
      await b.close();
      expect(await keys('g9-')).toEqual(names);
      await Promise.all(done);
      await expect(b.submit(put('g9-late'))).rejects.toBeInstanceOf(WriteBatcherClosedError);
      expect(await keys('g9-late')).toEqual([]);
    });
  });
}

describe('WriteBatcher options', () => {
  it('rejects nonsense limits', () => {
    const db = {} as never;
    expect(() => new WriteBatcher(db, { maxBatch: 0 })).toThrow(RangeError);
    expect(() => new WriteBatcher(db, { capacity: 0 })).toThrow(RangeError);
    expect(() => new WriteBatcher(db, { intervalMs: -1 })).toThrow(RangeError);
    expect(() => new WriteBatcher(db, { gapMs: -1 })).toThrow(RangeError);
    expect(() => new WriteBatcher(db, { maxAttempts: 0 })).toThrow(RangeError);
    expect(() => new WriteBatcher(db).setGapMs(-1)).toThrow(RangeError);
    expect(() => new WriteBatcher(db).setGapMs(Number.NaN)).toThrow(RangeError);
  });

  it('shares the cluster gap between the nodes, up to a second', () => {
    expect(nodeGapMs(20, 1)).toBe(20);
    expect(nodeGapMs(20, 2)).toBe(40);
    expect(nodeGapMs(20, 10)).toBe(200);
    expect(nodeGapMs(20, 80)).toBe(MAX_GAP_MS);
    // No heartbeat read yet counts as this node alone; 0 stays back to back.
    expect(nodeGapMs(20, 0)).toBe(20);
    expect(nodeGapMs(0, 5)).toBe(0);
  });
});
