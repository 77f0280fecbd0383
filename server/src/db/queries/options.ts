import type { Database } from '../create-db.js';
import { upsert } from '../dialect.js';
import type { OptionRow } from '../tables.js';

export type OptionsQueries = ReturnType<typeof optionsQueries>;

export function optionsQueries({ db, dialect }: Database) {
  return {
    async all(): Promise<OptionRow[]> {
      return db.selectFrom('options').selectAll().execute();
    },
    /** Writes several options in one transaction: a section is saved whole or not at all. */
    async save(values: Record<string, string>, now: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        for (const [key, value] of Object.entries(values)) {
          await upsert(dialect, trx.insertInto('options').values({ key, value, updated_at: now }), ['key'], {
            value,
            updated_at: now,
          }).execute();
        }
      });
    },
    /** The newest change time; other nodes poll it to notice changes when there is no Redis. */
    async version(): Promise<number> {
      const row = await db
        .selectFrom('options')
        .select((eb) => eb.fn.max('updated_at').as('v'))
        .executeTakeFirst();
      return Number(row?.v ?? 0);
    },
  };
}
