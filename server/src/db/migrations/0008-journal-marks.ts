import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * SQLite only: `journal_marks`, the highest settlement-journal number the ledger thread has
 * committed, written in the same transaction as the settlements. A restart after a kill makes again
 * only the journaled settlements above it: on SQLite a reserve leaves no row that could tell.
 */
export function journalMarksMigration(dialect: DialectName): Migration {
  return {
    async up(db: AnyDb) {
      if (dialect !== 'sqlite') return;
      await db.schema
        .createTable('journal_marks')
        .ifNotExists()
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .execute();
    },
    async down(db: AnyDb) {
      if (dialect !== 'sqlite') return;
      await db.schema.dropTable('journal_marks').ifExists().execute();
    },
  };
}
