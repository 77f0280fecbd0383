import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

/**
 * SQLite only: `logs_staging`, where the ledger thread writes consume log rows in the settling
 * transaction, to be moved into `logs` in bulk (sqlite-ledger-core.ts). A row of `logs` costs nine
 * B-tree inserts (the table and eight indexes), most on leaf pages scattered by user, token and
 * channel, and each of those pages is written to the WAL again at every group commit; a table
 * without indexes takes one append. Its columns are read from `logs` as it stands when this runs
 * (types, NOT NULLs and defaults, without `id`), so a row it accepts is one `logs` accepts and the
 * move never fails on a row's content. A later change to the columns of `logs` must change this
 * table too.
 */
export function logsStagingMigration(dialect: DialectName): Migration {
  return {
    async up(db: AnyDb) {
      if (dialect !== 'sqlite') return;
      const { rows } = await sql<ColumnInfo>`
        select name, type, "notnull", dflt_value, pk from pragma_table_info('logs') order by cid`.execute(db);
      const columns = rows
        .filter((c) => c.pk === 0)
        .map((c) => {
          const notNull = c.notnull ? ' not null' : '';
          const fallback = c.dflt_value === null ? '' : ` default ${c.dflt_value}`;
          return `"${c.name}" ${c.type}${notNull}${fallback}`;
        });
      await sql.raw(`create table if not exists "logs_staging" (${columns.join(', ')})`).execute(db);
    },
  };
}
