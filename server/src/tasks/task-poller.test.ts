import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failAndRefund } from '../db/queries/task-refunds.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../test/databases.js';
import { type FakeTaskUpstream, startFakeMidjourney } from '../test/fake-task-upstreams.js';
import { createChannel, createToken } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';

// Two gateways sharing one database, both polling: the job lease lets one of them poll at a time,
// and the conditional move to FAILURE gives each failed task's charge back once even when two
// refunds race. SQLite serves one node, so this runs on the servers only.

const SECRET = 'mj-two-nodes';
const IMAGINE = 50_000;

for (const target of engineTargets().filter((e) => e.engine !== 'sqlite')) {
  describe.skipIf(target.skipReason !== undefined)(`task poller on two nodes (${target.engine})`, () => {
    let db: TestDatabase;
    let a: TestApp;
    let b: TestApp;
    let fake: FakeTaskUpstream;
    let userId: number;
    let key: string;

    beforeAll(async () => {
      fake = await startFakeMidjourney({ secret: SECRET });
      db = await createTestDatabase(target);
      // Nodes sharing a database share their secrets: a key made on one is found on the other.
      const env = {
        DATABASE_URL: db.url,
        TASK_POLL_SECONDS: '3600',
        SESSION_SECRET: 'two-node-session-secret-0123456789abcdef',
        SECRET_KEY: 'two-node-secret-key-0123456789abcdef0123',
      };
      a = await createTestApp({ env });
      b = await createTestApp({ env });
      const root = await a.signIn('root', ROOT_PASSWORD);
      const [channel] = await createChannel(a, root, {
        type: 34,
        name: 'mj',
        key: SECRET,
        base_url: fake.url,
        models: ['mj_*'],
      });
      // The channel reaches the other node through the change bus.
      for (let i = 0; i < 100 && !b.s.relay.tables.routing.channel(channel!); i++)
        await new Promise((r) => setTimeout(r, 100));
      userId = await registerUser(a, 'painter');
      await a.s.repos.users.update(userId, { quota: 5_000_000 });
      key = (await createToken(a, await a.signIn('painter', 'password-123'))).key;
    });

    afterAll(async () => {
      await a?.close();
      await b?.close();
      await db?.drop();
      await fake?.close();
    });

    const submit = async (t: TestApp, prompt: string) => {
      const res = await t.call({
        method: 'POST',
        url: '/mj/submit/imagine',
        headers: { 'mj-api-secret': key },
        payload: { prompt },
      });
      expect(res.statusCode).toBe(200);
      return (res.json() as { result: string }).result;
    };
    const balances = async () => {
      await Promise.all([a.s.relay.ledger.flush(), b.s.relay.ledger.flush()]);
      const u = (await a.s.repos.users.byId(userId))!;
      return { quota: u.quota, used: u.used_quota };
    };
    const refundLogs = async () =>
      a.s.database.db
        .selectFrom('logs')
        .select(['content', 'quota'])
        .where('user_id', '=', userId)
        .where('type', '=', LogType.System)
        .execute();
    const polls = () => fake.requests.filter((r) => r.path === '/mj/task/list-by-condition');

    it('polls each task once per round and refunds each failure once', async () => {
      const before = await balances();
      // Submitted through both nodes: either may have to follow them.
      const ids = [
        await submit(a, 'one'),
        await submit(b, 'two'),
        await submit(a, 'three'),
        await submit(b, 'four'),
        await submit(a, 'five'),
        await submit(b, 'six'),
      ];
      expect(before.quota - (await balances()).quota).toBe(6 * IMAGINE);
      for (const [i, id] of ids.entries()) {
        if (i % 2 === 0) fake.fail(id, `failed ${id}`);
        else fake.succeed(id);
      }
      const asked = polls().length;
      const reports = await Promise.all([a.s.jobs.taskPoller.tick(), b.s.jobs.taskPoller.tick()]);
      const ran = reports.filter((r) => r !== undefined);
      // One node held the lease; the other did nothing.
      expect(ran).toHaveLength(1);
      expect(ran[0]).toMatchObject({ asked: 6, refunded: 3, updated: 3 });
      expect(polls().length - asked).toBe(1);
      expect((polls().at(-1)!.json as { ids: string[] }).ids.sort()).toEqual([...ids].sort());

      // Both again: nothing is left to ask about or give back.
      const again = await Promise.all([a.s.jobs.taskPoller.tick(), b.s.jobs.taskPoller.tick()]);
      for (const r of again) if (r) expect(r).toMatchObject({ asked: 0, refunded: 0 });
      expect(polls().length - asked).toBe(1);

      const after = await balances();
      expect(before.quota - after.quota).toBe(3 * IMAGINE);
      expect(after.used - before.used).toBe(3 * IMAGINE);
      expect(after.quota + after.used).toBe(before.quota + before.used);
      const logs = await refundLogs();
      expect(logs).toHaveLength(3);
      for (const [i, id] of ids.entries()) {
        const mine = logs.filter((l) => l.content.includes(id));
        expect(mine).toHaveLength(i % 2 === 0 ? 1 : 0);
      }
    });

    it('hands the poller over when the lease holder stops', async () => {
      const id = await submit(a, 'handover');
      fake.fail(id, 'handover failure');
      // Whichever node held it lets go; the other takes the next turn.
      await a.s.jobs.taskPoller.stop();
      const report = await b.s.jobs.taskPoller.tick();
      expect(report).toMatchObject({ refunded: 1 });
      expect((await refundLogs()).filter((l) => l.content.includes(id))).toHaveLength(1);
    });

    it('gives a charge back once when two refunds of one task race', async () => {
      const id = await submit(b, 'race');
      const row = (await a.s.repos.midjourneys.byMjId(id))!;
      const before = await balances();
      const failure = {
        table: 'midjourneys' as const,
        id: row.id,
        userId,
        tokenId: row.token_id,
        channelId: row.channel_id,
        quota: row.quota,
        reason: 'raced',
        now: a.s.clock.nowSeconds(),
        what: 'mj_imagine',
        upstreamId: id,
      };
      const results = await Promise.all([
        failAndRefund(a.s.database.db, failure),
        failAndRefund(b.s.database.db, failure),
        failAndRefund(a.s.database.db, failure),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const after = await balances();
      expect(after.quota - before.quota).toBe(IMAGINE);
      expect((await refundLogs()).filter((l) => l.content.includes(id))).toHaveLength(1);
    });
  });
}
