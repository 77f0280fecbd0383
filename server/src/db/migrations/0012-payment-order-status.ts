import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * Online top-up: a user's orders by status (the pending-order cap and the closing of their stale
 * orders at each new order) and the order log's status filter. The tables came with 0001.
 */
export function paymentOrderStatusMigration(dialect: DialectName): Migration {
  const index = (db: AnyDb, name: string, columns: string[]) => {
    const b = db.schema.createIndex(name).on('orders').columns(columns);
    return dialect === 'mysql' ? b : b.ifNotExists();
  };
  return {
    async up(db: AnyDb) {
      await index(db, 'orders_user_status_idx', ['user_id', 'status', 'created_at']).execute();
      await index(db, 'orders_status_idx', ['status', 'created_at']).execute();
    },
    async down(db: AnyDb) {
      for (const name of ['orders_user_status_idx', 'orders_status_idx']) {
        const b = db.schema.dropIndex(name);
        await (dialect === 'mysql' ? b.on('orders') : b.ifExists()).execute();
      }
    },
  };
}
