import type { Database } from '../db/create-db.js';

/** Read-only counts the metrics gauges take at scrape time. */
export function metricQueries({ db }: Database) {
  return {
    async deadLetters(): Promise<number> {
      const row = await db
        .selectFrom('settlement_dead_letters')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}
