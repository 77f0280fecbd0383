import type { Kysely, Migration } from 'kysely';
import { columnTypes, type DialectName, tableOptions } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * What nodes sharing one database agree through it:
 * - `job_leases`: a scheduled job runs on the node holding its row until `expires_at` (ms);
 * - `change_versions`: a counter per topic (channels, prices, options...) every node polls when
 *   there is no Redis to carry change messages;
 * - `node_heartbeats`: the nodes seen recently and whether each has Redis, so a node can warn when
 *   several share the database without it.
 */
export function nodeCoordinationMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: AnyDb) {
      await tableOptions(
        dialect,
        db.schema
          .createTable('job_leases')
          .ifNotExists()
          .addColumn('name', t.shortText, (c) => c.primaryKey())
          .addColumn('holder', t.shortText, (c) => c.notNull())
          .addColumn('expires_at', t.bigint, (c) => c.notNull()),
      ).execute();
      await tableOptions(
        dialect,
        db.schema
          .createTable('change_versions')
          .ifNotExists()
          .addColumn('topic', t.shortText, (c) => c.primaryKey())
          .addColumn('version', t.bigint, (c) => c.notNull()),
      ).execute();
      await tableOptions(
        dialect,
        db.schema
          .createTable('node_heartbeats')
          .ifNotExists()
          .addColumn('node_id', t.shortText, (c) => c.primaryKey())
          .addColumn('seen_at', t.bigint, (c) => c.notNull())
          .addColumn('redis', t.int, (c) => c.notNull()),
      ).execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('node_heartbeats').ifExists().execute();
      await db.schema.dropTable('change_versions').ifExists().execute();
      await db.schema.dropTable('job_leases').ifExists().execute();
    },
  };
}
