import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LogType } from '@switchyard/domain';
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
import { type ConsumeLog, Ledger } from './ledger.js';
import { SettlementJournal } from './settlement-journal.js';

// A restart makes again exactly the journaled settlements that never committed: one that committed
// but whose done mark the kill prevented is recognised (SQLite: the journal mark committed with
// it; PostgreSQL/MySQL: its reserve's row is gone) and charges once.

const START = 1_000_000;

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`journal replay on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    let dir = '';
    const ledgers: Ledger[] = [];

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url);
      await migrateToLatest(d.db, d.dialect);
      dir = mkdtempSync(path.join(tmpdir(), 'journal-replay-'));
    });
    afterAll(async () => {
      for (const l of ledgers) await l.close().catch(() => {});
      await d?.close();
      await testDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const ledger = () => {
      const store =
        d.sqliteFile !== undefined
          ? new SqliteWorkerLedger(d.sqliteFile, { writesElsewhere: d.sqliteWrites })
          : new KyselyLedgerStore(d, new WriteBatcher(d.db), { nodeId: 'replay' });
      const l = new Ledger(store, new SettlementJournal(dir));
      ledgers.push(l);
      return l;
    };

    it('makes the settlements left open, and no committed one twice', async () => {
      const userId = await insertReturningId(
        d.dialect,
        d.db.insertInto('users').values(
          newUserRow({
            username: 'replay',
            password_hash: 'x',
            display_name: '',
            role: 1,
            quota: START,
            aff_code: 'replay',
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
            key_hash: 'replay',
            key_sealed: '',
            created_time: 0,
            remain_quota: START,
          }),
        ),
      );
      const log: ConsumeLog = {
        user_id: userId,
        created_at: 1,
        type: LogType.Consume,
        content: '',
        username: 'replay',
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
      };

      const first = ledger();
      expect(await first.replay()).toBe(0);
      await first.start();
      for (const cost of [100, 200, 300]) {
        const r = await first.reserve({ userId, tokenId, tokenUnlimited: false, amount: 500 });
        if (!r.ok) throw new Error(r.reason);
        await first.settle(r.reservation, cost, log);
      }
      await first.flush();
      // The kill came before the done marks were written: the file holds the three, none done.
      const file = path.join(dir, 'settlements.journal');
      await new Promise((r) => setTimeout(r, 10));
      const lines = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{"n"'));
      expect(lines).toHaveLength(3);
      // And one more settlement that never reached the database at all.
      const lost = JSON.parse(lines[2]!) as Record<string, unknown>;
      lost.n = 1000;
      lost.finalQuota = 400;
      lost.ref = undefined;
      lost.amount = 0;
      writeFileSync(file, `${lines.join('\n')}\n${JSON.stringify(lost)}\n`);
      ledgers.pop();
      await first.close();

      const second = ledger();
      // SQLite skips the committed ones by the mark; the servers run them again and find them made.
      expect(await second.replay()).toBe(target.engine === 'sqlite' ? 1 : 4);
      await second.start();
      const u = await d.db
        .selectFrom('users')
        .select(['quota', 'used_quota'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      await second.flush();
      const logs = await d.db.selectFrom('logs').select('quota').where('user_id', '=', userId).execute();
      expect(logs.map((l) => toNumber(l.quota)).sort((a, b) => a - b)).toEqual([100, 200, 300, 400]);
      expect(START - toNumber(u.quota)).toBe(1000);
      expect(toNumber(u.used_quota)).toBe(1000);
      // The fresh journal numbers after the old one.
      expect(readFileSync(file, 'utf8')).toBe('');
    });
  });
}
