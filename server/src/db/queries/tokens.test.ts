import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { createDb, type Database } from '../create-db.js';
import { migrateToLatest } from '../migrations/index.js';
import { type NewToken, newTokenRow, type TokensQueries, tokensQueries } from './tokens.js';

let seq = 0;
const token = (over: Partial<NewToken>): NewToken => {
  seq++;
  return newTokenRow({
    user_id: 1,
    name: `t${seq}`,
    key_hash: `hash-${seq}`,
    key_sealed: `sealed-${seq}`,
    created_time: 1000 + seq,
    ...over,
  });
};

const page = (order: { column: 'id' | 'name' | 'remain_quota'; direction: 'asc' | 'desc' }[] = []) => ({
  offset: 0,
  size: 50,
  order,
});

// The keyword is a LIKE prefix: case and escaping behave differently per engine unless handled.
for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`tokens queries on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    let tokens: TokensQueries;

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url);
      await migrateToLatest(d.db, d.dialect);
      tokens = tokensQueries(d);
      for (const [name, quota] of [
        ['Prod-east', 3],
        ['prod-west', 1],
        ['production!', 2],
        ['50%_off', 4],
        ['5000', 5],
        ['Ünïcode', 6],
      ] as const) {
        await tokens.insert(token({ name, remain_quota: quota }));
      }
      await tokens.insert(token({ name: 'prod-other-user', user_id: 2 }));
      await tokens.insert(token({ name: 'prod-deleted', deleted_at: 5 }));
    });
    afterAll(async () => {
      await d?.close();
      await testDb?.drop();
    });

    const names = async (
      keyword: string | undefined,
      order = page([{ column: 'name', direction: 'asc' }]),
    ) => {
      const { rows, total } = await tokens.listByUser(1, keyword, order);
      expect(total).toBe(rows.length);
      return rows.map((r) => r.name).sort();
    };

    it("lists one user's live tokens", async () => {
      expect(await names(undefined)).toHaveLength(6);
    });

    it('matches the keyword as a case-insensitive name prefix', async () => {
      expect(await names('prod')).toEqual(['Prod-east', 'prod-west', 'production!'].sort());
      expect(await names('PROD-')).toEqual(['Prod-east', 'prod-west'].sort());
      expect(await names('east')).toEqual([]);
    });

    it('takes %, _ and ! in the keyword literally', async () => {
      expect(await names('50%')).toEqual(['50%_off']);
      expect(await names('5_')).toEqual([]);
      expect(await names('%')).toEqual([]);
      expect(await names('production!')).toEqual(['production!']);
    });

    it('orders by whitelisted columns', async () => {
      const { rows } = await tokens.listByUser(
        1,
        undefined,
        page([{ column: 'remain_quota', direction: 'desc' }]),
      );
      expect(rows.map((r) => r.remain_quota)).toEqual([6, 5, 4, 3, 2, 1]);
    });

    it('scopes reads and writes to the owner and ignores deleted tokens', async () => {
      const [mine] = (await tokens.listByUser(1, 'Prod-east', page())).rows;
      expect(await tokens.byIdForUser(mine!.id, 2)).toBeUndefined();
      expect(await tokens.updateForUser(mine!.id, 2, { name: 'x' })).toBe(false);
      expect(await tokens.softDeleteForUser(mine!.id, 2, 10)).toBe(false);
      expect(await tokens.updateForUser(mine!.id, 1, { name: 'Prod-east' })).toBe(true);
      expect((await tokens.byKeyHash(mine!.key_hash))?.id).toBe(mine!.id);
      expect(await tokens.softDeleteForUser(mine!.id, 1, 10)).toBe(true);
      expect(await tokens.byKeyHash(mine!.key_hash)).toBeUndefined();
      expect(await tokens.byId(mine!.id)).toBeUndefined();
      expect(await tokens.updateForUser(mine!.id, 1, { name: 'back' })).toBe(false);
    });
  });
}
