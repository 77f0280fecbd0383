import type { Kysely, Migration } from 'kysely';
import { columnTypes, type DialectName, tableOptions } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * `ledger_settled`: per node, the settlement-journal numbers of the settlements without a reserve
 * row (charged against a quota lease, or with nothing reserved) that committed, one row per
 * settlement group, written in the group's transaction. `seqs` lists them as ranges (`4-9,12`);
 * `lo` and `hi` are the lowest and highest. A group run again after its COMMIT's answer was lost,
 * and a restart's replay, skip the numbers found here; the node deletes rows below the lowest
 * number it still has open. It replaces `ledger_marks`' single highest number (0011), which a group
 * run again item by item, after later groups committed, would have made skip a settlement never
 * charged; that table is still read by a node replaying a journal an older version left.
 */
export function ledgerSettledMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: AnyDb) {
      await tableOptions(
        dialect,
        db.schema
          .createTable('ledger_settled')
          .ifNotExists()
          .addColumn('node_id', t.shortText, (c) => c.notNull())
          .addColumn('lo', t.bigint, (c) => c.notNull())
          .addColumn('hi', t.bigint, (c) => c.notNull())
          .addColumn('seqs', t.longText, (c) => c.notNull())
          .addPrimaryKeyConstraint('pk_ledger_settled', ['node_id', 'lo']),
      ).execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('ledger_settled').ifExists().execute();
    },
  };
}
