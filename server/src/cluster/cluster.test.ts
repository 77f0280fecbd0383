import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../db/create-db.js';
import { migrateToLatest } from '../db/migrations/index.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../test/databases.js';
import { type ClusterQueries, clusterQueries } from './cluster-queries.js';
import { DbChangeBus } from './db-change-bus.js';
import { JobLease } from './job-lease.js';
import { NodeRoster } from './node-roster.js';

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`node coordination on ${target.engine}`, () => {
    let testDb: TestDatabase;
    // Two pools on one database: two nodes.
    let a: Database;
    let b: Database;
    let qa: ClusterQueries;
    let qb: ClusterQueries;
    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      a = createDb(testDb.url);
      b = createDb(testDb.url);
      await migrateToLatest(a.db, a.dialect);
      qa = clusterQueries(a);
      qb = clusterQueries(b);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await testDb?.drop();
    });

    it('gives a job lease to one node, renews it for its holder, and hands it over on expiry or release', async () => {
      let now = 1_000_000;
      const clock = () => now;
      const leaseA = new JobLease(qa, 'rollup', 'node-a', 10_000, clock);
      const leaseB = new JobLease(qb, 'rollup', 'node-b', 10_000, clock);
      // Both race for the free lease: exactly one gets it.
      const [gotA, gotB] = await Promise.all([leaseA.hold(), leaseB.hold()]);
      expect([gotA, gotB].filter(Boolean)).toHaveLength(1);
      const [holder, other] = gotA ? [leaseA, leaseB] : [leaseB, leaseA];
      const holderName = gotA ? 'node-a' : 'node-b';
      // Renewed by its holder (in the same millisecond too), refused to the other.
      expect(await holder.hold()).toBe(true);
      now += 5_000;
      expect(await holder.hold()).toBe(true);
      expect(await other.hold()).toBe(false);
      expect(await qa.leaseHolder('rollup', now)).toBe(holderName);
      // The holder stops renewing: after the expiry the other takes it, and the first no longer can.
      now += 10_001;
      expect(await other.hold()).toBe(true);
      expect(await holder.hold()).toBe(false);
      // Released: the first takes it back at once.
      await other.release();
      expect(await holder.hold()).toBe(true);
      // Another job's lease is independent.
      expect(await new JobLease(qb, 'retention', 'node-b', 10_000, clock).hold()).toBe(true);
    });

    it('many nodes racing for one expired lease: one wins per round', async () => {
      let now = 5_000_000;
      const leases = Array.from(
        { length: 6 },
        (_, i) => new JobLease(i % 2 ? qa : qb, 'race', `n${i}`, 1_000, () => now),
      );
      for (let round = 0; round < 5; round++) {
        const got = await Promise.all(leases.map((l) => l.hold()));
        expect(got.filter(Boolean)).toHaveLength(1);
        now += 1_001;
      }
    });

    it('carries a change from one node to the other through the version counters', async () => {
      const busA = new DbChangeBus(qa);
      const busB = new DbChangeBus(qb);
      // Polled by hand here: the timers are for the running gateway.
      await busA.poll();
      await busB.poll();
      const seenOnB: string[] = [];
      busB.subscribe('channels', () => seenOnB.push('channels'));
      busB.subscribe('options', () => seenOnB.push('options'));
      const seenOnA: string[] = [];
      busA.subscribe('channels', () => seenOnA.push('channels'));

      await busA.publish('channels');
      expect(seenOnA).toEqual(['channels']);
      expect(seenOnB).toEqual([]);
      await busB.poll();
      expect(seenOnB).toEqual(['channels']);
      // Nothing new: nothing reloaded.
      await busB.poll();
      expect(seenOnB).toEqual(['channels']);
      // Two changes of two topics between polls: each topic reloaded once.
      await busA.publish('options');
      await busA.publish('options');
      await busA.publish('channels');
      await busB.poll();
      expect(seenOnB.sort()).toEqual(['channels', 'channels', 'options']);
      // The publishing node's own poll does not reload its own change a second time...
      seenOnA.length = 0;
      await busA.poll();
      await busA.publish('channels');
      await busA.poll();
      expect(seenOnA).toEqual(['channels']);
      // ...but does when another node counted a change of the same topic in between.
      await busB.publish('channels');
      await busA.publish('channels');
      await busA.poll();
      expect(seenOnA).toEqual(['channels', 'channels', 'channels']);
      // Two nodes counting the same new topic at once lose no count.
      await Promise.all([qa.bumpVersion('fresh'), qb.bumpVersion('fresh')]);
      expect((await qa.versions()).get('fresh')).toBe(2);
      await busA.close();
      await busB.close();
    });

    it('warns when several nodes share the database and one runs without Redis', async () => {
      let now = 9_000_000;
      const warnings: string[] = [];
      const counts: number[] = [];
      const withRedis = new NodeRoster(
        qa,
        'r1',
        true,
        () => now,
        (m) => warnings.push(m),
        (n) => counts.push(n),
      );
      const alsoRedis = new NodeRoster(
        qb,
        'r2',
        true,
        () => now,
        (m) => warnings.push(m),
      );
      expect(await withRedis.beat()).toEqual([]);
      expect((await alsoRedis.beat()).map((n) => n.nodeId)).toContain('r1');
      expect(warnings).toEqual([]);
      const bare = new NodeRoster(
        qb,
        'bare',
        false,
        () => now,
        (m) => warnings.push(m),
      );
      await bare.beat();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/without Redis/);
      // Said once per node seen, not at every heartbeat.
      await bare.beat();
      expect(warnings).toHaveLength(1);
      // The nodes with Redis hear of the one without.
      await withRedis.beat();
      expect(warnings).toHaveLength(2);
      // A stopped node leaves the roster; an old heartbeat no longer counts.
      await bare.stop();
      now += 61_000;
      await withRedis.beat();
      expect(await withRedis.beat()).toEqual([]);
      // Each heartbeat told r1 how many nodes run: alone, then with r2 and bare, then alone again.
      expect(counts).toEqual([1, 3, 1, 1]);
    });
  });
}
