import type { Kysely, Migration } from 'kysely';
import { columnTypes, type DialectName, tableOptions } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * `auth_codes`: one-time values every node must see without Redis (email verification codes,
 * password reset tokens, OAuth states with their PKCE verifiers). Each row is used once and
 * expires; a process-local map would lose them on restart and hide them from other nodes.
 */
export function authCodesMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: AnyDb) {
      await tableOptions(dialect, db.schema.createTable('auth_codes').ifNotExists())
        .addColumn('key', t.shortText, (c) => c.primaryKey())
        .addColumn('value', t.longText, (c) => c.notNull())
        .addColumn('expires_at', t.bigint, (c) => c.notNull())
        .execute();
      const index = db.schema.createIndex('auth_codes_expires_idx').on('auth_codes').column('expires_at');
      await (dialect === 'mysql' ? index : index.ifNotExists()).execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('auth_codes').ifExists().execute();
    },
  };
}
