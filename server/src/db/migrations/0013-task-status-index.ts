import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not today's types.
type AnyDb = Kysely<any>;

/**
 * The task poller reads the unfinished tasks of both task tables by status, in id order, every few
 * seconds: without these indexes each read scans every task ever made. The tables came with 0001.
 */
export function taskStatusIndexMigration(dialect: DialectName): Migration {
  const index = (db: AnyDb, name: string, table: string) => {
    const b = db.schema.createIndex(name).on(table).columns(['status', 'id']);
    return dialect === 'mysql' ? b : b.ifNotExists();
  };
  const INDEXES = [
    ['midjourneys_status_idx', 'midjourneys'],
    ['tasks_status_idx', 'tasks'],
  ] as const;
  return {
    async up(db: AnyDb) {
      for (const [name, table] of INDEXES) await index(db, name, table).execute();
    },
    async down(db: AnyDb) {
      for (const [name, table] of INDEXES) {
        const b = db.schema.dropIndex(name);
        await (dialect === 'mysql' ? b.on(table) : b.ifExists()).execute();
      }
    },
  };
}
