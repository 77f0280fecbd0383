import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { createDb, type Database } from '../create-db.js';
import { migrateToLatest } from '../migrations/index.js';
import { type LogsQueries, logCountQuery, logPageQuery, logsQueries, type NewLog } from './logs.js';
import { newUserRow, usersQueries } from './users.js';

const log = (over: Partial<NewLog>): NewLog => ({
  user_id: 1,
  created_at: 1000,
  type: 2,
  content: '',
  username: 'u1',
  token_id: 1,
  token_name: 't1',
  model_name: 'gpt-4o',
  quota: 10,
  prompt_tokens: 1,
  completion_tokens: 1,
  channel_id: 1,
  request_time: 5,
  first_response_time: 2,
  is_stream: 0,
  source_ip: '10.0.0.1',
  group: 'default',
  metadata: '{}',
  ...over,
});

const newestFirst = { offset: 0, size: 100, order: [{ column: 'id' as const, direction: 'desc' as const }] };

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`logs queries on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    let logs: LogsQueries;
    const ids: Record<string, number> = {};

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url);
      await migrateToLatest(d.db, d.dialect);
      logs = logsQueries(d);
      ids.a = await logs.insert(log({ created_at: 1000, quota: 10 }));
      ids.b = await logs.insert(log({ created_at: 2000, quota: 20, model_name: 'claude', channel_id: 2 }));
      ids.c = await logs.insert(
        log({ created_at: 3000, quota: 30, user_id: 2, username: 'u2', token_name: 't2' }),
      );
      ids.d = await logs.insert(log({ created_at: 3000, quota: 99, type: 1, content: 'top-up' }));
      ids.e = await logs.insert(log({ created_at: 4000, quota: 40, source_ip: '10.0.0.9' }));
    });
    afterAll(async () => {
      await d?.close();
      await testDb?.drop();
    });

    const listIds = async (f: Parameters<LogsQueries['list']>[0], page = newestFirst) => {
      const { rows, total } = await logs.list(f, page);
      expect(total).toBe(rows.length);
      return rows.map((r) => r.id);
    };

    it('filters by every field, newest first', async () => {
      expect(await listIds({})).toEqual([ids.e, ids.d, ids.c, ids.b, ids.a]);
      expect(await listIds({ type: 2 })).toEqual([ids.e, ids.c, ids.b, ids.a]);
      expect(await listIds({ type: 0 })).toHaveLength(5);
      expect(await listIds({ userId: 1 })).toEqual([ids.e, ids.d, ids.b, ids.a]);
      // Newest first; same-second rows of a time range come in (created_at, type) index order.
      expect(await listIds({ start: 2000, end: 3000 })).toEqual([ids.c, ids.d, ids.b]);
      expect(await listIds({ modelName: 'claude' })).toEqual([ids.b]);
      expect(await listIds({ username: 'u2' })).toEqual([ids.c]);
      expect(await listIds({ tokenName: 't2' })).toEqual([ids.c]);
      expect(await listIds({ channelId: 2 })).toEqual([ids.b]);
      expect(await listIds({ sourceIp: '10.0.0.9' })).toEqual([ids.e]);
      expect(await listIds({ userId: 1, type: 2, start: 1500 })).toEqual([ids.e, ids.b]);
    });

    it('pages with a total over the whole filter, and orders by whitelisted columns', async () => {
      const { rows, total } = await logs.list({ type: 2 }, { ...newestFirst, size: 2, offset: 2 });
      expect(total).toBe(4);
      expect(rows.map((r) => r.id)).toEqual([ids.b, ids.a]);
      const byQuotaModel = await logs.list(
        {},
        { offset: 0, size: 10, order: [{ column: 'model_name', direction: 'asc' }] },
      );
      expect(byQuotaModel.rows[0]?.model_name).toBe('claude');
      // Ties (same created_at) break by type, then id, in the same direction: the index's own order.
      const byTime = await logs.list(
        {},
        { offset: 0, size: 10, order: [{ column: 'created_at', direction: 'asc' }] },
      );
      expect(byTime.rows.map((r) => r.id)).toEqual([ids.a, ids.b, ids.d, ids.c, ids.e]);
      const mineByTime = await logs.list(
        { userId: 1 },
        { offset: 0, size: 10, order: [{ column: 'created_at', direction: 'desc' }] },
      );
      expect(mineByTime.rows.map((r) => r.id)).toEqual([ids.e, ids.d, ids.b, ids.a]);
    });

    it('sums the quota of consume logs only', async () => {
      expect(await logs.sumConsumeQuota({})).toBe(100);
      expect(await logs.sumConsumeQuota({ userId: 1 })).toBe(70);
      expect(await logs.sumConsumeQuota({ type: 1 })).toBe(100);
      expect(await logs.sumConsumeQuota({ start: 2000, end: 3000 })).toBe(50);
      expect(await logs.sumConsumeQuota({ modelName: 'nothing' })).toBe(0);
    });

    it('names channels for the admin list, deleted ones included', async () => {
      await d.db
        .insertInto('channels')
        .values({
          type: 1,
          key_sealed: 'x',
          status: 1,
          name: 'chan-two',
          weight: 1,
          created_time: 1,
          test_time: 0,
          response_time: 0,
          base_url: '',
          other: '',
          balance: 0,
          balance_updated_time: 0,
          models: 'm',
          group: 'default',
          tag: '',
          used_quota: 0,
          model_mapping: '{}',
          model_headers: '{}',
          custom_parameter: '{}',
          priority: 0,
          proxy: '',
          test_model: '',
          only_chat: 0,
          pre_cost: 1,
          plugin: '{}',
          deleted_at: 5,
        })
        .execute();
      const names = await logs.channelNames([0, 1, 1, 9999]);
      expect(names.get(1)).toBe('chan-two');
      expect(names.has(9999)).toBe(false);
    });

    it('deletes consume logs before a time in batches, and nothing else', async () => {
      for (let i = 0; i < 7; i++) await logs.insert(log({ created_at: 500 + i, quota: 1 }));
      expect(await logs.deleteConsumeBefore(3000, 3)).toBe(9);
      expect(await listIds({})).toEqual([ids.e, ids.d, ids.c]);
      expect(await logs.deleteConsumeBefore(3000, 3)).toBe(0);
    });

    it("a username filter finds the logs of the account with that name, or the name's rows when none has it", async () => {
      const alice = await usersQueries(d).insert(
        newUserRow({
          username: 'alice',
          password_hash: 'x',
          role: 1,
          quota: 0,
          aff_code: 'alice',
          created_time: 0,
        }),
      );
      const own = await logs.insert(log({ user_id: alice, username: 'alice', created_at: 6000, quota: 7 }));
      // Written before a rename: the log keeps the name of its time.
      await logs.insert(log({ user_id: alice, username: 'alice-before', created_at: 6001, quota: 1 }));
      // Another account that had the name once: not the account that has it now.
      await logs.insert(log({ user_id: 990, username: 'alice', created_at: 6002, quota: 100 }));
      const ghost = await logs.insert(log({ user_id: 991, username: 'ghost', created_at: 6003, quota: 3 }));

      expect(await listIds({ username: 'alice' })).toEqual([own]);
      expect(await logs.sumConsumeQuota({ username: 'alice' })).toBe(7);
      // No account has the name: its rows are matched by the name alone.
      expect(await listIds({ username: 'ghost' })).toEqual([ghost]);
      expect(await logs.sumConsumeQuota({ username: 'ghost' })).toBe(3);
      expect(await listIds({ username: 'nobody' })).toEqual([]);
    });

    if (target.engine === 'sqlite') {
      it('serves the common pages from an index without sorting every matching row', async () => {
        const explain = async (f: Parameters<LogsQueries['list']>[0]) => {
          const q = logPageQuery(d.db, f, {
            offset: 0,
            size: 10,
            order: [{ column: 'id', direction: 'desc' }],
          });
          const c = q.compile();
          const result = await d.db.executeQuery({
            ...c,
            sql: `explain query plan ${c.sql}`,
          } as typeof c);
          return (result.rows as unknown as { detail: string }[]).map((r) => r.detail).join(' | ');
        };
        const own = await explain({ userId: 7 });
        expect(own).toContain('logs_user_created_idx');
        expect(own).not.toContain('TEMP B-TREE');
        const ownRange = await explain({ userId: 7, start: 10, end: 20 });
        expect(ownRange).toContain('logs_user_created_idx');
        expect(ownRange).not.toContain('TEMP B-TREE');
        const consume = await explain({ type: 2 });
        expect(consume).toContain('logs_type_created_idx');
        expect(consume).not.toContain('TEMP B-TREE');
        const model = await explain({ modelName: 'gpt-4o', start: 10 });
        expect(model).toMatch(/logs_model_created_idx/);
        expect(model).not.toContain('TEMP B-TREE');
        const ranged = await explain({ start: 10, end: 20 });
        expect(ranged).toContain('logs_created_type_idx');
        expect(ranged).not.toContain('TEMP B-TREE');
        // Unfiltered: a backward walk of the rowid b-tree that stops after one page.
        expect(await explain({})).toBe('SCAN logs');
        // Filters without an index of their own: the same walks, the filter checked on each row.
        expect(await explain({ tokenName: 't1' })).toBe('SCAN logs');
        const tokenRange = await explain({ sourceIp: '10.0.0.1', start: 10 });
        expect(tokenRange).toContain('logs_created_type_idx');
        expect(tokenRange).not.toContain('TEMP B-TREE');
        // A username the console resolved to its account.
        const named = await explain({ username: 'alice', userId: 7 });
        expect(named).toContain('logs_user_created_idx');
        expect(named).not.toContain('TEMP B-TREE');

        const count = logCountQuery(d.db, { userId: 7 }).compile();
        const countPlan = await d.db.executeQuery({
          ...count,
          sql: `explain query plan ${count.sql}`,
        } as typeof count);
        expect(JSON.stringify(countPlan.rows)).toContain('COVERING INDEX logs_user_created_idx');
      });
    }
  });
}
