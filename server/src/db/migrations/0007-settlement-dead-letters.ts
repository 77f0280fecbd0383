import type { Kysely, Migration } from 'kysely';
import { columnTypes, type DialectName, idColumn, idType, tableOptions } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * `settlement_dead_letters`: a settlement the database refused (its log row's text, a value out of
 * a column's range) is tried again with its text cleaned, and kept here either way with the error,
 * the whole log row as JSON and whether its quota was charged, so no refused settlement is lost
 * without a trace an administrator can read.
 */
export function settlementDeadLettersMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: AnyDb) {
      await tableOptions(
        dialect,
        db.schema
          .createTable('settlement_dead_letters')
          .ifNotExists()
          .addColumn('id', idType(dialect), idColumn(dialect))
          .addColumn('created_at', t.bigint, (c) => c.notNull())
          .addColumn('user_id', t.bigint, (c) => c.notNull())
          .addColumn('token_id', t.bigint, (c) => c.notNull())
          .addColumn('channel_id', t.bigint, (c) => c.notNull())
          .addColumn('reserved', t.bigint, (c) => c.notNull())
          .addColumn('final_quota', t.bigint, (c) => c.notNull())
          .addColumn('charged', t.int, (c) => c.notNull())
          .addColumn('error', t.longText, (c) => c.notNull())
          .addColumn('log', t.longText, (c) => c.notNull()),
      ).execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('settlement_dead_letters').ifExists().execute();
    },
  };
}
