import type { Database } from '../create-db.js';
import { insertIgnore, toNumber } from '../dialect.js';
import type { PriceRow } from '../tables.js';

export type PricesQueries = ReturnType<typeof pricesQueries>;

export function pricesQueries({ db, dialect }: Database) {
  return {
    async all(): Promise<PriceRow[]> {
      return db.selectFrom('prices').selectAll().orderBy('channel_type').orderBy('model').execute();
    },
    async count(): Promise<number> {
      const row = await db
        .selectFrom('prices')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return toNumber(row.n);
    },
    async insertMissing(rows: readonly PriceRow[]): Promise<void> {
      // Chunked so MySQL and PostgreSQL stay under their bound-parameter limits.
      for (let i = 0; i < rows.length; i += 100) {
        const chunk = rows.slice(i, i + 100).map((r) => ({ ...r }));
        await insertIgnore(dialect, db.insertInto('prices').values(chunk)).execute();
      }
    },
  };
}
