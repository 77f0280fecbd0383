import type { Kysely, Migration } from 'kysely';
import { columnTypes, type DialectName, idColumn, idType, tableOptions } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/** `passkeys`: WebAuthn credentials a user registered to sign in without a password. */
export function passkeysMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  const index = (db: AnyDb, name: string, columns: string[], unique = false) => {
    let b = db.schema.createIndex(name).on('passkeys').columns(columns);
    if (unique) b = b.unique();
    return dialect === 'mysql' ? b : b.ifNotExists();
  };
  return {
    async up(db: AnyDb) {
      await tableOptions(dialect, db.schema.createTable('passkeys').ifNotExists())
        .addColumn('id', idType(dialect), idColumn(dialect))
        .addColumn('user_id', t.bigint, (c) => c.notNull())
        .addColumn('credential_id', t.shortText, (c) => c.notNull())
        .addColumn('public_key', t.longText, (c) => c.notNull())
        .addColumn('counter', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('transports', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('alias', t.shortText, (c) => c.notNull().defaultTo(''))
        .addColumn('created_time', t.bigint, (c) => c.notNull())
        .addColumn('last_used_time', t.bigint, (c) => c.notNull().defaultTo(0))
        .execute();
      await index(db, 'passkeys_credential_idx', ['credential_id'], true).execute();
      await index(db, 'passkeys_user_idx', ['user_id']).execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('passkeys').ifExists().execute();
    },
  };
}
