import { TokenStatus } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../db/create-db.js';
import { migrateToLatest } from '../db/migrations/index.js';
import { openSqliteFile } from '../db/sqlite-file.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../test/databases.js';
import { logRow } from './consume-log-row.js';
import { SqliteLedgerCore } from './sqlite-ledger-core.js';
import { SqliteWorkerLedger } from './sqlite-worker-ledger.js';

const sqlite = engineTargets().find((t) => t.engine === 'sqlite')!;

describe('the SQLite ledger thread', () => {
  let testDb: TestDatabase;
  let d: Database;
  let userId = 0;

  beforeAll(async () => {
    testDb = await createTestDatabase(sqlite);
    d = createDb(testDb.url);
    await migrateToLatest(d.db, d.dialect);
    const row = await d.db
      .insertInto('users')
      .values({
        username: 'ledger',
        password_hash: 'x',
        display_name: '',
        role: 1,
        status: 1,
        email: '',
        avatar_url: '',
        github_id: '',
        wechat_id: '',
        lark_id: '',
        oidc_id: '',
        telegram_id: 0,
        access_token_hash: null,
        quota: 1000,
        used_quota: 0,
        request_count: 0,
        group: 'default',
        aff_code: 'affledger',
        inviter_id: 0,
        last_login_time: 0,
        last_login_ip: '',
        created_time: 0,
        deleted_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    userId = Number(row.id);
  });
  afterAll(async () => {
    await d?.close();
    await testDb?.drop();
  });

  const held = (amount: number) => ({ userId, tokenId: 0, tokenUnlimited: true, amount });
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

  it('undoes a failing job alone: its neighbours in the batch still commit', async () => {
    const core = new SqliteLedgerCore(openSqliteFile(d.sqliteFile!), {
      enabled: TokenStatus.Enabled,
      exhausted: TokenStatus.Exhausted,
    });
    const before = await balance();
    expect(core.reserve(held(30))).toBeNull();
    const results = core.runBatch([
      { kind: 'settle', held: held(10), finalQuota: 10, log: logRow(log('first')), recordLog: true },
      // NOT NULL user_id: the insert fails after the balance moved; the savepoint undoes both.
      {
        kind: 'settle',
        held: held(10),
        finalQuota: 10,
        log: logRow({ ...log('bad'), user_id: null }),
        recordLog: true,
      },
      { kind: 'settle', held: held(10), finalQuota: 4, log: logRow(log('third')), recordLog: true },
    ]);
    expect(core.publishLogs()).toBe(2);
    core.close();
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(results[2]).toEqual({ ok: true, value: { charged: 4, refunded: 6, shortfall: 0 } });
    const logs = await d.db.selectFrom('logs').select(['content', 'quota']).orderBy('id').execute();
    expect(logs.map((l) => [l.content, Number(l.quota)])).toEqual([
      ['first', 10],
      ['third', 4],
    ]);
    // 30 reserved; the first settle keeps 10, the third refunds 6, the failed one changed nothing.
    expect(await balance()).toBe(before - 30 + 6);
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

  it('asks a refused reserve again once the queued settlements of its user have landed', async () => {
    // A long interval keeps settlements queued until something commits them.
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { intervalMs: 60_000 });
    try {
      const all = await balance();
      expect(await ledger.reserve(held(all))).toBeNull();
      const settled = ledger.settle(held(all), 10, log('refund'), true);
      // Posted with the settlement, after it: the money it gives back is there for this reserve.
      expect(await ledger.reserve(held(all - 10))).toBeNull();
      await expect(settled).resolves.toEqual({ charged: 10, refunded: all - 10, shortfall: 0 });
      expect(await balance()).toBe(0);
      const back = ledger.settle(held(all - 10), 0, log('refund'), true);
      await ledger.flush();
      await back;
      expect(await balance()).toBe(all - 10);
    } finally {
      await ledger.close();
    }
  });

  it('keeps the queue waiting when a refused reserve has no money coming back', async () => {
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { intervalMs: 60_000 });
    const waiting = () =>
      d.db
        .selectFrom('logs')
        .select('id')
        .where('content', '=', 'waiting')
        .execute()
        .then((rows) => rows.length);
    try {
      const settled = ledger.settle(held(0), 0, log('waiting'), true);
      const stranger = { userId: userId + 1000, tokenId: -1, tokenUnlimited: true, amount: 5 };
      expect(await ledger.reserve(stranger)).toBe('insufficient_user_quota');
      expect(await waiting()).toBe(0);
      await ledger.flush();
      await settled;
      expect(await waiting()).toBe(1);
    } finally {
      await ledger.close();
    }
  });

  it('commits on close what still waits for its interval on either side of the thread', async () => {
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { intervalMs: 60_000 });
    const before = await balance();
    expect(await ledger.reserve(held(20))).toBeNull();
    // Reaches the thread with the reserve below and waits in its queue.
    const queued = ledger.settle(held(20), 5, log('queued at close'), true);
    expect(await ledger.reserve(held(20))).toBeNull();
    // Still in the main thread's outbox.
    const outbox = ledger.settle(held(20), 7, log('outbox at close'), true);
    await ledger.close();
    await expect(queued).resolves.toEqual({ charged: 5, refunded: 15, shortfall: 0 });
    await expect(outbox).resolves.toEqual({ charged: 7, refunded: 13, shortfall: 0 });
    const rows = await d.db
      .selectFrom('logs')
      .select(['content', 'quota'])
      .where('content', 'like', '% at close')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.content, Number(r.quota)])).toEqual([
      ['queued at close', 5],
      ['outbox at close', 7],
    ]);
    expect(await balance()).toBe(before - 12);
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

  describe('a reserve while no other request holds quota', () => {
    const workerOf = (ledger: SqliteWorkerLedger) => (ledger as unknown as { worker: unknown }).worker;

    it('is taken on the calling thread, before the call returns', async () => {
      const ledger = new SqliteWorkerLedger(d.sqliteFile!);
      try {
        const before = await balance();
        const answer = ledger.reserve(held(7));
        // Committed already: another connection sees it without waiting for the promise.
        expect(await balance()).toBe(before - 7);
        expect(await answer).toBeNull();
        expect(workerOf(ledger)).toBeUndefined();
        await ledger.settle(held(7), 7, log('inline'), true);
        await ledger.flush();
        expect(await balance()).toBe(before - 7);
      } finally {
        await ledger.close();
      }
    });

    it('goes to the thread while another request holds quota', async () => {
      const ledger = new SqliteWorkerLedger(d.sqliteFile!);
      try {
        const before = await balance();
        expect(await ledger.reserve(held(3))).toBeNull();
        const second = ledger.reserve(held(4));
        expect(await balance()).toBe(before - 3);
        expect(await second).toBeNull();
        expect(workerOf(ledger)).toBeDefined();
        expect(await balance()).toBe(before - 7);
        await ledger.release(held(3));
        await ledger.release(held(4));
        await ledger.flush();
        // Both requests are over: the next reserve is quiet again.
        const third = ledger.reserve(held(5));
        expect(await balance()).toBe(before - 5);
        expect(await third).toBeNull();
        await ledger.release(held(5));
        await ledger.flush();
        expect(await balance()).toBe(before);
      } finally {
        await ledger.close();
      }
    });

    it('does not wait for a write lock held elsewhere: the thread answers once it is free', async () => {
      const ledger = new SqliteWorkerLedger(d.sqliteFile!);
      const other = openSqliteFile(d.sqliteFile!);
      try {
        const before = await balance();
        other.exec('BEGIN IMMEDIATE');
        let answered = false;
        const answer = ledger.reserve(held(2)).then((refusal) => {
          answered = true;
          return refusal;
        });
        await new Promise((r) => setTimeout(r, 50));
        expect(answered).toBe(false);
        other.exec('COMMIT');
        expect(await answer).toBeNull();
        expect(await balance()).toBe(before - 2);
        await ledger.release(held(2));
        await ledger.flush();
      } finally {
        if (other.inTransaction) other.exec('ROLLBACK');
        other.close();
        await ledger.close();
      }
    });
  });

  it('keeps a lone settlement for the quiet interval, and sends it along with the next reserve message', async () => {
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, { quietIntervalMs: 60_000 });
    try {
      expect(await ledger.reserve(held(5))).toBeNull();
      // A second request in progress: its reserve goes to the worker.
      expect(await ledger.reserve(held(6))).toBeNull();
      let done = false;
      const settled = ledger.settle(held(5), 5, log('lone'), true).then((amounts) => {
        done = true;
        return amounts;
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(done).toBe(false);
      expect(await ledger.reserve(held(1))).toBeNull();
      await expect(settled).resolves.toEqual({ charged: 5, refunded: 0, shortfall: 0 });
      const released = [ledger.release(held(6)), ledger.release(held(1))];
      await ledger.flush();
      await Promise.all(released);
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
    core.runBatch([
      { kind: 'settle', held: held(0), finalQuota: 9, log: logRow(log('left staged')), recordLog: true },
    ]);
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
    const errors: string[] = [];
    const ledger = new SqliteWorkerLedger(d.sqliteFile!, {
      onError: (m) => errors.push(m),
      inlineWhenQuiet: false,
    });
    try {
      expect(await ledger.reserve(held(1))).toBeNull();
      // Reach the live thread through the store's own field to simulate a crash.
      const worker = (ledger as unknown as { worker: { terminate(): Promise<number> } }).worker;
      await worker.terminate();
      expect(errors).toHaveLength(1);
      expect(await ledger.reserve(held(1))).toBeNull();
      await expect(ledger.reserve(held(1_000_000))).resolves.toBe('insufficient_user_quota');
    } finally {
      await ledger.close();
    }
  });
});
