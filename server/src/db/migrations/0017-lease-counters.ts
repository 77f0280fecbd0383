import { type Kysely, type Migration, sql } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * `quota_leases.used_quota` and `request_count`: what the settlements charged against a lease have
 * used and how many there were, kept on the lease row (which only its node writes) instead of on
 * the user's and token's rows (which every node's settlement groups would otherwise update). They
 * are added to the user's and token's `used_quota` and the user's `request_count` when the lease
 * is given back; until then every read of those counters adds the live leases' (as it adds their
 * `amount` to a balance). PostgreSQL's `take_lease` no longer deletes a refused lease's row that
 * holds counters.
 */
export function leaseCountersMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: AnyDb) {
      for (const column of ['used_quota', 'request_count'])
        await db.schema
          .alterTable('quota_leases')
          .addColumn(column, t.bigint, (c) => c.notNull().defaultTo(0))
          .execute();
      if (dialect !== 'postgres') return;
      await takeLeaseFunction('and used_quota = 0 and request_count = 0').execute(db);
    },
    async down(db: AnyDb) {
      if (dialect === 'postgres') await takeLeaseFunction('').execute(db);
      for (const column of ['used_quota', 'request_count'])
        await db.schema.alterTable('quota_leases').dropColumn(column).execute();
    },
  };
}

/** `take_lease` as 0011 made it, a refused lease's row deleted only when also `counted` holds. */
function takeLeaseFunction(counted: string) {
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
        -- A row left holding nothing, having counted nothing, has nothing outstanding either.
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
