import type { Kysely, Migration } from 'kysely';
import { columnTypes, type DialectName, tableOptions } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * `quota_reminders`: one row per user whose balance went below QuotaRemindThreshold and was mailed.
 * The node whose insert lands sends the mail, so two nodes never both send it; the row is deleted
 * when the balance is seen above the threshold again, which arms the next reminder.
 */
export function quotaRemindersMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: AnyDb) {
      await tableOptions(
        dialect,
        db.schema
          .createTable('quota_reminders')
          .ifNotExists()
          .addColumn('user_id', t.bigint, (c) => c.primaryKey())
          .addColumn('sent_at', t.bigint, (c) => c.notNull()),
      ).execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('quota_reminders').ifExists().execute();
    },
  };
}
