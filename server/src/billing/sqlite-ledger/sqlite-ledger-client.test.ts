import { TokenStatus } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../../db/create-db.js';
import { migrateToLatest } from '../../db/migrations/index.js';
import { newTokenRow } from '../../db/queries/tokens.js';
import { newUserRow } from '../../db/queries/users.js';
import { openSqliteFile } from '../../db/sqlite-file.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { logRow } from './consume-log-row.js';
import { SqliteWorkerLedger } from './sqlite-ledger-client.js';
import { SqliteLedgerCore } from './sqlite-ledger-core.js';

const sqlite = engineTargets().find((t) => t.engine === 'sqlite')!;

describe('the SQLite ledger thread', () => {
  let testDb: TestDatabase;
  let d: Database;
  let userId = 0;
  let tokenId = 0;

  beforeAll(async () => {
    testDb = await createTestDatabase(sqlite);
    d = createDb(testDb.url);
    await migrateToLatest(d.db, d.dialect);
    const row = await d.db
      .insertInto('users')
      .values(
        newUserRow({
          username: 'ledger',
          password_hash: 'x',
          role: 1,
          quota: 1000,
          aff_code: 'affledger',
          created_time: 0,
          display_name: '',
        }),
      )
      .returning('id')
      .executeTakeFirstOrThrow();
    userId = Number(row.id);
    const token = await d.db
      .insertInto('tokens')
      .values(
        newTokenRow({
          user_id: userId,
          name: 'ledger key',
          key_hash: 'ledgerkey',
          key_sealed: '',
          created_time: 0,
          remain_quota: 1_000_000_000,
        }),
      )
      .returning('id')
      .executeTakeFirstOrThrow();
    tokenId = Number(token.id);
  });
  afterAll(async () => {
    await d?.close();
    await testDb?.drop();
  });

  const held = (amount: number) => ({ userId, tokenId: 0, tokenUnlimited: true, amount });
  /** Through the user's limited token, which has far more than the user. */
  const keyHeld = (amount: number) => ({ userId, tokenId, tokenUnlimited: false, amount });
  const log = (content: string) => ({
    user_id: userId,
    created_at: 1,
    type: 2,
    content,
    username: 'ledger',
    token_id: 0,
    token_name: '',
    model_name: 'm',
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
  const balance = async () =>
    Number(
      (await d.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow())
        .quota,
    );

  const workerOf = (ledger: SqliteWorkerLedger) => (ledger as unknown as { worker: unknown }).worker;
  const setBalance = (quota: number) =>
    d.db.updateTable('users').set({ quota }).where('id', '=', userId).execute();

  it('undoes a failing job alone: its neighbours in the batch still commit', async () => {
    const core = new SqliteLedgerCore(openSqliteFile(d.sqliteFile!), {
      enabled: TokenStatus.Enabled,
      exhausted: TokenStatus.Exhausted,
    });
    const before = await balance();
    const results = core.runBatch([
      { held: held(0), finalQuota: 10, log: logRow(log('first')), recordLog: true },
      // NOT NULL user_id: the insert fails after the balance moved; the savepoint undoes both.
      { held: held(0), finalQuota: 10, log: logRow({ ...log('bad'), user_id: null }), recordLog: true },
      { held: held(0), finalQuota: 4, log: logRow(log('third')), recordLog: true },
    ]);
    expect(core.publishLogs()).toBe(2);
    core.close();
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(results[2]).toEqual({ ok: true, value: { charged: 4, refunded: 0, shortfall: 0 } });
    const logs = await d.db.selectFrom('logs').select(['content', 'quota']).orderBy('id').execute();
    expect(logs.map((l) => [l.content, Number(l.quota)])).toEqual([
      ['first', 10],
      ['third', 4],
    ]);
    expect(await balance()).toBe(before - 14);
  });

  it('holds new reserves back while the settlements waiting to commit fill its capacity', async () => {
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { capacity: 1, intervalMs: 100 });
    try {
      const order: string[] = [];
      const settled = ledger.settle(held(0), 0, log('slow'), true).then(() => order.push('settled'));
      const reserved = ledger.reserve(held(1)).then((refusal) => {
        order.push('reserved');
        return refusal;
      });
      await Promise.all([settled, reserved]);
      expect(order).toEqual(['settled', 'reserved']);
      expect(await reserved).toBeNull();
    } finally {
      await ledger.close();
    }
  });

  describe('a reserve', () => {
    it('is answered on the calling thread from the committed balance less what is held, writing nothing', async () => {
      await setBalance(1000);
      const ledger = new SqliteWorkerLedger(d.sqliteFile!);
      try {
        expect(await ledger.reserve(held(700))).toBeNull();
        // Nothing written, and no thread started: the hold is in this process's memory.
        expect(await balance()).toBe(1000);
        expect(workerOf(ledger)).toBeUndefined();
        expect(await ledger.reserve(held(301))).toBe('insufficient_user_quota');
        expect(await ledger.reserve(held(300))).toBeNull();
        await ledger.release(held(700));
        expect(await ledger.reserve(held(701))).toBe('insufficient_user_quota');
        expect(await ledger.reserve(held(700))).toBeNull();
        await ledger.release(held(700));
        await ledger.release(held(300));
        expect(await ledger.reserve(held(1000))).toBeNull();
        await ledger.release(held(1000));
        expect(workerOf(ledger)).toBeUndefined();
        expect(await balance()).toBe(1000);
      } finally {
        await ledger.close();
      }
    });

    it("sees at once a balance this process changed through its other connection (the console's top-up)", async () => {
      await setBalance(100);
      const ledger = new SqliteWorkerLedger(d.sqliteFile!, { writesElsewhere: d.sqliteWrites });
      try {
        // Through a key: the user's and the token's balances are kept in memory once read.
        expect(await ledger.reserve(keyHeld(101))).toBe('insufficient_user_quota');
        expect(await ledger.reserve(keyHeld(100))).toBeNull();
        await ledger.release(keyHeld(100));
        await setBalance(600);
        expect(await ledger.reserve(keyHeld(101))).toBeNull();
        await setBalance(50);
        // 101 held, 50 in the balance: nothing more can be held.
        expect(await ledger.reserve(keyHeld(1))).toBe('insufficient_user_quota');
        await ledger.release(keyHeld(101));
        const stranger = { userId: userId + 1000, tokenId: -1, tokenUnlimited: true, amount: 5 };
        expect(await ledger.reserve(stranger)).toBe('insufficient_user_quota');
      } finally {
        await ledger.close();
      }
    });

    it('sees a balance another process changed once the kept one has lived its time', async () => {
      await setBalance(100);
      let now = 0;
      const ledger = new SqliteWorkerLedger(d.sqliteFile!, {
        writesElsewhere: d.sqliteWrites,
        nowMs: () => now,
      });
      const outside = openSqliteFile(d.sqliteFile!);
      try {
        expect(await ledger.reserve(keyHeld(100))).toBeNull();
        await ledger.release(keyHeld(100));
        outside.prepare('UPDATE users SET quota = 700 WHERE id = ?').run(userId);
        expect(await ledger.reserve(keyHeld(101))).toBe('insufficient_user_quota');
        now += 1000;
        expect(await ledger.reserve(keyHeld(700))).toBeNull();
        await ledger.release(keyHeld(700));
      } finally {
        outside.close();
        await ledger.close();
      }
    });

    it('does not wait for a write lock held elsewhere', async () => {
      await setBalance(1000);
      const ledger = new SqliteWorkerLedger(d.sqliteFile!);
      const other = openSqliteFile(d.sqliteFile!);
      try {
        other.exec('BEGIN IMMEDIATE');
        other.prepare('UPDATE users SET quota = 0 WHERE id = ?').run(userId);
        // WAL: the reader sees the last commit, not the open transaction, and does not wait for it.
        expect(await ledger.reserve(held(900))).toBeNull();
        other.exec('ROLLBACK');
        await ledger.release(held(900));
      } finally {
        if (other.inTransaction) other.exec('ROLLBACK');
        other.close();
        await ledger.close();
      }
    });

    it('leaves nothing held behind a process that stopped: the next one sees the whole balance', async () => {
      await setBalance(500);
      const first = new SqliteWorkerLedger(d.sqliteFile!);
      expect(await first.reserve(held(500))).toBeNull();
      // The process stops with the call in progress: its hold goes with it, no reserve stays deducted.
      await first.close();
      const next = new SqliteWorkerLedger(d.sqliteFile!);
      try {
        expect(await balance()).toBe(500);
        expect(await next.reserve(held(500))).toBeNull();
        await next.release(held(500));
      } finally {
        await next.close();
      }
    });
  });

  it("counts a settlement's charge against new reserves until it is committed, and its refund at once", async () => {
    await setBalance(1000);
    // A long interval keeps the settlement on this side until the flush.
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, {
      intervalMs: 60_000,
      writesElsewhere: d.sqliteWrites,
    });
    try {
      expect(await ledger.reserve(keyHeld(1000))).toBeNull();
      const settled = ledger.settle(keyHeld(1000), 10, log('charge held'), true);
      // 990 came back when the call settled; the 10 it cost is gone although not committed yet.
      expect(await balance()).toBe(1000);
      expect(await ledger.reserve(keyHeld(991))).toBe('insufficient_user_quota');
      expect(await ledger.reserve(keyHeld(990))).toBeNull();
      await ledger.flush();
      await expect(settled).resolves.toEqual({ charged: 10, refunded: 990, shortfall: 0 });
      // Committed: the charge is in the balance (the thread reported it) and no longer held.
      expect(await balance()).toBe(990);
      expect(await ledger.reserve(keyHeld(1))).toBe('insufficient_user_quota');
      await ledger.release(keyHeld(990));
      expect(await ledger.reserve(keyHeld(990))).toBeNull();
      expect(await ledger.reserve(keyHeld(1))).toBe('insufficient_user_quota');
      await ledger.release(keyHeld(990));
    } finally {
      await ledger.close();
    }
  });

  it('charges what the balance holds when a settlement costs more than its reserve', async () => {
    await setBalance(100);
    const ledger = new SqliteWorkerLedger(d.sqliteFile!);
    try {
      expect(await ledger.reserve(held(40))).toBeNull();
      await expect(ledger.settle(held(40), 130, log('overrun'), true)).resolves.toEqual({
        charged: 100,
        refunded: 0,
        shortfall: 30,
      });
      expect(await balance()).toBe(0);
      // Committed and answered: nothing is held any more.
      await setBalance(5);
      expect(await ledger.reserve(held(5))).toBeNull();
      await ledger.release(held(5));
    } finally {
      await ledger.close();
    }
  });

  it('commits on close the settlements still waiting for their interval', async () => {
    await setBalance(1000);
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { intervalMs: 60_000 });
    expect(await ledger.reserve(held(20))).toBeNull();
    expect(await ledger.reserve(held(20))).toBeNull();
    const first = ledger.settle(held(20), 5, log('waiting at close'), true);
    const second = ledger.settle(held(20), 7, log('waiting at close'), true);
    await ledger.close();
    await expect(first).resolves.toEqual({ charged: 5, refunded: 15, shortfall: 0 });
    await expect(second).resolves.toEqual({ charged: 7, refunded: 13, shortfall: 0 });
    const rows = await d.db
      .selectFrom('logs')
      .select('quota')
      .where('content', '=', 'waiting at close')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => Number(r.quota))).toEqual([5, 7]);
    expect(await balance()).toBe(1000 - 12);
  });

  it('keeps a settlement whose commit meets a write lock held past its busy timeout, and commits it once the lock is gone', async () => {
    await setBalance(1000);
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { busyTimeoutMs: 20, intervalMs: 0 });
    const other = openSqliteFile(d.sqliteFile!);
    try {
      expect(await ledger.reserve(held(50))).toBeNull();
      other.exec('BEGIN IMMEDIATE');
      let answered: string | undefined;
      const settling = ledger.settle(held(50), 30, log('after the lock'), true).then(
        (v) => {
          answered = 'committed';
          return v;
        },
        (err: unknown) => {
          answered = `failed: ${String(err)}`;
          throw err;
        },
      );
      // Long enough for many rounds of three attempts each (20 ms apiece) to fail.
      await new Promise((r) => setTimeout(r, 500));
      expect(answered).toBeUndefined();
      await expect(ledger.flush()).rejects.toThrow(/waiting for the database/);
      other.exec('ROLLBACK');
      await expect(settling).resolves.toEqual({ charged: 30, refunded: 20, shortfall: 0 });
      await ledger.flush();
      expect(await balance()).toBe(1000 - 30);
      const rows = await d.db
        .selectFrom('logs')
        .select('quota')
        .where('content', '=', 'after the lock')
        .execute();
      expect(rows.map((r) => Number(r.quota))).toEqual([30]);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      await ledger.close();
    }
  });

  it('still commits on close the settlements that never reached a thread that died', async () => {
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { intervalMs: 60_000, onError: () => {} });
    expect(await ledger.reserve(held(3))).toBeNull();
    const settled = ledger.settle(held(3), 3, log('outbox of a dead thread'), true);
    const worker = (ledger as unknown as { worker: { terminate(): Promise<number> } }).worker;
    await worker.terminate();
    // Its caller heard of the crash; the settlement itself was never posted, so it still lands.
    await expect(settled).rejects.toThrow(/exited/);
    await ledger.close();
    const rows = await d.db
      .selectFrom('logs')
      .select('quota')
      .where('content', '=', 'outbox of a dead thread')
      .execute();
    expect(rows.map((r) => Number(r.quota))).toEqual([3]);
  });

  it('keeps settlements for its interval and posts them together', async () => {
    await setBalance(1000);
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { intervalMs: 60_000 });
    try {
      let done = 0;
      const settles = [1, 2].map((q) =>
        ledger.settle(held(0), q, log('together'), true).then((amounts) => {
          done++;
          return amounts;
        }),
      );
      await new Promise((r) => setTimeout(r, 50));
      expect(done).toBe(0);
      await ledger.flush();
      expect(done).toBe(2);
      await Promise.all(settles);
    } finally {
      await ledger.close();
    }
  });

  const published = (content: string) =>
    d.db
      .selectFrom('logs')
      .select('quota')
      .where('content', '=', content)
      .execute()
      .then((rows) => rows.map((r) => Number(r.quota)));
  /** Polls until `read` returns `want` (the thread publishes on its own schedule) or 5 s pass. */
  const eventually = async <T>(read: () => Promise<T>, want: T): Promise<T> => {
    let last = await read();
    for (let i = 0; i < 100 && JSON.stringify(last) !== JSON.stringify(want); i++) {
      await new Promise((r) => setTimeout(r, 50));
      last = await read();
    }
    return last;
  };

  it('publishes the staged log rows on its own once publishRows of them wait', async () => {
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { publishRows: 3, publishIntervalMs: 600_000 });
    try {
      const settles = [1, 2, 3].map((q) => ledger.settle(held(0), q, log('three staged'), true));
      await Promise.all(settles);
      expect(await eventually(() => published('three staged'), [1, 2, 3])).toEqual([1, 2, 3]);
    } finally {
      await ledger.close();
    }
  });

  it('publishes a staged log row on its own once publishIntervalMs has passed', async () => {
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { publishRows: 1000, publishIntervalMs: 100 });
    try {
      await ledger.settle(held(0), 4, log('one staged'), true);
      expect(await eventually(() => published('one staged'), [4])).toEqual([4]);
    } finally {
      await ledger.close();
    }
  });

  it('publishes at its first flush the rows an earlier process left staged', async () => {
    // A settlement committed by a process that died before publishing it.
    const core = new SqliteLedgerCore(openSqliteFile(d.sqliteFile!), {
      enabled: TokenStatus.Enabled,
      exhausted: TokenStatus.Exhausted,
    });
    core.runBatch([{ held: held(0), finalQuota: 9, log: logRow(log('left staged')), recordLog: true }]);
    core.close();
    expect(await published('left staged')).toEqual([]);
    const ledger = new SqliteWorkerLedger(d.sqliteFile!);
    try {
      await ledger.flush();
      expect(await published('left staged')).toEqual([9]);
    } finally {
      await ledger.close();
    }
  });

  it('answers every call after a restart of a thread that died', async () => {
    await setBalance(1000);
    const errors: string[] = [];
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { onError: (m) => errors.push(m) });
    try {
      await ledger.settle(held(0), 1, log('before the crash'), true);
      // Reach the live thread through the store's own field to simulate a crash.
      const worker = (ledger as unknown as { worker: { terminate(): Promise<number> } }).worker;
      await worker.terminate();
      expect(errors).toHaveLength(1);
      await expect(ledger.settle(held(0), 2, log('after the crash'), true)).resolves.toMatchObject({
        charged: 2,
      });
      expect(await ledger.reserve(held(997))).toBeNull();
      expect(await ledger.reserve(held(1))).toBe('insufficient_user_quota');
      await ledger.release(held(997));
    } finally {
      await ledger.close();
    }
  });
});
