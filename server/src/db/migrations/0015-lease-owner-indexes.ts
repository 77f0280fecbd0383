import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * A balance a person sees is the user's (or token's) column plus what live quota leases hold of it,
 * read on every user and token lookup; an administrator's deduction or a token's new limit gives a
 * user's or token's leases back first. Both find the leases by owner. The table came with 0011.
 */
export function leaseOwnerIndexesMigration(dialect: DialectName): Migration {
  const INDEXES = [
    ['idx_quota_leases_user', ['user_id', 'returned']],
    ['idx_quota_leases_token', ['token_id', 'returned']],
  ] as const;
  return {
    async up(db: AnyDb) {
      for (const [name, columns] of INDEXES) {
        const b = db.schema
          .createIndex(name)
          .on('quota_leases')
          .columns([...columns]);
        await (dialect === 'mysql' ? b : b.ifNotExists()).execute();
      }
    },
    async down(db: AnyDb) {
      for (const [name] of INDEXES) {
        const b = db.schema.dropIndex(name);
        await (dialect === 'mysql' ? b.on('quota_leases') : b.ifExists()).execute();
      }
    },
  };
}
