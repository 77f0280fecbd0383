import { LogType, TokenStatus } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../../db/create-db.js';
import { insertReturningId, toNumber } from '../../db/dialect.js';
import { migrateToLatest } from '../../db/migrations/index.js';
import { newTokenRow } from '../../db/queries/tokens.js';
import { newUserRow } from '../../db/queries/users.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { KyselyLedgerStore } from '../kysely-ledger/kysely-ledger-store.js';
import { WriteBatcher } from '../kysely-ledger/write-batcher.js';
import { SqliteWorkerLedger } from '../sqlite-ledger/sqlite-ledger-client.js';
import { type ConsumeLog, Ledger, type LedgerStore, type Reservation } from './ledger.js';

// Every store runs the same cases: Kysely on each engine, and the SQLite worker thread.
const variants = engineTargets().flatMap((target) => [
  { target, store: 'kysely' as const },
  ...(target.engine === 'sqlite' ? [{ target, store: 'worker' as const }] : []),
]);

for (const { target, store } of variants) {
  describe.skipIf(target.skipReason !== undefined)(`Ledger (${store} store) on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    let ledger: Ledger;
    let seq = 0;

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url, { poolSize: 10 });
      await migrateToLatest(d.db, d.dialect);
      ledger = new Ledger(
        store === 'worker' && d.sqliteFile
          ? new SqliteWorkerLedger(d.sqliteFile, { writesElsewhere: d.sqliteWrites })
          : new KyselyLedgerStore(d, new WriteBatcher(d.db)),
      );
    });
    afterAll(async () => {
      await ledger?.close();
      await d?.close();
      await testDb?.drop();
    });

    const addUser = (quota: number) => {
      seq++;
      return insertReturningId(
        d.dialect,
        d.db.insertInto('users').values(
          newUserRow({
            username: `user${seq}`,
            password_hash: 'x',
            display_name: '',
            role: 1,
            quota,
            aff_code: `aff${seq}`,
            created_time: 0,
          }),
        ),
      );
    };
    const addToken = (userId: number, remain: number, unlimited = false) => {
      seq++;
      return insertReturningId(
        d.dialect,
        d.db.insertInto('tokens').values(
          newTokenRow({
            user_id: userId,
            name: `token${seq}`,
            key_hash: `hash${seq}`,
            key_sealed: '',
            created_time: 0,
            remain_quota: remain,
            unlimited_quota: unlimited ? 1 : 0,
          }),
        ),
      );
    };
    const addChannel = () => {
      seq++;
      return insertReturningId(
        d.dialect,
        d.db.insertInto('channels').values({
          type: 1,
          key_sealed: '',
          status: 1,
          name: `channel${seq}`,
          weight: 1,
          created_time: 0,
          test_time: 0,
          response_time: 0,
          base_url: '',
          other: '',
          balance: 0,
          balance_updated_time: 0,
          models: 'gpt-4o',
          group: 'default',
          tag: '',
          used_quota: 0,
          model_mapping: '',
          model_headers: '',
          custom_parameter: '',
          priority: 0,
          proxy: '',
          test_model: '',
          only_chat: 0,
          pre_cost: 1,
          plugin: '',
          deleted_at: null,
        }),
      );
    };
    const user = async (id: number) => {
      const r = await d.db
        .selectFrom('users')
        .select(['quota', 'used_quota', 'request_count'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return { quota: toNumber(r.quota), used: toNumber(r.used_quota), requests: toNumber(r.request_count) };
    };
    const token = async (id: number) => {
      const r = await d.db
        .selectFrom('tokens')
        .select(['remain_quota', 'used_quota', 'status'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return { remain: toNumber(r.remain_quota), used: toNumber(r.used_quota), status: r.status };
    };
    const channelUsed = async (id: number) =>
      toNumber(
        (
          await d.db
            .selectFrom('channels')
            .select('used_quota')
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).used_quota,
      );
    // A settled call's row is in `logs` once the ledger flushed (the SQLite thread publishes in bulk).
    const logsOf = async (userId: number) => {
      await ledger.flush();
      return d.db.selectFrom('logs').selectAll().where('user_id', '=', userId).orderBy('id').execute();
    };
    const logFor = (
      userId: number,
      tokenId: number,
      channelId: number,
      metadata = '{"group_ratio":1}',
    ): ConsumeLog => ({
      user_id: userId,
      created_at: 1_700_000_000,
      type: LogType.Consume,
      content: 'model ratio 1.25',
      username: `name-of-${userId}`,
      token_id: tokenId,
      token_name: `token-of-${userId}`,
      model_name: 'gpt-4o',
      prompt_tokens: 120,
      completion_tokens: 45,
      channel_id: channelId,
      request_time: 1234,
      first_response_time: 321,
      is_stream: 1,
      source_ip: '203.0.113.9',
      group: 'vip',
      metadata,
    });
    // The SQLite store holds reserves in memory and writes only settlements; the others take a
    // reserve from the balances in the database at once.
    const heldInDb = store === 'kysely';
    const reserveOk = async (req: Parameters<Ledger['reserve']>[0]): Promise<Reservation> => {
      const r = await ledger.reserve(req);
      if (!r.ok) throw new Error(`reserve refused: ${r.reason}`);
      return r.reservation;
    };

    it('reserves from the user and a limited token, and release gives it all back', async () => {
      const u = await addUser(10_000);
      const t = await addToken(u, 3000);
      const r = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 1200 });
      expect(await user(u)).toEqual({ quota: heldInDb ? 8800 : 10_000, used: 0, requests: 0 });
      expect(await token(t)).toMatchObject({ remain: heldInDb ? 1800 : 3000, used: 0 });
      // Either way the hold counts: what is left is all another call can take.
      expect(await ledger.reserve({ userId: u, tokenId: t, tokenUnlimited: true, amount: 8801 })).toEqual({
        ok: false,
        reason: 'insufficient_user_quota',
      });
      expect(await ledger.reserve({ userId: u, tokenId: t, tokenUnlimited: false, amount: 1801 })).toEqual({
        ok: false,
        reason: 'insufficient_token_quota',
      });
      const released = await ledger.release(r);
      expect(released).toEqual({
        outcome: 'released',
        reserved: 1200,
        finalQuota: 0,
        charged: 0,
        refunded: 1200,
        shortfall: 0,
      });
      expect(await user(u)).toEqual({ quota: 10_000, used: 0, requests: 0 });
      expect(await token(t)).toEqual({ remain: 3000, used: 0, status: TokenStatus.Enabled });
      expect(await logsOf(u)).toEqual([]);
    });

    it('refuses when the user cannot cover the reserve, changing nothing', async () => {
      const u = await addUser(999);
      const t = await addToken(u, 5000);
      expect(await ledger.reserve({ userId: u, tokenId: t, tokenUnlimited: false, amount: 1000 })).toEqual({
        ok: false,
        reason: 'insufficient_user_quota',
      });
      expect((await user(u)).quota).toBe(999);
      expect((await token(t)).remain).toBe(5000);
      // Exactly the balance is enough.
      await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 999 });
      expect((await user(u)).quota).toBe(heldInDb ? 0 : 999);
      expect(await ledger.reserve({ userId: u, tokenId: t, tokenUnlimited: false, amount: 1 })).toEqual({
        ok: false,
        reason: 'insufficient_user_quota',
      });
    });

    it('refuses when a limited token cannot cover the reserve, rolling the user back', async () => {
      const u = await addUser(10_000);
      const t = await addToken(u, 500);
      expect(await ledger.reserve({ userId: u, tokenId: t, tokenUnlimited: false, amount: 501 })).toEqual({
        ok: false,
        reason: 'insufficient_token_quota',
      });
      expect((await user(u)).quota).toBe(10_000);
      expect((await token(t)).remain).toBe(500);
    });

    it('settles below the reserve: refunds the difference and writes the log with the exact quota', async () => {
      const u = await addUser(10_000);
      const t = await addToken(u, 4000);
      const c = await addChannel();
      const r = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 1000 });
      const s = await ledger.settle(r, 337, logFor(u, t, c));
      expect(s).toEqual({
        outcome: 'settled',
        reserved: 1000,
        finalQuota: 337,
        charged: 337,
        refunded: 663,
        shortfall: 0,
      });
      expect(await user(u)).toEqual({ quota: 9663, used: 337, requests: 1 });
      expect(await token(t)).toEqual({ remain: 3663, used: 337, status: TokenStatus.Enabled });
      expect(await channelUsed(c)).toBe(337);
      const logs = await logsOf(u);
      expect(logs).toHaveLength(1);
      const { id, ...row } = logs[0]!;
      expect(typeof id).toBe('number');
      expect(row).toEqual({ ...logFor(u, t, c), quota: 337 });
    });

    it('settles above the reserve when the balance covers it', async () => {
      const u = await addUser(10_000);
      const t = await addToken(u, 4000);
      const c = await addChannel();
      const r = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 100 });
      const s = await ledger.settle(r, 2650, logFor(u, t, c));
      expect(s).toMatchObject({ charged: 2650, refunded: 0, shortfall: 0 });
      expect(await user(u)).toEqual({ quota: 7350, used: 2650, requests: 1 });
      expect(await token(t)).toEqual({ remain: 1350, used: 2650, status: TokenStatus.Enabled });
      expect(await channelUsed(c)).toBe(2650);
      const [log] = await logsOf(u);
      expect(log?.quota).toBe(2650);
      expect(JSON.parse(log!.metadata)).toEqual({ group_ratio: 1 });
    });

    it('charges what is left when the token cannot cover the excess: token exhausted, shortfall logged', async () => {
      const u = await addUser(1000);
      const t = await addToken(u, 500);
      const c = await addChannel();
      const r = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 400 });
      const s = await ledger.settle(r, 900, logFor(u, t, c));
      // 500 more wanted; the token has 100 left, the user 600: 100 is taken, 400 is short.
      expect(s).toEqual({
        outcome: 'settled',
        reserved: 400,
        finalQuota: 900,
        charged: 500,
        refunded: 0,
        shortfall: 400,
      });
      expect(await token(t)).toEqual({ remain: 0, used: 500, status: TokenStatus.Exhausted });
      expect(await user(u)).toEqual({ quota: 500, used: 500, requests: 1 });
      expect(await channelUsed(c)).toBe(500);
      const [log] = await logsOf(u);
      expect(log?.quota).toBe(500);
      expect(JSON.parse(log!.metadata)).toEqual({ group_ratio: 1, shortfall: 400 });
    });

    it('charges what is left when the user cannot cover the excess: balance 0, never negative', async () => {
      const u = await addUser(300);
      const t = await addToken(u, 0, true);
      const c = await addChannel();
      const r = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: true, amount: 200 });
      const s = await ledger.settle(r, 1000, logFor(u, t, c, 'not json'));
      expect(s).toMatchObject({ charged: 300, shortfall: 700 });
      expect(await user(u)).toEqual({ quota: 0, used: 300, requests: 1 });
      // Unlimited: remain untouched, status untouched, used counted.
      expect(await token(t)).toEqual({ remain: 0, used: 300, status: TokenStatus.Enabled });
      const [log] = await logsOf(u);
      expect(log?.quota).toBe(300);
      expect(JSON.parse(log!.metadata)).toEqual({ detail: 'not json', shortfall: 700 });
    });

    it('exhausts a limited token that an extra charge brings to exactly zero', async () => {
      const u = await addUser(10_000);
      const t = await addToken(u, 600);
      const r = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 100 });
      const s = await ledger.settle(r, 600, logFor(u, t, 0));
      expect(s.shortfall).toBe(0);
      expect(await token(t)).toEqual({ remain: 0, used: 600, status: TokenStatus.Exhausted });
      // A token that reached zero through a reserve taken in the database is left to the auth check;
      // with the reserve held in memory, the settlement's charge is what takes it to zero.
      const t2 = await addToken(u, 100);
      const r2 = await reserveOk({ userId: u, tokenId: t2, tokenUnlimited: false, amount: 100 });
      await ledger.settle(r2, 100, logFor(u, t2, 0));
      expect(await token(t2)).toEqual({
        remain: 0,
        used: 100,
        status: heldInDb ? TokenStatus.Enabled : TokenStatus.Exhausted,
      });
    });

    it('leaves an unlimited token balance alone on reserve and settle', async () => {
      const u = await addUser(5000);
      const t = await addToken(u, 42, true);
      const r = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: true, amount: 4000 });
      expect(await token(t)).toEqual({ remain: 42, used: 0, status: TokenStatus.Enabled });
      await ledger.settle(r, 1500, logFor(u, t, 0));
      expect(await token(t)).toEqual({ remain: 42, used: 1500, status: TokenStatus.Enabled });
      expect(await user(u)).toEqual({ quota: 3500, used: 1500, requests: 1 });
    });

    it('settles exactly once: repeated settle or release is a no-op with the first answer', async () => {
      const u = await addUser(10_000);
      const t = await addToken(u, 10_000);
      const c = await addChannel();
      const r = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 500 });
      const [a, b] = await Promise.all([
        ledger.settle(r, 200, logFor(u, t, c)),
        ledger.settle(r, 200, logFor(u, t, c)),
      ]);
      expect(b).toBe(a);
      expect(await ledger.settle(r, 9000, logFor(u, t, c))).toBe(a);
      expect(await ledger.release(r)).toBe(a);
      expect(await user(u)).toEqual({ quota: 9800, used: 200, requests: 1 });
      expect(await token(t)).toMatchObject({ remain: 9800, used: 200 });
      expect(await channelUsed(c)).toBe(200);
      expect(await logsOf(u)).toHaveLength(1);

      const r2 = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 300 });
      const released = await ledger.release(r2);
      expect(await ledger.settle(r2, 300, logFor(u, t, c))).toBe(released);
      expect(await ledger.release(r2)).toBe(released);
      expect(await user(u)).toEqual({ quota: 9800, used: 200, requests: 1 });
      expect(await logsOf(u)).toHaveLength(1);
    });

    it('refuses reservations it did not issue and bad amounts', async () => {
      const forged: Reservation = { userId: 1, tokenId: 1, tokenUnlimited: false, amount: 5 };
      await expect(ledger.settle(forged, 1, logFor(1, 1, 0))).rejects.toThrow('Not a reservation');
      await expect(ledger.release(forged)).rejects.toThrow('Not a reservation');
      const u0 = await addUser(100);
      const t0 = await addToken(u0, 100);
      const issued = await reserveOk({ userId: u0, tokenId: t0, tokenUnlimited: false, amount: 5 });
      // A copy carries the fields but is not the object issued; another ledger did not issue it.
      await expect(ledger.settle({ ...issued }, 1, logFor(u0, t0, 0))).rejects.toThrow('Not a reservation');
      const other = new Ledger({} as LedgerStore);
      await expect(other.release(issued)).rejects.toThrow('Not a reservation');
      await ledger.release(issued);
      await expect(
        ledger.reserve({ userId: 1, tokenId: 1, tokenUnlimited: false, amount: -1 }),
      ).rejects.toThrow(RangeError);
      await expect(
        ledger.reserve({ userId: 1, tokenId: 1, tokenUnlimited: false, amount: 1.5 }),
      ).rejects.toThrow(RangeError);
      const u = await addUser(100);
      const t = await addToken(u, 100);
      const r = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 10 });
      await expect(ledger.settle(r, -5, logFor(u, t, 0))).rejects.toThrow(RangeError);
      // The bad call changed nothing, so the reservation can still be settled properly.
      expect((await ledger.settle(r, 10, logFor(u, t, 0))).charged).toBe(10);
      expect(await user(u)).toEqual({ quota: 90, used: 10, requests: 1 });
    });

    it('lets a free call through a zero balance and still counts and logs it', async () => {
      const u = await addUser(0);
      const t = await addToken(u, 0);
      const r = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 0 });
      const s = await ledger.settle(r, 0, logFor(u, t, 0));
      expect(s).toMatchObject({ charged: 0, shortfall: 0 });
      expect(await user(u)).toEqual({ quota: 0, used: 0, requests: 1 });
      expect((await logsOf(u))[0]?.quota).toBe(0);
      expect(
        (await ledger.release(await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 0 })))
          .refunded,
      ).toBe(0);
    });

    it('skips the log row when consume logging is off, but still moves the money', async () => {
      const u = await addUser(1000);
      const t = await addToken(u, 1000);
      const c = await addChannel();
      const r = await reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 100 });
      await ledger.settle(r, 70, logFor(u, t, c), { recordLog: false });
      expect(await user(u)).toEqual({ quota: 930, used: 70, requests: 1 });
      expect(await channelUsed(c)).toBe(70);
      expect(await logsOf(u)).toEqual([]);
    });

    it('never overdraws the user under 200 concurrent reserves', async () => {
      const u = await addUser(10_000);
      const t = await addToken(u, 0, true);
      const results = await Promise.all(
        Array.from({ length: 200 }, () =>
          ledger.reserve({ userId: u, tokenId: t, tokenUnlimited: true, amount: 130 }),
        ),
      );
      const k = results.filter((r) => r.ok).length;
      expect(k).toBe(Math.floor(10_000 / 130));
      expect(results.filter((r) => !r.ok && r.reason === 'insufficient_user_quota')).toHaveLength(200 - k);
      expect((await user(u)).quota).toBe(heldInDb ? 10_000 - k * 130 : 10_000);
    });

    it('never overdraws a limited token under 200 concurrent reserves, and rolls refused users back', async () => {
      const u = await addUser(1_000_000);
      const t = await addToken(u, 5000);
      const results = await Promise.all(
        Array.from({ length: 200 }, () =>
          ledger.reserve({ userId: u, tokenId: t, tokenUnlimited: false, amount: 130 }),
        ),
      );
      const k = results.filter((r) => r.ok).length;
      expect(k).toBe(Math.floor(5000 / 130));
      expect(results.filter((r) => !r.ok && r.reason === 'insufficient_token_quota')).toHaveLength(200 - k);
      expect((await token(t)).remain).toBe(heldInDb ? 5000 - k * 130 : 5000);
      expect((await user(u)).quota).toBe(heldInDb ? 1_000_000 - k * 130 : 1_000_000);
    });

    // 50 requests of 70 against balances with room for exactly 10 (plus a remainder too small for an 11th).
    const concurrentCases = [
      {
        name: 'the user is short',
        userRoom: 10,
        tokenRoom: 30,
        unlimited: false,
        reason: 'insufficient_user_quota',
      },
      {
        name: 'the token is short',
        userRoom: 30,
        tokenRoom: 10,
        unlimited: false,
        reason: 'insufficient_token_quota',
      },
      {
        name: 'the token is unlimited',
        userRoom: 10,
        tokenRoom: 0,
        unlimited: true,
        reason: 'insufficient_user_quota',
      },
    ] as const;
    for (const c of concurrentCases) {
      it(`grants exactly 10 of 50 concurrent reserves when ${c.name}, both balances or neither`, async () => {
        const amount = 70;
        const userStart = c.userRoom * amount + amount - 1;
        const tokenStart = c.tokenRoom * amount + amount - 1;
        const u = await addUser(userStart);
        const t = await addToken(u, tokenStart, c.unlimited);
        const results = await Promise.all(
          Array.from({ length: 50 }, () =>
            ledger.reserve({ userId: u, tokenId: t, tokenUnlimited: c.unlimited, amount }),
          ),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(10);
        expect(results.filter((r) => !r.ok && r.reason === c.reason)).toHaveLength(40);
        const held = heldInDb ? 10 * amount : 0;
        expect((await user(u)).quota).toBe(userStart - held);
        expect((await token(t)).remain).toBe(c.unlimited ? tokenStart : tokenStart - held);
      });
    }

    it("refuses an unlimited token's reserve on the user alone, leaving the token as it was", async () => {
      const u = await addUser(50);
      const t = await addToken(u, 0, true);
      expect(await ledger.reserve({ userId: u, tokenId: t, tokenUnlimited: true, amount: 51 })).toEqual({
        ok: false,
        reason: 'insufficient_user_quota',
      });
      expect((await user(u)).quota).toBe(50);
      expect(await token(t)).toEqual({ remain: 0, used: 0, status: TokenStatus.Enabled });
    });

    // Row locks exist only on the servers; SQLite writers take the whole file in turn.
    it.skipIf(target.engine === 'sqlite')(
      'locks the user before the token, and gives the user back when the token is drained meanwhile',
      async () => {
        const u = await addUser(10_000);
        const t = await addToken(u, 1000);
        const userIsLocked = () =>
          d.db
            .selectFrom('users')
            .select('id')
            .where('id', '=', u)
            .forUpdate()
            .noWait()
            .execute()
            .then(
              () => false,
              () => true,
            );
        let pending: ReturnType<Ledger['reserve']> | undefined;
        await d.db.transaction().execute(async (trx) => {
          await trx.updateTable('tokens').set({ remain_quota: 100 }).where('id', '=', t).execute();
          pending = ledger.reserve({ userId: u, tokenId: t, tokenUnlimited: false, amount: 400 });
          // The reserve holds the user while it waits for the token: it took the user first.
          const deadline = Date.now() + 10_000;
          while (!(await userIsLocked())) {
            if (Date.now() > deadline) throw new Error('the reserve never locked the user');
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        });
        // The token's balance was checked after the wait, and the user's deduction went back.
        expect(await pending).toEqual({ ok: false, reason: 'insufficient_token_quota' });
        expect((await user(u)).quota).toBe(10_000);
        expect((await token(t)).remain).toBe(100);
        expect(await userIsLocked()).toBe(false);
      },
    );

    it('settles 500 concurrent requests over 5 users, 20 tokens and 3 channels exactly as one by one', async () => {
      let rng = 4242;
      const rand = (n: number) => {
        rng = (rng * 1103515245 + 12345) % 2 ** 31;
        // The low bits of this generator repeat quickly; the high ones do not.
        return Math.floor(rng / 2 ** 16) % n;
      };
      // Token 3 of each user is unlimited; user 0 and most tokens hold little beyond their reserves,
      // so overruns run into shortfalls and exhaust tokens on the way.
      const plans = Array.from({ length: 500 }, () => {
        const amount = 50 + rand(200);
        const kind = rand(8);
        return {
          user: rand(5),
          token: rand(4),
          channel: rand(3),
          amount,
          // release, exact, refund or overrun
          final:
            kind === 0 ? undefined : kind === 1 ? amount : kind < 5 ? rand(amount) : amount + 1 + rand(300),
        };
      });
      const reservedOn = (user: number, token?: number) =>
        plans
          .filter((p) => p.user === user && (token === undefined || p.token === token))
          .reduce((sum, p) => sum + p.amount, 0);
      const world = async () => {
        const users: number[] = [];
        const tokens: number[][] = [];
        for (let ui = 0; ui < 5; ui++) {
          const u = await addUser(reservedOn(ui) + (ui === 0 ? 150 : 1_000_000));
          users.push(u);
          const own: number[] = [];
          for (let ti = 0; ti < 4; ti++) own.push(await addToken(u, reservedOn(ui, ti) + 40 * ti, ti === 3));
          tokens.push(own);
        }
        const channels = [await addChannel(), await addChannel(), await addChannel()];
        const hold = (p: (typeof plans)[number]) => ({
          userId: users[p.user]!,
          tokenId: tokens[p.user]![p.token]!,
          tokenUnlimited: p.token === 3,
          amount: p.amount,
        });
        const finish = (p: (typeof plans)[number], r: Reservation) =>
          p.final === undefined
            ? ledger.release(r)
            : ledger.settle(
                r,
                p.final,
                logFor(r.userId, r.tokenId, channels[p.channel]!, `{"plan":${plans.indexOf(p)}}`),
              );
        const state = async () => ({
          users: await Promise.all(users.map(user)),
          tokens: await Promise.all(tokens.flat().map(token)),
          channels: await Promise.all(channels.map(channelUsed)),
          logs: (await Promise.all(users.map(logsOf))).map((rows) =>
            rows.map((l) => ({
              token: tokens.flat().indexOf(toNumber(l.token_id)),
              channel: channels.indexOf(toNumber(l.channel_id)),
              quota: toNumber(l.quota),
              metadata: l.metadata,
            })),
          ),
        });
        return { hold, finish, state };
      };

      // Together: reserves at once, then settlements in waves, so several groups and batches form.
      const together = await world();
      const held = await Promise.all(plans.map((p) => reserveOk(together.hold(p))));
      const pending: Promise<Awaited<ReturnType<Ledger['settle']>>>[] = [];
      for (let i = 0; i < plans.length; i++) {
        if (i % 60 === 0) await new Promise((resolve) => setImmediate(resolve));
        pending.push(together.finish(plans[i]!, held[i]!));
      }
      const results = await Promise.all(pending);

      // One by one, in the same order, on a second set of rows.
      const alone = await world();
      const aloneHeld: Reservation[] = [];
      for (const p of plans) aloneHeld.push(await reserveOk(alone.hold(p)));
      const aloneResults = [];
      for (let i = 0; i < plans.length; i++) aloneResults.push(await alone.finish(plans[i]!, aloneHeld[i]!));

      expect(results).toEqual(aloneResults);
      const end = await together.state();
      expect(end).toEqual(await alone.state());
      // The case mix is the one intended: shortfalls, exhausted tokens, releases, a log per settle.
      expect(results.filter((r) => r.shortfall > 0).length).toBeGreaterThan(10);
      expect(end.tokens.filter((t) => t.status === TokenStatus.Exhausted).length).toBeGreaterThan(2);
      expect(results.filter((r) => r.outcome === 'released').length).toBeGreaterThan(20);
      expect(end.logs.flat()).toHaveLength(results.filter((r) => r.outcome === 'settled').length);
      const charged = results.reduce((sum, r) => sum + r.charged, 0);
      expect(end.channels.reduce((a, b) => a + b, 0)).toBe(charged);
      expect(end.users.reduce((sum, u) => sum + u.used, 0)).toBe(charged);
      expect(end.users.every((u) => u.quota >= 0) && end.tokens.every((t) => t.remain >= 0)).toBe(true);
      // A thousand reserves and settlements one by one, each reserve writing its row: slow on a busy
      // machine, not a measure of anything.
    }, 120_000);

    it('commits the other settlements of a batch when one of them cannot be written', async () => {
      const u = await addUser(100_000);
      const t = await addToken(u, 100_000);
      const c = await addChannel();
      const held = await Promise.all(
        Array.from({ length: 20 }, () =>
          reserveOk({ userId: u, tokenId: t, tokenUnlimited: false, amount: 500 }),
        ),
      );
      const results = await Promise.allSettled(
        held.map((r, i) =>
          ledger.settle(
            r,
            100 + i,
            // A log row the database refuses: NOT NULL content.
            i === 7 ? { ...logFor(u, t, c), content: null as unknown as string } : logFor(u, t, c),
          ),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(held.map((_, i) => (i === 7 ? 'rejected' : 'fulfilled')));
      const charged = held.reduce((sum, _, i) => (i === 7 ? sum : sum + 100 + i), 0);
      // A reserve taken in the database stays taken when its settlement fails: neither charged nor
      // given back. A reserve held in memory goes with the failed settlement: nothing is charged
      // without its log row.
      const kept = heldInDb ? 500 : 0;
      expect(await user(u)).toEqual({ quota: 100_000 - charged - kept, used: charged, requests: 19 });
      expect(await token(t)).toMatchObject({ remain: 100_000 - charged - kept, used: charged });
      expect(await channelUsed(c)).toBe(charged);
      expect((await logsOf(u)).map((l) => toNumber(l.quota)).sort((a, b) => a - b)).toEqual(
        held.map((_, i) => 100 + i).filter((q) => q !== 107),
      );
    });

    it('keeps money and records in agreement under 200 concurrent requests with overruns', async () => {
      const start = 20_000;
      const u = await addUser(start);
      const t = await addToken(u, 15_000);
      const c = await addChannel();
      let rng = 12345;
      const rand = (n: number) => {
        rng = (rng * 1103515245 + 12345) % 2 ** 31;
        return rng % n;
      };
      const plans = Array.from({ length: 200 }, (_, i) => ({
        amount: 50 + rand(200),
        final: rand(600),
        fail: i % 7 === 0,
      }));
      const outcomes = await Promise.all(
        plans.map(async (p) => {
          const r = await ledger.reserve({ userId: u, tokenId: t, tokenUnlimited: false, amount: p.amount });
          if (!r.ok) return undefined;
          return p.fail
            ? ledger.release(r.reservation)
            : ledger.settle(r.reservation, p.final, logFor(u, t, c));
        }),
      );
      const settled = outcomes.filter((o) => o?.outcome === 'settled');
      const logs = await logsOf(u);
      const logged = logs.reduce((sum, l) => sum + toNumber(l.quota), 0);
      const after = await user(u);
      const tok = await token(t);
      expect(after.quota).toBeGreaterThanOrEqual(0);
      expect(tok.remain).toBeGreaterThanOrEqual(0);
      expect(logs).toHaveLength(settled.length);
      expect(after.requests).toBe(settled.length);
      expect(after.used).toBe(logged);
      expect(tok.used).toBe(logged);
      expect(await channelUsed(c)).toBe(logged);
      expect(after.quota).toBe(start - logged);
      expect(tok.remain).toBe(15_000 - logged);
      expect(settled.reduce((s, o) => s + (o?.charged ?? 0), 0)).toBe(logged);
      // The token ran dry at some point, so overruns were cut short rather than overdrawn.
      expect(settled.some((o) => (o?.shortfall ?? 0) > 0) || tok.remain > 0).toBe(true);
    });
  });
}
