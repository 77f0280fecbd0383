import type { Kysely, Migration } from 'kysely';
import { columnTypes, type DialectName, tableOptions } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * `telegram_updates`: one row per Telegram update a node has taken on. The node whose insert lands
 * answers it, so an update delivered twice (a webhook retried, a poller handing over to another
 * node) is answered once. Rows older than Telegram's own 24-hour redelivery window are deleted.
 */
export function telegramUpdatesMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: AnyDb) {
      await tableOptions(
        dialect,
        db.schema
          .createTable('telegram_updates')
          .ifNotExists()
          .addColumn('update_id', t.bigint, (c) => c.primaryKey())
          .addColumn('node_id', t.shortText, (c) => c.notNull())
          .addColumn('taken_at', t.bigint, (c) => c.notNull()),
      ).execute();
      const index = db.schema
        .createIndex('telegram_updates_taken_idx')
        .on('telegram_updates')
        .column('taken_at');
      await (dialect === 'mysql' ? index : index.ifNotExists()).execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('telegram_updates').ifExists().execute();
    },
  };
}
