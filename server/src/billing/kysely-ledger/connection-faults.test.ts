import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../../db/create-db.js';
import { insertReturningId, toNumber } from '../../db/dialect.js';
import { migrateToLatest } from '../../db/migrations/index.js';
import { newTokenRow } from '../../db/queries/tokens.js';
import { newUserRow } from '../../db/queries/users.js';
import {
  createTestDatabase,
  endOwnSessions,
  engineTargets,
  type TestDatabase,
} from '../../test/databases.js';
import { type ConsumeLog, Ledger } from '../ledger/ledger.js';
import { KyselyLedgerStore } from './kysely-ledger-store.js';
import { WriteBatcher } from './write-batcher.js';

// The database server drops the gateway's connections (a restart, a failover, an operator's
// `pg_terminate_backend` or MariaDB `KILL`) while calls reserve and settle. The process must live,
// the calls that were on a dropped connection may fail but their settlements are tried again, later
// calls succeed, and the books balance: balance drop == sum of log quota == used quota.

const servers = engineTargets().filter((t) => t.engine !== 'sqlite');
const START = 10_000_000;

for (const target of servers) {
  describe.skipIf(target.skipReason !== undefined)(`dropped connections on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    let ledger: Ledger;
    let appName = '';
    const dropped: Error[] = [];

    const killOwnConnections = () => endOwnSessions(target.engine, target.serverUrl!, testDb, appName);

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      const url = new URL(testDb.url);
      appName = `sy_fault_${Math.random().toString(36).slice(2, 10)}`;
      if (target.engine === 'postgres') url.searchParams.set('application_name', appName);
      d = createDb(url.toString(), { poolSize: 6, onConnectionError: (err) => dropped.push(err) });
      await migrateToLatest(d.db, d.dialect);
      ledger = new Ledger(new KyselyLedgerStore(d, new WriteBatcher(d.db, { reconnectMs: 20_000 })));
    });
    afterAll(async () => {
      await ledger?.close();
      await d?.close();
      await testDb?.drop();
    });

    const addAccount = async () => {
      const userId = await insertReturningId(
        d.dialect,
        d.db.insertInto('users').values(
          newUserRow({
            username: 'fault',
            password_hash: 'x',
            display_name: '',
            role: 1,
            quota: START,
            aff_code: 'fault',
            created_time: 0,
          }),
        ),
      );
      const tokenId = await insertReturningId(
        d.dialect,
        d.db.insertInto('tokens').values(
          newTokenRow({
            user_id: userId,
            name: 't',
            key_hash: 'h',
            key_sealed: '',
            created_time: 0,
            remain_quota: START,
          }),
        ),
      );
      return { userId, tokenId };
    };

    const log = (userId: number, tokenId: number): ConsumeLog => ({
      user_id: userId,
      created_at: 1_700_000_000,
      type: LogType.Consume,
      content: '',
      username: 'fault',
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

    it('lives through its idle and busy connections being ended, and the books balance', async () => {
      const { userId, tokenId } = await addAccount();
      // Fill the pool, let it go idle, then end every connection: pg's pool reports each idle
      // client's error as an 'error' event, which ends a process that does not listen.
      await Promise.all(Array.from({ length: 6 }, () => d.db.selectFrom('users').select('id').execute()));
      expect(await killOwnConnections()).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 300));

      let settled = 0;
      let failedCalls = 0;
      const call = async (i: number) => {
        const r = await ledger.reserve({ userId, tokenId, tokenUnlimited: false, amount: 100 });
        if (!r.ok) throw new Error(r.reason);
        await new Promise((res) => setTimeout(res, i % 7));
        await ledger.settle(r.reservation, 60 + (i % 50), log(userId, tokenId));
        settled++;
      };
      const calls: Promise<void>[] = [];
      for (let i = 0; i < 300; i++) {
        calls.push(
          call(i).catch(() => {
            failedCalls++;
          }),
        );
        if (i % 20 === 0) await new Promise((r) => setTimeout(r, 2));
        // Twice under load: reserves and settlement groups are on the connections being ended.
        if (i === 100 || i === 200) await killOwnConnections();
      }
      await Promise.all(calls);
      await ledger.flush();

      // Later calls succeed on new connections.
      for (let i = 0; i < 5; i++) await call(i);
      expect(settled).toBeGreaterThan(5);

      const u = await d.db
        .selectFrom('users')
        .select(['quota', 'used_quota', 'request_count'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      const logs = await d.db
        .selectFrom('logs')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('quota').as('q')])
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      // Every settlement that answered is logged once; a call that failed left nothing held.
      expect(toNumber(logs.n)).toBe(settled);
      expect(START - toNumber(u.quota)).toBe(toNumber(logs.q));
      expect(toNumber(u.used_quota)).toBe(toNumber(logs.q));
      expect(toNumber(u.request_count)).toBe(settled);
      // No reserve is left held: a reserve whose answer was lost was given back by its release.
      const held = await d.db
        .selectFrom('reserves')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('returned', '=', 0)
        .executeTakeFirstOrThrow();
      expect(toNumber(held.n)).toBe(0);
      if (target.engine === 'postgres') expect(dropped.length).toBeGreaterThan(0);
      expect(failedCalls + settled).toBe(305);
    }, 60_000);
  });
}
