import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../db/create-db.js';
import { migrateToLatest } from '../db/migrations/index.js';
import { authCodesQueries } from '../db/queries/auth-codes.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../test/databases.js';
import { DbCodeStore } from './db-code-store.js';

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(
    `one-time codes in the database on ${target.engine}`,
    () => {
      const made: TestDatabase[] = [];
      afterAll(async () => {
        for (const d of made) await d.drop();
      });

      async function open() {
        const testDb = await createTestDatabase(target);
        made.push(testDb);
        const database = createDb(testDb.url);
        await migrateToLatest(database.db, database.dialect);
        return database;
      }

      it('gives a code to exactly one of two stores (two nodes) taking it at once, and expires it', async () => {
        const a = await open();
        const b = createDb(made.at(-1)!.url);
        let now = 1000;
        const nodeA = new DbCodeStore(authCodesQueries(a), () => now);
        const nodeB = new DbCodeStore(authCodesQueries(b), () => now);
        try {
          await nodeA.set('k', 'v1', 60);
          expect(await nodeB.get('k')).toBe('v1');
          const taken = await Promise.all([nodeA.take('k'), nodeB.take('k'), nodeA.take('k')]);
          expect(taken.filter((v) => v === 'v1')).toHaveLength(1);
          expect(await nodeB.get('k')).toBeUndefined();

          await nodeA.set('k', 'v2', 60);
          await nodeA.set('k', 'v3', 60);
          now += 59;
          expect(await nodeB.take('k')).toBe('v3');
          await nodeA.set('old', 'x', 60);
          now += 60;
          expect(await nodeB.take('old')).toBeUndefined();
        } finally {
          await nodeA.close();
          await nodeB.close();
          await a.close();
          await b.close();
        }
      });
    },
  );
}
