import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../../db/create-db.js';
import { insertReturningId, toNumber } from '../../db/dialect.js';
import { migrateToLatest } from '../../db/migrations/index.js';
import { newTokenRow } from '../../db/queries/tokens.js';
import { newUserRow } from '../../db/queries/users.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { type ConsumeLog, Ledger, type Reservation } from '../ledger/ledger.js';
import { KyselyLedgerStore } from './kysely-ledger-store.js';
import { WriteBatcher } from './write-batcher.js';

// No reserve outlives its node: a reserve held in the database names its node and expires unless
// that node renews it. A node that restarts gives its own back at once; any node gives back a dead
// node's after the expiry; a settlement that comes after its reserve was given back charges its
// whole cost, so `balance drop == sum(log quota) == used_quota` holds whatever happened.

const START = 1_000_000;

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`reserve keeping on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    let seq = 0;
    let now = 1_700_000_000;
    const opened: Ledger[] = [];

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url, { poolSize: 6 });
      await migrateToLatest(d.db, d.dialect);
    });
    afterAll(async () => {
      for (const l of opened) await l.close().catch(() => {});
      await d?.close();
      await testDb?.drop();
    });

    const node = (nodeId: string) => {
      const store = new KyselyLedgerStore(d, new WriteBatcher(d.db), {
        nodeId,
        leaseSeconds: 60,
        nowSeconds: () => now,
      });
      const ledger = new Ledger(store);
      opened.push(ledger);
      return { store, ledger };
    };

    const account = async () => {
      seq++;
      const userId = await insertReturningId(
        d.dialect,
        d.db.insertInto('users').values(
          newUserRow({
            username: `keep${seq}`,
            password_hash: 'x',
            display_name: '',
            role: 1,
            quota: START,
            aff_code: `keep${seq}`,
            created_time: 0,
          }),
        ),
      );
      const tokenId = await insertReturningId(
        d.dialect,
        d.db.insertInto('tokens').values(
          newTokenRow({
            user_id: userId,
            name: `t${seq}`,
            key_hash: `keep${seq}`,
            key_sealed: '',
            created_time: 0,
            remain_quota: START,
          }),
        ),
      );
      return { userId, tokenId };
    };

    const books = async (userId: number, tokenId: number) => {
      const u = await d.db
        .selectFrom('users')
        .select(['quota', 'used_quota'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      const t = await d.db
        .selectFrom('tokens')
        .select(['remain_quota', 'used_quota'])
        .where('id', '=', tokenId)
        .executeTakeFirstOrThrow();
      const l = await d.db
        .selectFrom('logs')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('quota').as('q')])
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return {
        userDrop: START - toNumber(u.quota),
        tokenDrop: START - toNumber(t.remain_quota),
        userUsed: toNumber(u.used_quota),
        tokenUsed: toNumber(t.used_quota),
        logged: toNumber(l.q ?? 0),
        rows: toNumber(l.n),
      };
    };

    const balanced = (b: Awaited<ReturnType<typeof books>>, charged: number, rows: number) =>
      expect(b).toEqual({
        userDrop: charged,
        tokenDrop: charged,
        userUsed: charged,
        tokenUsed: charged,
        logged: charged,
        rows,
      });

    const log = (userId: number, tokenId: number): ConsumeLog => ({
      user_id: userId,
      created_at: now,
      type: LogType.Consume,
      content: '',
      username: 'keep',
      token_id: tokenId,
      token_name: 't',
      model_name: 'gpt-4o',
      prompt_tokens: 1,
      completion_tokens: 1,
      channel_id: 0,
      request_time: 1,
      first_response_time: 1,
      is_stream: 0,
      source_ip: '',
      group: 'default',
      metadata: '{}',
    });

    const hold = async (ledger: Ledger, userId: number, tokenId: number, amount: number) => {
      const r = await ledger.reserve({ userId, tokenId, tokenUnlimited: false, amount });
      if (!r.ok) throw new Error(r.reason);
      return r.reservation;
    };

    const ownRows = (nodeId: string) =>
      d.db.selectFrom('reserves').select(['amount', 'returned']).where('node_id', '=', nodeId).execute();

    it('a restarted node gives back at once what its previous run held', async () => {
      const { userId, tokenId } = await account();
      const crashed = node(`restart-${target.engine}`).ledger;
      await crashed.start();
      for (const amount of [300, 500, 700]) await hold(crashed, userId, tokenId, amount);
      expect((await books(userId, tokenId)).userDrop).toBe(1500);
      expect(await ownRows(`restart-${target.engine}`)).toHaveLength(3);
      // The process died here (nothing closed). The same node starts again:
      const again = node(`restart-${target.engine}`);
      await again.ledger.start();
      balanced(await books(userId, tokenId), 0, 0);
      expect((await ownRows(`restart-${target.engine}`)).every((r) => Number(r.returned) === 1)).toBe(true);
      // It serves as before.
      const r = await hold(again.ledger, userId, tokenId, 200);
      await again.ledger.settle(r, 150, log(userId, tokenId));
      balanced(await books(userId, tokenId), 150, 1);
    });

    it("any node gives back a dead node's reserves after their expiry, not before", async () => {
      const { userId, tokenId } = await account();
      const dead = node(`dead-${target.engine}`).ledger;
      await dead.start();
      await hold(dead, userId, tokenId, 400);
      await hold(dead, userId, tokenId, 600);
      const live = node(`live-${target.engine}`);
      await live.ledger.start();
      await live.store.keep();
      expect((await books(userId, tokenId)).userDrop).toBe(1000);
      now += 61;
      await live.store.keep();
      balanced(await books(userId, tokenId), 0, 0);
    });

    it("a live node's renewal keeps its reserves from being given back", async () => {
      const { userId, tokenId } = await account();
      const busy = node(`busy-${target.engine}`);
      await busy.ledger.start();
      const r = await hold(busy.ledger, userId, tokenId, 900);
      const other = node(`other-${target.engine}`).store;
      for (let i = 0; i < 4; i++) {
        now += 30;
        await busy.store.keep();
        await other.keep();
      }
      expect((await books(userId, tokenId)).userDrop).toBe(900);
      await busy.ledger.settle(r, 800, log(userId, tokenId));
      balanced(await books(userId, tokenId), 800, 1);
    });

    it('a settlement that comes after its reserve was given back charges the whole cost once', async () => {
      const { userId, tokenId } = await account();
      const slow = node(`slow-${target.engine}`).ledger;
      const reservations: Reservation[] = [];
      for (let i = 0; i < 3; i++) reservations.push(await hold(slow, userId, tokenId, 1000));
      const release = await hold(slow, userId, tokenId, 1000);
      // The node went without renewing for longer than the lease: another gave its reserves back.
      now += 61;
      await node(`sweeper-${target.engine}`).store.keep();
      balanced(await books(userId, tokenId), 0, 0);
      const settled = await Promise.all(
        reservations.map((r, i) => slow.settle(r, 700 + i, log(userId, tokenId))),
      );
      expect(settled.map((s) => s.charged)).toEqual([700, 701, 702]);
      await slow.release(release);
      balanced(await books(userId, tokenId), 2103, 3);
    });

    it('reserves and settlements of one user running at once never fail on each other', async () => {
      const { userId, tokenId } = await account();
      const busy = node(`concurrent-${target.engine}`).ledger;
      const calls = Array.from({ length: 300 }, async (_, i) => {
        await new Promise((r) => setTimeout(r, i % 13));
        const r = await hold(busy, userId, tokenId, 100);
        return busy.settle(r, 50, log(userId, tokenId));
      });
      const settled = await Promise.all(calls);
      expect(settled.every((x) => x.charged === 50)).toBe(true);
      balanced(await books(userId, tokenId), 300 * 50, 300);
    });

    it('a clean stop gives back what the node still holds', async () => {
      const { userId, tokenId } = await account();
      const stopping = node(`stop-${target.engine}`).ledger;
      await stopping.start();
      const r = await hold(stopping, userId, tokenId, 250);
      await hold(stopping, userId, tokenId, 350);
      await stopping.settle(r, 100, log(userId, tokenId));
      await stopping.close();
      balanced(await books(userId, tokenId), 100, 1);
    });
  });
}
