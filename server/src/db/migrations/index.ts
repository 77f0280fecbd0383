import { type Kysely, type Migration, type MigrationResultSet, Migrator, sql } from 'kysely';
import { type DialectName, mysqlVersionProblem } from '../dialect.js';
import type { Tables } from '../tables.js';
import { initialMigration } from './0001-initial.js';
import { reserveFunctionMigration } from './0002-reserve-function.js';
import { logsStagingMigration } from './0003-logs-staging.js';
import { authCodesMigration } from './0004-auth-codes.js';
import { passkeysMigration } from './0005-passkeys.js';
import { reservesMigration } from './0006-reserves.js';
import { settlementDeadLettersMigration } from './0007-settlement-dead-letters.js';
import { journalMarksMigration } from './0008-journal-marks.js';
import { nodeCoordinationMigration } from './0009-node-coordination.js';
import { quotaRemindersMigration } from './0010-quota-reminders.js';
import { quotaLeasesMigration } from './0011-quota-leases.js';
import { paymentOrderStatusMigration } from './0012-payment-order-status.js';
import { taskStatusIndexMigration } from './0013-task-status-index.js';
import { telegramUpdatesMigration } from './0014-telegram-updates.js';
import { leaseOwnerIndexesMigration } from './0015-lease-owner-indexes.js';
import { ledgerSettledMigration } from './0016-ledger-settled.js';
import { leaseCountersMigration } from './0017-lease-counters.js';
import { leanLogIndexesMigration } from './0018-lean-log-indexes.js';

/** The static, ordered list of migrations. Names sort in the order they run. */
export function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '0001_initial': initialMigration(dialect),
    '0002_reserve_function': reserveFunctionMigration(dialect),
    '0003_logs_staging': logsStagingMigration(dialect),
    '0004_auth_codes': authCodesMigration(dialect),
    '0005_passkeys': passkeysMigration(dialect),
    '0006_reserves': reservesMigration(dialect),
    '0007_settlement_dead_letters': settlementDeadLettersMigration(dialect),
    '0008_journal_marks': journalMarksMigration(dialect),
    '0009_node_coordination': nodeCoordinationMigration(dialect),
    '0010_quota_reminders': quotaRemindersMigration(dialect),
    '0011_quota_leases': quotaLeasesMigration(dialect),
    '0012_payment_order_status': paymentOrderStatusMigration(dialect),
    '0013_task_status_index': taskStatusIndexMigration(dialect),
    '0014_telegram_updates': telegramUpdatesMigration(dialect),
    '0015_lease_owner_indexes': leaseOwnerIndexesMigration(dialect),
    '0016_ledger_settled': ledgerSettledMigration(dialect),
    '0017_lease_counters': leaseCountersMigration(dialect),
    '0018_lean_log_indexes': leanLogIndexesMigration(dialect),
  };
}

/**
 * Brings the schema up to date. Kysely's migrator takes an engine lock (advisory lock on
 * PostgreSQL, GET_LOCK on MySQL) so nodes starting together run each migration once. It takes no
 * lock on SQLite, so there the whole run happens inside BEGIN IMMEDIATE: a second process waits
 * on the file's write lock (busy timeout), then finds the ledger up to date.
 */
export async function migrateToLatest(db: Kysely<Tables>, dialect: DialectName): Promise<string[]> {
  if (dialect === 'mysql') {
    const version = (await sql<{ v: string }>`select version() as v`.execute(db)).rows[0]?.v ?? '';
    const problem = mysqlVersionProblem(version);
    if (problem) throw new Error(problem);
  }
  if (dialect !== 'sqlite') {
    // Kysely looks for its ledger tables in every schema it can see; pin them to the current one so
    // databases sharing a server (schemas per tenant or per test) never see each other's ledger.
    const schema =
      dialect === 'postgres'
        ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
        : undefined;
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => migrations(dialect) },
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
    // Kysely's migrator lists the tables of every schema on the server; a schema another database
    // user drops meanwhile fails that listing (invalid_schema_name), and the next one succeeds.
    for (let attempt = 1; ; attempt++) {
      try {
        return names(await migrator.migrateToLatest());
      } catch (err) {
        if (attempt >= 5 || (err as { code?: unknown })?.code !== '3F000') throw err;
        await new Promise((r) => setTimeout(r, 20 * attempt));
      }
    }
  }
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const ran = names(
        await new Migrator({
          db: conn,
          provider: { getMigrations: async () => migrations(dialect) },
        }).migrateToLatest(),
      );
      await sql`commit`.execute(conn);
      return ran;
    } catch (err) {
      await sql`rollback`.execute(conn);
      throw err;
    }
  });
}

function names(result: MigrationResultSet): string[] {
  if (result.error) throw result.error instanceof Error ? result.error : new Error(String(result.error));
  return (result.results ?? []).map((r) => r.migrationName);
}
