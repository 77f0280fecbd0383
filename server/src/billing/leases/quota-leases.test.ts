import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LogType } from '@switchyard/domain';
import type { Kysely, Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../../db/create-db.js';
import { insertReturningId, toNumber } from '../../db/dialect.js';
import { migrateToLatest } from '../../db/migrations/index.js';
import { newTokenRow, tokensQueries } from '../../db/queries/tokens.js';
import { balanceLogRow, newUserRow, usersQueries } from '../../db/queries/users.js';
import type { Tables } from '../../db/tables.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { KyselyLedgerStore } from '../kysely-ledger/kysely-ledger-store.js';
import { WriteBatcher } from '../kysely-ledger/write-batcher.js';
import { type ConsumeLog, Ledger, type Reservation } from '../ledger/ledger.js';
import { SettlementJournal } from '../ledger/settlement-journal.js';

// Quota leases: a node reserves against a slice of the balances it moved into a lease row, in
// memory. Whatever happens (refill, stop, a node that dies, two nodes racing for one user), once
// every lease is back `balance drop == sum(log quota) == used_quota`, and no balance goes below zero.

const SLICE = 10_000;
const START = 1_000_000;

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Transaction control (begin, commit): not counted. */
const CONTROL = /^\s*(begin|commit|rollback|start|set)\b/i;

/** Counts the statements run, by verb and table, from their text (several may share one message). */
class StatementCounter {
  counts: Record<string, number> = {};
  /** Round trips that carried counted statements. */
  messages = 0;
  readonly onQuery = (text: string) => {
    if (!CONTROL.test(text)) this.messages++;
    for (const written of text.split(';\n')) {
      if (CONTROL.test(written)) continue;
      // A statement prepared by name starts with a comment that says so.
      const statement = written.replace(/^\/\* prepared \w+ \*\/\s*/, '');
      // PostgreSQL's prepared group writes (`with u as (update users ...), ...`): each part counts.
      if (/^with\b/.test(statement)) {
        for (const part of statement.matchAll(/\b(update|insert into)\s+(\w+)/g)) {
          const key = `${part[1]!.split(' ')[0]} ${part[2]}`;
          this.counts[key] = (this.counts[key] ?? 0) + 1;
        }
        continue;
      }
      const m =
        /^\s*(update|copy)\s+[`"]?(\w+)/i.exec(statement) ??
        /^\s*(select|insert|delete)\b.*?\b(?:from|into)\s+[`"]?(\w+)/is.exec(statement);
      const key = m ? `${m[1]!.toLowerCase()} ${m[2]}` : statement.trim();
      this.counts[key] = (this.counts[key] ?? 0) + 1;
    }
  };
}

/**
 * The writer's connection as the database cutting it just as a COMMIT succeeds: the transaction is
 * kept, its answer is a lost connection. `lose` commits are lost, one after the other.
 */
function losingCommits(db: Kysely<Tables>) {
  const control = { lose: 0 };
  const wrapped = {
    transaction: () => ({
      execute: async <T>(fn: (trx: Transaction<Tables>) => Promise<T>) => {
        const result = await db.transaction().execute(fn);
        if (control.lose > 0) {
          control.lose--;
          throw new Error('Connection terminated unexpectedly');
        }
        return result;
      },
    }),
  } as unknown as Kysely<Tables>;
  return { wrapped, control };
}

describe('local refs', () => {
  it('are never mistaken for a reserve row’s ref, whatever the boot id', () => {
    // A reserve row's ref starts with a random base64url boot id; 500 boots cover every first letter.
    for (let i = 0; i < 500; i++) {
      const store = new KyselyLedgerStore(
        { dialect: 'postgres' } as Database,
        new WriteBatcher(undefined as never),
      );
      expect(store.isLocalRef(store.nextRef())).toBe(false);
    }
  });
});

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`quota leases on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    let seq = 0;
    let now = 1_700_000_000;
    const opened: Ledger[] = [];
    const databases: Database[] = [];

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url, { poolSize: 6 });
      await migrateToLatest(d.db, d.dialect);
    });
    afterAll(async () => {
      for (const l of opened) await l.close().catch(() => {});
      for (const x of databases) await x.close();
      await d?.close();
      await testDb?.drop();
    });

    /**
     * A node: its own connections (a second process would have its own pool). Its writer's COMMIT
     * answers are lost as `commits.lose` says; `reconnectMs`: how long the writer tries again;
     * `journalDir`: its ledger keeps a settlement journal there.
     */
    const node = (
      nodeId: string,
      slice = SLICE,
      options: { reconnectMs?: number; journalDir?: string } = {},
    ) => {
      const own = createDb(testDb.url, { poolSize: 4 });
      databases.push(own);
      const losing = losingCommits(own.db);
      const writer = new WriteBatcher(losing.wrapped, { reconnectMs: options.reconnectMs ?? 60_000 });
      const store = new KyselyLedgerStore(own, writer, {
        nodeId,
        leaseSeconds: 60,
        leaseSlice: slice,
        nowSeconds: () => now,
      });
      const ledger = new Ledger(
        store,
        options.journalDir === undefined ? undefined : new SettlementJournal(options.journalDir),
      );
      opened.push(ledger);
      return { store, ledger, commits: losing.control };
    };

    const account = async (quota = START, remain = START, unlimited = false) => {
      seq++;
      const userId = await insertReturningId(
        d.dialect,
        d.db.insertInto('users').values(
          newUserRow({
            username: `lease${seq}`,
            password_hash: 'x',
            display_name: '',
            role: 1,
            quota,
            aff_code: `lease${seq}`,
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
            key_hash: `lease${seq}`,
            key_sealed: '',
            created_time: 0,
            remain_quota: remain,
            unlimited_quota: unlimited ? 1 : 0,
          }),
        ),
      );
      return { userId, tokenId, unlimited, quota, remain };
    };
    type Account = Awaited<ReturnType<typeof account>>;

    const books = async (a: Account) => {
      const u = await d.db
        .selectFrom('users')
        .select(['quota', 'used_quota', 'request_count'])
        .where('id', '=', a.userId)
        .executeTakeFirstOrThrow();
      const t = await d.db
        .selectFrom('tokens')
        .select(['remain_quota', 'used_quota'])
        .where('id', '=', a.tokenId)
        .executeTakeFirstOrThrow();
      const l = await d.db
        .selectFrom('logs')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('quota').as('q')])
        .where('user_id', '=', a.userId)
        .executeTakeFirstOrThrow();
      return {
        userDrop: a.quota - toNumber(u.quota),
        tokenDrop: a.remain - toNumber(t.remain_quota),
        userUsed: toNumber(u.used_quota),
        userRequests: toNumber(u.request_count),
        tokenUsed: toNumber(t.used_quota),
        logged: toNumber(l.q ?? 0),
        rows: toNumber(l.n),
      };
    };

    /** Every lease back: the books hold exactly what was charged. */
    const balanced = async (a: Account, charged: number, rows: number) =>
      expect(await books(a)).toEqual({
        userDrop: charged,
        tokenDrop: a.unlimited ? 0 : charged,
        userUsed: charged,
        userRequests: rows,
        tokenUsed: charged,
        logged: charged,
        rows,
      });

    const leaseRows = (userId: number) =>
      d.db
        .selectFrom('quota_leases')
        .select(['node_id', 'amount', 'returned', 'token_limited', 'used_quota', 'request_count'])
        .where('user_id', '=', userId)
        .execute();

    const reserveRows = (userId: number) =>
      d.db
        .selectFrom('reserves')
        .select('id')
        .where('user_id', '=', userId)
        .where('returned', '=', 0)
        .execute();

    const log = (a: Account): ConsumeLog => ({
      user_id: a.userId,
      created_at: now,
      type: LogType.Consume,
      content: '',
      username: 'lease',
      token_id: a.tokenId,
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

    const hold = async (ledger: Ledger, a: Account, amount: number) => {
      const r = await ledger.reserve({
        userId: a.userId,
        tokenId: a.tokenId,
        tokenUnlimited: a.unlimited,
        amount,
      });
      if (!r.ok) throw new Error(r.reason);
      return r.reservation;
    };

    /** Reserves until one is held locally (the first ones go to the database while a slice comes). */
    const leased = async (n: { store: KyselyLedgerStore; ledger: Ledger }, a: Account, amount: number) => {
      await until(() => n.store.leases.levels().available >= amount, 'a slice');
      const r = await hold(n.ledger, a, amount);
      expect(r.ref?.startsWith('~')).toBe(true);
      return r;
    };

    it('reserves, refunds and overruns against the lease; the balances move only by the slice', async () => {
      const a = await account();
      const n = node(`arith-${target.engine}`);
      await n.ledger.start();
      // The first reserve finds no budget: it is held in the database, and a slice is taken.
      const direct = await hold(n.ledger, a, 1000);
      expect(direct.ref?.startsWith('~')).toBe(false);
      expect(await reserveRows(a.userId)).toHaveLength(1);
      await n.ledger.settle(direct, 600, log(a));
      const r1 = await leased(n, a, 1000);
      const r2 = await leased(n, a, 1000);
      const r3 = await leased(n, a, 500);
      // Held locally: no reserve row, the balances moved only by the direct charge and the slice.
      expect(await reserveRows(a.userId)).toHaveLength(0);
      expect((await books(a)).userDrop).toBe(600 + SLICE);
      const s1 = await n.ledger.settle(r1, 700, log(a)); // refund 300 to the budget
      const s2 = await n.ledger.settle(r2, 1800, log(a)); // overrun 800 from the budget
      await n.ledger.release(r3);
      expect([s1.charged, s1.refunded, s2.charged, s2.shortfall]).toEqual([700, 300, 1800, 0]);
      await n.ledger.flush();
      expect((await books(a)).userDrop).toBe(600 + SLICE);
      // The leased settlements are counted on the lease row, which only this node writes; the
      // user's and token's rows keep the direct call's.
      expect((await books(a)).userUsed).toBe(600);
      expect((await books(a)).tokenUsed).toBe(600);
      const [row] = await leaseRows(a.userId);
      expect(toNumber(row!.amount)).toBe(SLICE - 700 - 1800);
      expect([toNumber(row!.used_quota), toNumber(row!.request_count)]).toEqual([700 + 1800, 2]);
      expect(n.store.leases.levels().available).toBe(SLICE - 700 - 1800);
      // As the owner sees them: the columns with the live lease's.
      const user = await usersQueries(d).byId(a.userId);
      expect([user!.quota, user!.used_quota, user!.request_count]).toEqual([a.quota - 600 - 2500, 3100, 3]);
      const token = await tokensQueries(d).byId(a.tokenId);
      expect([token!.remain_quota, token!.used_quota]).toEqual([a.remain - 600 - 2500, 3100]);
      await n.ledger.close();
      await balanced(a, 600 + 700 + 1800, 3);
      expect((await leaseRows(a.userId)).map((l) => Number(l.returned))).toEqual([1]);
    });

    it('an overrun beyond the budget is taken from the balances, a shortfall beyond them', async () => {
      const a = await account(2 * SLICE + 3000, START);
      const n = node(`over-${target.engine}`);
      await n.ledger.start();
      await n.ledger.settle(await hold(n.ledger, a, 100), 100, log(a));
      const r = await leased(n, a, 100);
      // Budget SLICE - 100 after this reserve, balance 2 * SLICE + 3000 - 100 - SLICE.
      const s = await n.ledger.settle(r, 2 * SLICE + 5000, log(a));
      expect(s.charged).toBe(SLICE + SLICE + 2900);
      expect(s.shortfall).toBe(2 * SLICE + 5000 - s.charged);
      await n.ledger.close();
      await balanced(a, 100 + s.charged, 2);
      expect((await books(a)).userDrop).toBe(a.quota);
    });

    it('a refused refill keeps a spent lease row that holds counters', async () => {
      // Spent to nothing, with what its settlements counted; the balance too small for a slice.
      const a = await account(SLICE, START);
      const id = `spent-${target.engine}`;
      await d.db
        .insertInto('quota_leases')
        .values({
          id,
          node_id: `spent-${target.engine}`,
          user_id: a.userId,
          token_id: a.tokenId,
          token_limited: 1,
          amount: 0,
          expires_at: now + 60,
          returned: 0,
          used_quota: 7_000,
          request_count: 3,
        })
        .execute();
      const n = node(`spent-${target.engine}`);
      const outcome = await n.store.leases.takeSlice({
        id,
        userId: a.userId,
        tokenId: a.tokenId,
        limited: true,
        available: 0,
        outstanding: 0,
        live: true,
        growing: false,
        quietUntil: 0,
        stored: true,
        lastUsed: now,
      });
      expect(outcome).toBe('refused');
      const rows = await leaseRows(a.userId);
      expect(
        rows.map((r) => [toNumber(r.amount), toNumber(r.used_quota), toNumber(r.request_count)]),
      ).toEqual([[0, 7_000, 3]]);
      // Given back, its counters reach the user and the token.
      await n.ledger.close();
      await d.db.transaction().execute((trx) => n.store.leases.giveBackRows(trx, { ids: [id] }, 10));
      const b = await books(a);
      expect([b.userUsed, b.userRequests, b.tokenUsed, b.userDrop]).toEqual([7_000, 3, 7_000, 0]);
    });

    it('refills the budget before it runs out, in the same lease row', async () => {
      const a = await account();
      const n = node(`refill-${target.engine}`);
      await n.ledger.start();
      await n.ledger.settle(await hold(n.ledger, a, 1000), 1000, log(a));
      let charged = 1000;
      let local = 0;
      // 30 calls of 1000 take 3 slices' worth: the budget grows while they run.
      for (let i = 0; i < 30; i++) {
        await until(() => n.store.leases.levels().available >= 1000, 'a refill');
        const r = await hold(n.ledger, a, 1000);
        if (r.ref?.startsWith('~')) local++;
        await n.ledger.settle(r, 1000, log(a));
        charged += 1000;
      }
      expect(local).toBe(30);
      await n.ledger.flush();
      const rows = await leaseRows(a.userId);
      expect(rows).toHaveLength(1);
      const taken = (await books(a)).userDrop - 1000;
      expect(taken % SLICE).toBe(0);
      expect(taken).toBeGreaterThanOrEqual(3 * SLICE);
      expect(toNumber(rows[0]!.amount)).toBe(taken - 30_000);
      await n.ledger.close();
      await balanced(a, charged, 31);
    });

    it('a balance too small to slice is reserved directly; spend never exceeds it', async () => {
      const a = await account(2 * SLICE - 1, START);
      const n = node(`small-${target.engine}`);
      await n.ledger.start();
      const r = await hold(n.ledger, a, 1000);
      await n.ledger.settle(r, 1000, log(a));
      // The slice was refused (the balance would keep less than a slice): still no lease.
      await until(async () => n.store.leases.levels().leases === 1, 'the budget');
      await n.ledger.flush();
      const again = await hold(n.ledger, a, 1000);
      expect(again.ref?.startsWith('~')).toBe(false);
      await n.ledger.settle(again, 1000, log(a));
      expect(await leaseRows(a.userId)).toEqual([]);
      await n.ledger.close();
      await balanced(a, 2000, 2);
    });

    it('a balance written outright gives the leases back, and a node told of it stops using them', async () => {
      const a = await account();
      const n = node(`outright-${target.engine}`);
      await n.ledger.start();
      await n.ledger.settle(await hold(n.ledger, a, 100), 100, log(a));
      await n.ledger.settle(await leased(n, a, 100), 100, log(a));
      await n.ledger.flush();
      // An administrator takes the whole balance shown: the lease goes back first.
      const users = usersQueries(d);
      const shown = (await users.byId(a.userId))!.quota;
      expect(shown).toBe(START - 200);
      const adjusted = await users.adjustQuota(a.userId, -shown, () =>
        balanceLogRow({
          user_id: a.userId,
          username: 'lease',
          type: LogType.Manage,
          content: '',
          quota: 0,
          created_at: now,
        }),
      );
      expect(adjusted).toEqual({ ok: true, quota: 0 });
      expect((await leaseRows(a.userId)).map((l) => Number(l.returned))).toEqual([1]);
      // Told (the change bus), the node stops reserving against the lease: the balance is empty.
      n.store.balancesChanged();
      await until(() => n.store.leases.levels().available === 0, 'the lease forgotten');
      const refused = await n.ledger.reserve({
        userId: a.userId,
        tokenId: a.tokenId,
        tokenUnlimited: false,
        amount: 100,
      });
      expect(refused.ok).toBe(false);
      await n.ledger.close();
      const b = await books(a);
      // Two calls and the administrator's change.
      expect(b).toMatchObject({ userUsed: 200, tokenUsed: 200, logged: 200, rows: 3 });
      expect(b.userDrop).toBe(START);
    });

    it('an unlimited token leases from the user only', async () => {
      const a = await account(START, 0, true);
      const n = node(`unlimited-${target.engine}`);
      await n.ledger.start();
      await n.ledger.settle(await hold(n.ledger, a, 500), 500, log(a));
      const r = await leased(n, a, 500);
      await n.ledger.settle(r, 400, log(a));
      await n.ledger.flush();
      expect((await leaseRows(a.userId)).map((l) => Number(l.token_limited))).toEqual([0]);
      await n.ledger.close();
      await balanced(a, 900, 2);
    });

    it('a stop gives every lease back at once', async () => {
      const a = await account();
      const n = node(`stop-${target.engine}`);
      await n.ledger.start();
      await n.ledger.settle(await hold(n.ledger, a, 1000), 900, log(a));
      const r = await leased(n, a, 1000);
      await n.ledger.settle(r, 800, log(a));
      expect((await books(a)).userDrop).toBeGreaterThan(1700);
      await n.ledger.close();
      await balanced(a, 1700, 2);
      expect((await leaseRows(a.userId)).every((l) => Number(l.returned) === 1)).toBe(true);
    });

    it("a dead node's lease goes back after its expiry, by another node, and a restart returns its own", async () => {
      const a = await account();
      const dead = node(`dead-${target.engine}`);
      await dead.ledger.start();
      await dead.ledger.settle(await hold(dead.ledger, a, 1000), 1000, log(a));
      await dead.ledger.settle(await leased(dead, a, 1000), 1000, log(a));
      await dead.ledger.flush();
      // Killed here: nothing closed. Before the expiry nobody touches the lease.
      const live = node(`live-${target.engine}`);
      await live.ledger.start();
      await live.store.keep();
      expect((await books(a)).userDrop).toBe(1000 + SLICE);
      now += 61;
      await live.store.keep();
      await balanced(a, 2000, 2);

      const b = await account();
      const crashed = node(`restart-${target.engine}`);
      await crashed.ledger.start();
      await crashed.ledger.settle(await hold(crashed.ledger, b, 1000), 1000, log(b));
      await crashed.ledger.settle(await leased(crashed, b, 1000), 700, log(b));
      await crashed.ledger.flush();
      const again = node(`restart-${target.engine}`);
      await again.ledger.start();
      await balanced(b, 1700, 2);
    });

    it('a node that could not renew stops using its lease; a settlement after it went back charges the balances', async () => {
      const a = await account();
      const slow = node(`slow-${target.engine}`);
      await slow.ledger.start();
      await slow.ledger.settle(await hold(slow.ledger, a, 1000), 1000, log(a));
      const pending: Reservation[] = [await leased(slow, a, 1000), await leased(slow, a, 1000)];
      now += 61;
      // Past half a lease without a renewal: the budget is no longer used.
      const direct = await hold(slow.ledger, a, 1000);
      expect(direct.ref?.startsWith('~')).toBe(false);
      await node(`sweeper-${target.engine}`).store.keep();
      const settled = await Promise.all(pending.map((r) => slow.ledger.settle(r, 900, log(a))));
      expect(settled.map((s) => s.charged)).toEqual([900, 900]);
      await slow.ledger.settle(direct, 1000, log(a));
      await slow.ledger.close();
      await balanced(a, 1000 + 1800 + 1000, 4);
    });

    it('two nodes racing for one user never take more than the balance, and the books balance', async () => {
      const a = await account(50 * SLICE, 50 * SLICE);
      const nodes = [node(`race-a-${target.engine}`), node(`race-b-${target.engine}`)];
      for (const n of nodes) await n.ledger.start();
      let refused = 0;
      let charged = 0;
      let rows = 0;
      // Both hold a lease before the race (a slice comes in the background after a first call).
      for (const n of nodes) {
        const s = await n.ledger.settle(await hold(n.ledger, a, 1000), 1000, log(a));
        charged += s.charged;
        rows++;
        await n.ledger.settle(await leased(n, a, 1000), 1000, log(a));
        charged += 1000;
        rows++;
      }
      // 600 calls of 1000-2500 against 500 000: the balance runs out while both nodes hold leases.
      const calls = Array.from({ length: 600 }, async (_, i) => {
        const n = nodes[i % 2]!;
        await new Promise((r) => setTimeout(r, i % 7));
        const r = await n.ledger.reserve({
          userId: a.userId,
          tokenId: a.tokenId,
          tokenUnlimited: false,
          amount: 1000,
        });
        if (!r.ok) {
          refused++;
          return;
        }
        const s = await n.ledger.settle(r.reservation, 1000 + (i % 4) * 500, log(a));
        charged += s.charged;
        rows++;
      });
      await Promise.all(calls);
      for (const n of nodes) await n.ledger.flush();
      const u = await books(a);
      expect(u.userDrop).toBeLessThanOrEqual(a.quota);
      for (const n of nodes) await n.ledger.close();
      await balanced(a, charged, rows);
      expect(refused).toBeGreaterThan(0);
      expect(charged).toBeGreaterThan(a.quota / 2);
      // Both nodes reserved against leases of their own before the race (`leased` checks each).
    });

    // Server engines: a SQLite file serves one node.
    it.skipIf(target.engine === 'sqlite')(
      'first slices asked for together, by two nodes for many users and tokens, are all taken',
      async () => {
        // On InnoDB, looking for a lease row that is not there locked the gap where it would go, and
        // first takes then deadlocked on each other's gaps when they inserted: refused for 5 s.
        const errors: string[] = [];
        const nodes = ['first-a', 'first-b'].map((id) => {
          const own = createDb(testDb.url, { poolSize: 8 });
          databases.push(own);
          const store = new KyselyLedgerStore(own, new WriteBatcher(own.db), {
            nodeId: `${id}-${target.engine}`,
            leaseSeconds: 60,
            leaseSlice: SLICE,
            nowSeconds: () => now,
            onError: (m) => errors.push(m),
          });
          const ledger = new Ledger(store);
          opened.push(ledger);
          return { store, ledger };
        });
        for (const n of nodes) await n.ledger.start();
        const accounts: Account[] = [];
        for (let i = 0; i < 24; i++) accounts.push(await account());
        // Each node's first reserve of each account goes to the database and asks for a slice.
        await Promise.all(
          nodes.flatMap((n) => accounts.map(async (a) => n.ledger.release(await hold(n.ledger, a, 100)))),
        );
        for (const n of nodes)
          await until(() => n.store.leases.levels().available >= accounts.length * SLICE, 'every slice');
        expect(errors).toEqual([]);
        for (const n of nodes) await n.ledger.close();
        for (const a of accounts) await balanced(a, 0, 0);
      },
    );

    it('a batch of leased settlements over several users, tokens and channels writes the leases and channels, one statement per table', async () => {
      const counter = new StatementCounter();
      const counted = createDb(testDb.url, { poolSize: 4, onQuery: counter.onQuery });
      databases.push(counted);
      const store = new KyselyLedgerStore(counted, new WriteBatcher(counted.db), {
        nodeId: `count-${target.engine}`,
        leaseSeconds: 60,
        leaseSlice: SLICE,
        nowSeconds: () => now,
      });
      const n = { store, ledger: new Ledger(store) };
      opened.push(n.ledger);
      await n.ledger.start();
      const accounts = [await account(), await account(), await account()];
      for (const a of accounts) await n.ledger.settle(await hold(n.ledger, a, 100), 100, log(a));
      await until(() => n.store.leases.levels().available >= 3 * (SLICE - 100), 'slices');
      const held: [Account, Reservation][] = [];
      for (const a of accounts) for (let i = 0; i < 10; i++) held.push([a, await leased(n, a, 100)]);
      counter.counts = {};
      counter.messages = 0;
      const settled = held.map(([a, r], i) =>
        n.ledger.settle(r, 50 + (i % 3) * 25, { ...log(a), channel_id: 1 + (i % 2) }),
      );
      await n.ledger.flush();
      await Promise.all(settled);
      // No charge went past its reserve: the users' and tokens' rows, which every node's groups
      // would update, are left alone (the counters go on the lease rows).
      expect(counter.counts).toEqual({
        'select quota_leases': 1,
        'update channels': 1,
        'update quota_leases': 1,
        [target.engine === 'postgres' ? 'copy logs' : 'insert logs']: 1,
        // The prepared statement's parts for the users, the tokens and the journal numbers, which
        // update and insert nothing given no rows.
        ...(target.engine === 'postgres'
          ? { 'update users': 1, 'update tokens': 1, 'insert ledger_settled': 1 }
          : {}),
      });
      // PostgreSQL: the lease lock, the prepared balance writes, then the log rows' COPY. MySQL: the
      // lease lock, then every write in one message. SQLite: each statement alone.
      expect(counter.messages).toBe({ postgres: 3, mysql: 2, sqlite: 4 }[target.engine]);
      await n.ledger.close();
      for (const a of accounts) {
        const b = await books(a);
        expect(b.userDrop).toBe(b.logged);
        expect(b.userUsed).toBe(b.logged);
        expect(b.rows).toBe(11);
      }
    });

    it('a leased settlement leaves its journal mark, so a replay makes it at most once', async () => {
      const a = await account();
      const n = node(`mark-${target.engine}`);
      await n.ledger.start();
      await n.ledger.settle(await hold(n.ledger, a, 1000), 1000, log(a));
      const r = await leased(n, a, 1000);
      await n.store.settle(
        { userId: a.userId, tokenId: a.tokenId, tokenUnlimited: false, amount: 1000, ref: r.ref },
        1000,
        log(a),
        true,
        42,
      );
      expect(await n.store.journalMark()).toBe(42);
      // Exact: a number below it that no group committed is not taken for made.
      expect(await n.store.committedAmong([41, 42])).toEqual(new Set([42]));
      // Nothing is open any more: the next upkeep forgets the numbers.
      await n.store.keep();
      expect(await n.store.committedAmong([42])).toEqual(new Set());
      await n.ledger.close();
      await balanced(a, 2000, 2);
    });

    for (const [how, reconnectMs] of [
      ['its group is run again', 60_000],
      ['its group gives up and its items run again one by one', 0],
    ] as const)
      it(`a leased settlement whose COMMIT answer was lost charges once when ${how}`, async () => {
        const a = await account();
        const n = node(`lost-${reconnectMs}-${target.engine}`, SLICE, { reconnectMs });
        await n.ledger.start();
        await n.ledger.settle(await hold(n.ledger, a, 100), 100, log(a));
        const held: Reservation[] = [];
        for (let i = 0; i < 5; i++) held.push(await leased(n, a, 500));
        await n.ledger.flush();
        n.commits.lose = 1;
        const answers = await Promise.all(
          held.map((r, i) =>
            n.store.settle(
              { userId: a.userId, tokenId: a.tokenId, tokenUnlimited: false, amount: 500, ref: r.ref },
              300 + 100 * i,
              log(a),
              true,
              10 + i,
            ),
          ),
        );
        expect(n.commits.lose).toBe(0);
        // The run that found them made answers what the committed run charged.
        expect(answers.map((x) => x.charged)).toEqual([300, 400, 500, 600, 700]);
        await n.ledger.close();
        await balanced(a, 100 + 2500, 6);
      });

    it('a reserve-row settlement whose COMMIT answer was lost answers what it charged', async () => {
      const a = await account();
      const n = node(`lost-row-${target.engine}`, 0);
      await n.ledger.start();
      const r = await hold(n.ledger, a, 1000);
      n.commits.lose = 1;
      const s = await n.ledger.settle(r, 700, log(a));
      expect([n.commits.lose, s.charged, s.refunded]).toEqual([0, 700, 300]);
      await n.ledger.close();
      await balanced(a, 700, 1);
    });

    it('a replay makes a leased settlement that never committed, though a later one did', async () => {
      const a = await account();
      const nodeId = `replay-${target.engine}`;
      const n = node(nodeId);
      await n.ledger.start();
      await n.ledger.settle(await hold(n.ledger, a, 100), 100, log(a));
      const r = await leased(n, a, 500);
      const held = { userId: a.userId, tokenId: a.tokenId, tokenUnlimited: false, amount: 500, ref: r.ref };
      // Number 9 committed; 5 was handed over before it and never committed (its group failed and
      // its run alone had not come when the node was killed).
      await n.store.settle(held, 500, log(a), true, 9);
      await n.ledger.close();
      const dir = mkdtempSync(path.join(tmpdir(), 'lease-replay-'));
      try {
        const entry = (seq: number, finalQuota: number) =>
          JSON.stringify({ n: seq, ...held, finalQuota, recordLog: true, log: log(a) });
        writeFileSync(path.join(dir, 'settlements.journal'), `${entry(5, 300)}\n${entry(9, 500)}\n`);
        const again = node(nodeId, SLICE, { journalDir: dir });
        expect(await again.ledger.replay()).toBe(1);
        await again.ledger.start();
        await again.ledger.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      await balanced(a, 100 + 500 + 300, 3);
    });
  });
}
