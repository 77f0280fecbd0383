import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { createDb, type Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import { migrateToLatest } from '../migrations/index.js';
import { statisticsQueries } from './statistics.js';
import { newTokenRow, tokensQueries } from './tokens.js';
import { balanceLogRow, newUserRow, usersQueries } from './users.js';

// What a live quota lease holds is its owner's money, and what its settlements used is counted on
// it: every balance and counter shown adds them, and a write that names a balance outright gives
// the owner's leases back first.

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

    it('used quota and request counts shown add what live leases counted; lists sort by what is shown', async () => {
      const a = await leased(10_000, 6_000, 1_000);
      const b = await leased(10_000, 6_000, 1_000);
      const users = usersQueries(d);
      const tokens = tokensQueries(d);
      const stats = statisticsQueries(d);
      const before = await stats.userTotals();
      // a: 100 counted on its row and 900 on its limited token's lease; b: 500 on its row only.
      await d.db
        .updateTable('users')
        .set({ used_quota: 100, request_count: 1 })
        .where('id', '=', a.userId)
        .execute();
      await d.db.updateTable('tokens').set({ used_quota: 100 }).where('id', '=', a.limited).execute();
      await d.db
        .updateTable('quota_leases')
        .set({ used_quota: 900, request_count: 4 })
        .where('token_id', '=', a.limited)
        .execute();
      await d.db
        .updateTable('users')
        .set({ used_quota: 500, request_count: 2 })
        .where('id', '=', b.userId)
        .execute();
      const seenA = await users.byId(a.userId);
      expect([seenA?.used_quota, seenA?.request_count, seenA?.quota]).toEqual([1_000, 5, 10_000]);
      expect((await tokens.byId(a.limited))?.used_quota).toBe(1_000);
      expect((await tokens.byId(a.unlimited))?.used_quota).toBe(0);
      const after = await stats.userTotals();
      expect(after.totalUsedQuota - before.totalUsedQuota).toBe(1_000 + 500);
      expect(after.totalQuota - before.totalQuota).toBe(0);
      // By the column, b (500) would come before a (100).
      const both = (order: 'asc' | 'desc') =>
        users
          .list(`leased`, { offset: 0, size: 100, order: [{ column: 'used_quota', direction: order }] })
          .then((page) => page.rows.filter((u) => u.id === a.userId || u.id === b.userId).map((u) => u.id));
      expect(await both('desc')).toEqual([a.userId, b.userId]);
      expect(await both('asc')).toEqual([b.userId, a.userId]);
      const byRequests = await users.list('leased', {
        offset: 0,
        size: 100,
        order: [{ column: 'request_count', direction: 'desc' }],
      });
      expect(byRequests.rows.filter((u) => u.id === a.userId || u.id === b.userId).map((u) => u.id)).toEqual([
        a.userId,
        b.userId,
      ]);
      const tokenPage = await tokens.listByUser(a.userId, undefined, {
        offset: 0,
        size: 10,
        order: [{ column: 'used_quota', direction: 'desc' }],
      });
      expect(tokenPage.rows.map((t) => [t.id, t.used_quota])).toEqual([
        [a.limited, 1_000],
        [a.unlimited, 0],
      ]);
      // Given back (an administrator's deduction), the counters move to the columns: the same shown.
      const log = () =>
        balanceLogRow({
          user_id: a.userId,
          username: 'x',
          type: LogType.Manage,
          content: '',
          quota: 0,
          created_at: 0,
        });
      expect(await users.adjustQuota(a.userId, -1, log)).toEqual({ ok: true, quota: 9_999 });
      expect(await liveLeases(a.userId)).toBe(0);
      const columns = await d.db
        .selectFrom('users')
        .select(['used_quota', 'request_count'])
        .where('id', '=', a.userId)
        .executeTakeFirstOrThrow();
      expect([toNumber(columns.used_quota), toNumber(columns.request_count)]).toEqual([1_000, 5]);
      const seenAgain = await users.byId(a.userId);
      expect([seenAgain?.used_quota, seenAgain?.request_count]).toEqual([1_000, 5]);
      expect((await tokens.byId(a.limited))?.used_quota).toBe(1_000);
      expect((await stats.userTotals()).totalUsedQuota - before.totalUsedQuota).toBe(1_000 + 500);
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
