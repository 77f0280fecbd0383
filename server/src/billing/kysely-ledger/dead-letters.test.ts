import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../../db/create-db.js';
import { insertReturningId, toNumber } from '../../db/dialect.js';
import { migrateToLatest } from '../../db/migrations/index.js';
import { newTokenRow } from '../../db/queries/tokens.js';
import { newUserRow } from '../../db/queries/users.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { type ConsumeLog, Ledger } from '../ledger/ledger.js';
import { KyselyLedgerStore } from './kysely-ledger-store.js';
import { WriteBatcher } from './write-batcher.js';

// A settlement the database refuses (PostgreSQL: a NUL in text; MySQL: a value longer than its
// column) is not lost: it is charged with its text cleaned, kept in settlement_dead_letters, and an
// error line says so. The books still balance.

const START = 1_000_000;

for (const target of engineTargets().filter((t) => t.engine !== 'sqlite')) {
  describe.skipIf(target.skipReason !== undefined)(`refused settlements on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    let ledger: Ledger;
    const errors: string[] = [];

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url);
      await migrateToLatest(d.db, d.dialect);
      ledger = new Ledger(
        new KyselyLedgerStore(d, new WriteBatcher(d.db), { onError: (m) => errors.push(m), nodeId: 'dl' }),
      );
    });
    afterAll(async () => {
      await ledger?.close();
      await d?.close();
      await testDb?.drop();
    });

    it('charges a settlement whose log row the database refused, keeps it, and says so', async () => {
      const userId = await insertReturningId(
        d.dialect,
        d.db.insertInto('users').values(
          newUserRow({
            username: 'dl',
            password_hash: 'x',
            display_name: '',
            role: 1,
            quota: START,
            aff_code: 'dl',
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
            key_hash: 'dl',
            key_sealed: '',
            created_time: 0,
            remain_quota: START,
          }),
        ),
      );
      const bad = target.engine === 'postgres' ? 'gpt\u00004o' : `gpt-4o-${'x'.repeat(300)}`;
      const log = (model: string): ConsumeLog => ({
        user_id: userId,
        created_at: 1,
        type: LogType.Consume,
        content: '',
        username: 'dl',
        token_id: tokenId,
        token_name: 't',
        model_name: model,
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
      const settleOne = async (model: string, cost: number) => {
        const r = await ledger.reserve({ userId, tokenId, tokenUnlimited: false, amount: 1000 });
        if (!r.ok) throw new Error(r.reason);
        return ledger.settle(r.reservation, cost, log(model));
      };
      // Its neighbours in the same group are settled as usual.
      const results = await Promise.all([
        settleOne('gpt-4o', 300),
        settleOne(bad, 700),
        settleOne('gpt-4o', 200),
      ]);
      expect(results.map((r) => r.charged)).toEqual([300, 700, 200]);

      const letters = await d.db.selectFrom('settlement_dead_letters').selectAll().execute();
      expect(letters).toHaveLength(1);
      expect(letters[0]).toMatchObject({ charged: 1, final_quota: 700, reserved: 1000 });
      expect((JSON.parse(letters[0]!.log) as ConsumeLog).model_name).toBe(bad);
      expect(errors.some((e) => e.includes('kept in settlement_dead_letters'))).toBe(true);
      // The administrators' log says so too, without the user seeing it.
      const system = await d.db
        .selectFrom('logs')
        .select(['user_id', 'content'])
        .where('type', '=', LogType.System)
        .execute();
      expect(system).toHaveLength(1);
      expect(system[0]!.user_id).toBe(0);
      expect(system[0]!.content).toContain(`user ${userId}`);
      expect(system[0]!.content).toContain('charged with its text cleaned');

      const logs = await d.db
        .selectFrom('logs')
        .select(['quota', 'model_name'])
        .where('user_id', '=', userId)
        .execute();
      expect(logs).toHaveLength(3);
      const u = await d.db
        .selectFrom('users')
        .select(['quota', 'used_quota'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      const sum = logs.reduce((s, l) => s + toNumber(l.quota), 0);
      expect(sum).toBe(1200);
      expect(START - toNumber(u.quota)).toBe(sum);
      expect(toNumber(u.used_quota)).toBe(sum);
    });
  });
}
