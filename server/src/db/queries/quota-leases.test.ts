import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { createDb, type Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import { migrateToLatest } from '../migrations/index.js';
import { newTokenRow, tokensQueries } from './tokens.js';
import { balanceLogRow, newUserRow, usersQueries } from './users.js';

// What a live quota lease holds is its owner's money: every balance shown counts it, and a write
// that names a balance outright gives the owner's leases back first.

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`balances with quota leases on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    let seq = 0;

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url);
      await migrateToLatest(d.db, d.dialect);
    });
    afterAll(async () => {
      await d?.close();
      await testDb?.drop();
    });

    /** A user with a limited and an unlimited token, and a node's lease on each (as a node takes one). */
    const leased = async (quota: number, remain: number, slice: number) => {
      seq++;
      const userId = await insertReturningId(
        d.dialect,
        d.db.insertInto('users').values(
          newUserRow({
            username: `leased${seq}`,
            password_hash: 'x',
            role: 1,
            quota: quota - 2 * slice,
            aff_code: `leased${seq}`,
            created_time: 0,
          }),
        ),
      );
      const tokenId = async (limited: boolean) =>
        insertReturningId(
          d.dialect,
          d.db.insertInto('tokens').values(
            newTokenRow({
              user_id: userId,
              name: `t${seq}`,
              key_hash: `leased-${seq}-${limited}`,
              key_sealed: '',
              created_time: 0,
              remain_quota: limited ? remain - slice : 0,
              unlimited_quota: limited ? 0 : 1,
            }),
          ),
        );
      const limited = await tokenId(true);
      const unlimited = await tokenId(false);
      for (const [token, isLimited] of [
        [limited, 1],
        [unlimited, 0],
      ] as const)
        await d.db
          .insertInto('quota_leases')
          .values({
            id: `lease-${seq}-${token}`,
            node_id: 'node-a',
            user_id: userId,
            token_id: token,
            token_limited: isLimited,
            amount: slice,
            expires_at: 2_000_000_000,
            returned: 0,
          })
          .execute();
      return { userId, limited, unlimited };
    };

    const column = async (userId: number, tokenId: number) => ({
      quota: toNumber(
        (await d.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow())
          .quota,
      ),
      remain: toNumber(
        (
          await d.db
            .selectFrom('tokens')
            .select('remain_quota')
            .where('id', '=', tokenId)
            .executeTakeFirstOrThrow()
        ).remain_quota,
      ),
    });
    const liveLeases = async (userId: number) =>
      (
        await d.db
          .selectFrom('quota_leases')
          .select('id')
          .where('user_id', '=', userId)
          .where('returned', '=', 0)
          .execute()
      ).length;

    it('user and token lookups show the balance with what live leases hold', async () => {
      const a = await leased(10_000, 6_000, 1_000);
      const users = usersQueries(d);
      const tokens = tokensQueries(d);
      expect((await users.byId(a.userId))?.quota).toBe(10_000);
      const listed = await users.list(`leased${seq}`, { offset: 0, size: 10, order: [] });
      expect(listed.rows.map((u) => u.quota)).toEqual([10_000]);
      expect((await tokens.byId(a.limited))?.remain_quota).toBe(6_000);
      // An unlimited token's lease holds the user's money only.
      expect((await tokens.byId(a.unlimited))?.remain_quota).toBe(0);
      const page = await tokens.listByUser(a.userId, undefined, { offset: 0, size: 10, order: [] });
      expect(page.rows.map((t) => t.remain_quota).sort((x, y) => x - y)).toEqual([0, 6_000]);
      // A returned lease is the balance's again, and no longer counted twice.
      await d.db.updateTable('quota_leases').set({ returned: 1 }).where('user_id', '=', a.userId).execute();
      expect((await users.byId(a.userId))?.quota).toBe(8_000);
    });

    it('an administrator can deduct the whole balance shown: the leases go back first', async () => {
      const a = await leased(10_000, 6_000, 1_000);
      const users = usersQueries(d);
      const log = (balance: number) =>
        balanceLogRow({
          user_id: a.userId,
          username: 'x',
          type: LogType.Manage,
          content: `${balance}`,
          quota: 0,
          created_at: 0,
        });
      expect(await users.adjustQuota(a.userId, -10_001, log)).toEqual({ ok: false, reason: 'insufficient' });
      expect(await users.adjustQuota(a.userId, -10_000, log)).toEqual({ ok: true, quota: 0 });
      expect(await liveLeases(a.userId)).toBe(0);
      expect(await column(a.userId, a.limited)).toEqual({ quota: 0, remain: 6_000 });
      expect((await users.byId(a.userId))?.quota).toBe(0);
    });

    it("a token's new limit is what is left: its leases go back, the user's balance is unchanged", async () => {
      const a = await leased(10_000, 6_000, 1_000);
      const users = usersQueries(d);
      const tokens = tokensQueries(d);
      // Another user's request changes nothing, leases included.
      expect(await tokens.updateForUser(a.limited, a.userId + 1000, { remain_quota: 1 })).toBe(false);
      expect(await liveLeases(a.userId)).toBe(2);
      expect(await tokens.updateForUser(a.limited, a.userId, { remain_quota: 2_500 })).toBe(true);
      expect((await tokens.byId(a.limited))?.remain_quota).toBe(2_500);
      expect(await column(a.userId, a.limited)).toEqual({ quota: 9_000, remain: 2_500 });
      expect((await users.byId(a.userId))?.quota).toBe(10_000);
      // The unlimited token's lease is another token's: it stays.
      expect(await liveLeases(a.userId)).toBe(1);
      // A rename leaves leases alone.
      expect(await tokens.updateForUser(a.unlimited, a.userId, { name: 'renamed' })).toBe(true);
      expect(await liveLeases(a.userId)).toBe(1);
    });
  });
}
