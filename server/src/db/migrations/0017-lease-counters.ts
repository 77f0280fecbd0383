import type { Kysely, Migration } from 'kysely';
import { columnTypes, type DialectName } from '../dialect.js';
import { takeLeaseFunction } from './0011-quota-leases.js';

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
