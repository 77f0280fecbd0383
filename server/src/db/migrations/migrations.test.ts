import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { createDb } from '../create-db.js';
import { migrateToLatest } from './index.js';

const script = fileURLToPath(new URL('../../test/run-migrations.ts', import.meta.url));

/** Each call is a separate process, like two nodes of a deployment starting at the same moment. */
async function migrateInChild(url: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, url]);
  return JSON.parse(stdout) as string[];
}

const EXPECTED_TABLES = [
  'audit_logs',
  'auth_codes',
  'change_versions',
  'channels',
  'job_leases',
  'ledger_marks',
  'ledger_settled',
  'logs',
  'midjourneys',
  'model_owners',
  'node_heartbeats',
  'options',
  'orders',
  'passkeys',
  'payments',
  'prices',
  'quota_leases',
  'quota_reminders',
  'redemptions',
  'reserves',
  'sessions',
  'settlement_dead_letters',
  'statistics',
  'tasks',
  'telegram_menus',
  'telegram_updates',
  'tokens',
  'user_groups',
  'users',
];

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`migrations on ${target.engine}`, () => {
    const made: TestDatabase[] = [];
    afterAll(async () => {
      for (const t of made) await t.drop();
    });

    it('creates every table once, even when two nodes start together, and is idempotent', async () => {
      const testDb = await createTestDatabase(target);
      made.push(testDb);
      const [ranA, ranB] = await Promise.all([migrateInChild(testDb.url), migrateInChild(testDb.url)]);
      const a = createDb(testDb.url);
      try {
        // Exactly one node applied the migration; the other found it done.
        expect([...ranA, ...ranB].sort()).toEqual([
          '0001_initial',
          '0002_reserve_function',
          '0003_logs_staging',
          '0004_auth_codes',
          '0005_passkeys',
          '0006_reserves',
          '0007_settlement_dead_letters',
          '0008_journal_marks',
          '0009_node_coordination',
          '0010_quota_reminders',
          '0011_quota_leases',
          '0012_payment_order_status',
          '0013_task_status_index',
          '0014_telegram_updates',
          '0015_lease_owner_indexes',
          '0016_ledger_settled',
          '0017_lease_counters',
          '0018_lean_log_indexes',
        ]);
        expect(await migrateToLatest(a.db, a.dialect)).toEqual([]);
        // PostgreSQL's introspection lists every schema on the server, other test files' too.
        const own =
          target.engine === 'postgres'
            ? (await sql<{ s: string }>`select current_schema() as s`.execute(a.db)).rows[0]?.s
            : undefined;
        const tables = (await a.db.introspection.getTables())
          .filter((t) => own === undefined || t.schema === own)
          .map((t) => t.name)
          .filter((n) => !n.startsWith('kysely_'));
        expect(tables.sort()).toEqual(
          target.engine === 'sqlite'
            ? [...EXPECTED_TABLES, 'journal_marks', 'logs_staging'].sort()
            : EXPECTED_TABLES,
        );
        // Reserved words as column names work through the query builder on every engine.
        await a.db
          .insertInto('user_groups')
          .values({ symbol: 'g1', name: 'G', ratio: 1.5, api_rate: 60, public: 1, enable: 1 })
          .execute();
        const row = await a.db
          .selectFrom('user_groups')
          .select(['symbol', 'ratio'])
          .executeTakeFirstOrThrow();
        expect(row).toEqual({ symbol: 'g1', ratio: 1.5 });
        const count = await sql<{ n: number }>`select count(*) as n from user_groups`.execute(a.db);
        expect(Number(count.rows[0]?.n)).toBe(1);
      } finally {
        await a.close();
      }
    });

    it.skipIf(target.engine !== 'sqlite')(
      'gives logs_staging the columns, types, defaults and NOT NULLs of logs, without the id',
      async () => {
        const testDb = await createTestDatabase(target);
        made.push(testDb);
        const a = createDb(testDb.url);
        try {
          await migrateToLatest(a.db, a.dialect);
          const columns = async (table: string) =>
            (
              await sql<{ name: string; type: string; notnull: number; dflt_value: string | null }>`
                select name, type, "notnull", dflt_value from pragma_table_info(${table}) order by cid`.execute(
                a.db,
              )
            ).rows;
          const logs = await columns('logs');
          expect(logs[0]?.name).toBe('id');
          expect(await columns('logs_staging')).toEqual(logs.slice(1));
        } finally {
          await a.close();
        }
      },
    );
  });
  if (target.skipReason) console.log(target.skipReason);
}
