import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * PostgreSQL only: `reserve_quota(user, token, amount)` holds quota from a user and a limited token
 * in one statement, so a reserve costs one round trip instead of BEGIN, two UPDATEs and COMMIT
 * (kysely-ledger-store.ts). It returns null, 'insufficient_user_quota' or 'insufficient_token_quota'.
 *
 * A single statement of data-modifying CTEs cannot undo the user's UPDATE when the token's fails
 * after a concurrent commit (all CTEs share one snapshot and cannot update a row twice), so the
 * steps are written out here. The user goes first, as settlement locks them, so the two never
 * deadlock. Each UPDATE is conditional: in READ COMMITTED it waits for the row lock and re-checks
 * the balance on the newest version, so no interleaving takes a balance below zero. The whole call
 * is one transaction: when the token refuses, the user's deduction is given back before anyone
 * else can see it.
 */
export function reserveFunctionMigration(dialect: DialectName): Migration {
  return {
    async up(db: AnyDb) {
      if (dialect !== 'postgres') return;
      await sql`
        create or replace function reserve_quota(p_user_id bigint, p_token_id bigint, p_amount bigint)
        returns text language plpgsql as $$
        begin
          update users set quota = quota - p_amount where id = p_user_id and quota >= p_amount;
          if not found then
            return 'insufficient_user_quota';
          end if;
          update tokens set remain_quota = remain_quota - p_amount
            where id = p_token_id and remain_quota >= p_amount;
          if not found then
            update users set quota = quota + p_amount where id = p_user_id;
            return 'insufficient_token_quota';
          end if;
          return null;
        end
        $$`.execute(db);
    },

    async down(db: AnyDb) {
      if (dialect !== 'postgres') return;
      await sql`drop function if exists reserve_quota(bigint, bigint, bigint)`.execute(db);
    },
  };
}
