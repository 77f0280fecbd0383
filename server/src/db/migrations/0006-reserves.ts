import { type Kysely, type Migration, sql } from 'kysely';
import { columnTypes, type DialectName, tableOptions } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * `reserves`: one row per quota reserve taken from the balances in the database (PostgreSQL and
 * MySQL; SQLite holds its reserves in the process), written in the reserve's own transaction and
 * deleted in its settlement's. It names the node that took it and when it expires unless that node
 * renews it, so a node that died has its reserves returned by any other after the expiry, and a
 * node that restarts returns its own at once. `returned` marks a reserve given back that way: its
 * settlement, should the node still make one, then charges the whole cost as far as the balances go.
 *
 * PostgreSQL's `hold_quota` takes the balances and writes the row in one statement, one round trip.
 */
export function reservesMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: AnyDb) {
      await tableOptions(
        dialect,
        db.schema
          .createTable('reserves')
          .ifNotExists()
          .addColumn('id', sql.raw(dialect === 'sqlite' ? 'text' : 'varchar(64)'), (c) => c.primaryKey())
          .addColumn('node_id', t.shortText, (c) => c.notNull())
          .addColumn('user_id', t.bigint, (c) => c.notNull())
          .addColumn('token_id', t.bigint, (c) => c.notNull())
          .addColumn('token_limited', t.int, (c) => c.notNull())
          .addColumn('amount', t.bigint, (c) => c.notNull())
          .addColumn('expires_at', t.bigint, (c) => c.notNull())
          .addColumn('returned', t.int, (c) => c.notNull().defaultTo(0)),
      ).execute();
      await db.schema
        .createIndex('idx_reserves_node')
        .ifNotExists()
        .on('reserves')
        .columns(['node_id'])
        .execute();
      await db.schema
        .createIndex('idx_reserves_expires')
        .ifNotExists()
        .on('reserves')
        .columns(['expires_at'])
        .execute();
      if (dialect !== 'postgres') return;
      await sql`
        create or replace function hold_quota(p_id text, p_node text, p_expires bigint,
          p_user_id bigint, p_token_id bigint, p_limited boolean, p_amount bigint)
        returns text language plpgsql as $$
        begin
          update users set quota = quota - p_amount where id = p_user_id and quota >= p_amount;
          if not found then
            return 'insufficient_user_quota';
          end if;
          if p_limited then
            update tokens set remain_quota = remain_quota - p_amount
              where id = p_token_id and remain_quota >= p_amount;
            if not found then
              update users set quota = quota + p_amount where id = p_user_id;
              return 'insufficient_token_quota';
            end if;
          end if;
          insert into reserves (id, node_id, user_id, token_id, token_limited, amount, expires_at, returned)
            values (p_id, p_node, p_user_id, p_token_id, case when p_limited then 1 else 0 end, p_amount,
              p_expires, 0);
          return null;
        end
        $$`.execute(db);
    },

    async down(db: AnyDb) {
      if (dialect === 'postgres')
        await sql`drop function if exists hold_quota(text, text, bigint, bigint, bigint, boolean, bigint)`.execute(
          db,
        );
      await db.schema.dropTable('reserves').ifExists().execute();
    },
  };
}
