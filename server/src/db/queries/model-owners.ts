import type { Database } from '../create-db.js';
import { insertIgnore, toNumber } from '../dialect.js';
import type { ModelOwnerRow } from '../tables.js';

export type ModelOwnersQueries = ReturnType<typeof modelOwnersQueries>;

export function modelOwnersQueries({ db, dialect }: Database) {
  const byId = (id: number): Promise<ModelOwnerRow | undefined> =>
    db.selectFrom('model_owners').selectAll().where('id', '=', id).executeTakeFirst();

  return {
    async all(): Promise<ModelOwnerRow[]> {
      return db.selectFrom('model_owners').selectAll().orderBy('id').execute();
    },
    byId,
    async insert(row: ModelOwnerRow): Promise<void> {
      await db.insertInto('model_owners').values(row).execute();
    },
    /** Renames an owner or changes its icon; false when there is no owner with that id. */
    async update(id: number, patch: Pick<ModelOwnerRow, 'name' | 'icon'>): Promise<boolean> {
      const result = await db.updateTable('model_owners').set(patch).where('id', '=', id).executeTakeFirst();
      if (toNumber(result.numUpdatedRows) > 0) return true;
      // MySQL may count only rows whose values changed; an identical write still names a row.
      return (await byId(id)) !== undefined;
    },
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('model_owners').where('id', '=', id).executeTakeFirst();
      return toNumber(result.numDeletedRows) > 0;
    },
    /** Prices that name the owner (`prices.channel_type`). */
    async priceCount(id: number): Promise<number> {
      const row = await db
        .selectFrom('prices')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('channel_type', '=', id)
        .executeTakeFirstOrThrow();
      return toNumber(row.n);
    },
    /** Reserved owners (ids <= 1000) are inserted when missing and never overwritten. */
    async seed(rows: readonly ModelOwnerRow[]): Promise<void> {
      if (rows.length === 0) return;
      await insertIgnore(
        dialect,
        db.insertInto('model_owners').values(rows.map((r) => ({ ...r }))),
      ).execute();
    },
  };
}
