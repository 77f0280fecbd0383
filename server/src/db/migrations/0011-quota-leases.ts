import { type Kysely, type Migration, sql } from 'kysely';
import { columnTypes, type DialectName, tableOptions } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * `quota_leases` (PostgreSQL and MySQL; on SQLite for the Kysely store's tests, the SQLite ledger
 * thread needs none), a slice of a user's and (for a limited token) a token's
 * balance moved out of `users.quota` / `tokens.remain_quota` so one node can reserve against it in
 * memory, with no round trip on a call's path. `amount` is what the slice still holds: settlements
 * take their charge from it, a return gives it back to the balances and marks the row `returned`.
 * Like a reserve, a lease names its node and expires unless that node renews it: a restart returns
 * its own at once, any node returns another's after the expiry.
 *
 * `ledger_marks`: per node, the highest settlement-journal number of a settlement charged against a
 * lease, written in the same transaction; a restart after a kill makes again only those above it
 * (such a settlement has no reserve row whose absence would tell it committed).
 *
 * PostgreSQL's `take_lease` takes the slice from both balances and writes (or grows) the lease row
 * in one statement; it takes nothing when a balance would keep less than `p_keep`.
 */
export function quotaLeasesMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: AnyDb) {
      await tableOptions(
        dialect,
        db.schema
          .createTable('quota_leases')
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
        .createIndex('idx_quota_leases_node')
        .ifNotExists()
        .on('quota_leases')
        .columns(['node_id'])
        .execute();
      await db.schema
        .createIndex('idx_quota_leases_expires')
        .ifNotExists()
        .on('quota_leases')
        .columns(['expires_at'])
        .execute();
      await tableOptions(
        dialect,
        db.schema
          .createTable('ledger_marks')
          .ifNotExists()
          .addColumn('node_id', t.shortText, (c) => c.primaryKey())
          .addColumn('seq', t.bigint, (c) => c.notNull()),
      ).execute();
      if (dialect !== 'postgres') return;
      await takeLeaseFunction('').execute(db);
    },

    async down(db: AnyDb) {
      if (dialect === 'postgres')
        await sql`drop function if exists take_lease(text, text, bigint, bigint, bigint, boolean, bigint, bigint)`.execute(
          db,
        );
      await db.schema.dropTable('ledger_marks').ifExists().execute();
      await db.schema.dropTable('quota_leases').ifExists().execute();
    },
  };
}

/**
 * `take_lease`'s text; a refused slice deletes its row when it holds nothing and `counted` (SQL
 * appended to that condition) holds too: 0011 appends nothing, 0017 adds that it counted nothing.
 */
export function takeLeaseFunction(counted: string) {
  return sql`
    create or replace function take_lease(p_id text, p_node text, p_expires bigint,
      p_user_id bigint, p_token_id bigint, p_limited boolean, p_amount bigint, p_keep bigint)
    returns text language plpgsql as $$
    begin
      -- The lease row first, then the user, then the token: the order settlements lock them in.
      insert into quota_leases as l (id, node_id, user_id, token_id, token_limited, amount, expires_at, returned)
        values (p_id, p_node, p_user_id, p_token_id, case when p_limited then 1 else 0 end, p_amount,
          p_expires, 0)
        on conflict (id) do update set amount = l.amount + excluded.amount, expires_at = excluded.expires_at
        where l.returned = 0;
      if not found then
        return 'lease_returned';
      end if;
      update users set quota = quota - p_amount where id = p_user_id and quota >= p_amount + p_keep;
      if not found then
        update quota_leases set amount = amount - p_amount where id = p_id;
        -- A row left holding nothing has nothing outstanding either (they are part of its amount).
        delete from quota_leases where id = p_id and amount = 0 ${sql.raw(counted)};
        return 'insufficient_user_quota';
      end if;
      if p_limited then
        update tokens set remain_quota = remain_quota - p_amount
          where id = p_token_id and remain_quota >= p_amount + p_keep;
        if not found then
          update users set quota = quota + p_amount where id = p_user_id;
          update quota_leases set amount = amount - p_amount where id = p_id;
          delete from quota_leases where id = p_id and amount = 0 ${sql.raw(counted)};
          return 'insufficient_token_quota';
        end if;
      end if;
      return null;
    end
    $$`;
}
