import type { Kysely, Migration } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * SQLite only: `logs_staging`, where the ledger thread writes consume log rows in the settling
 * transaction, to be moved into `logs` in bulk (sqlite-ledger-core.ts). A row of `logs` costs nine
 * B-tree inserts (the table and eight indexes), most on leaf pages scattered by user, token and
 * channel, and each of those pages is written to the WAL again at every group commit; a table
 * without indexes takes one append. Its columns and constraints are those of `logs` without `id`,
 * so a row it accepts is one `logs` accepts: the move never fails on a row's content. A later
 * change to the columns of `logs` must change this table too.
 */
export function logsStagingMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: AnyDb) {
      if (dialect !== 'sqlite') return;
      await db.schema
        .createTable('logs_staging')
        .ifNotExists()
        .addColumn('user_id', t.bigint, (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('type', t.int, (c) => c.notNull())
        .addColumn('content', t.longText, (c) => c.notNull())
        .addColumn('username', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('token_id', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('token_name', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('model_name', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('quota', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('prompt_tokens', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('completion_tokens', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('channel_id', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('request_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('first_response_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('is_stream', t.int, (c) => c.notNull().defaultTo(0))
        .addColumn('source_ip', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('group', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('metadata', t.longText, (c) => c.notNull())
        .execute();
    },
  };
}
