import type { Database } from '../create-db.js';
import { insertIgnore } from '../dialect.js';
import type { ModelOwnerRow } from '../tables.js';

export type ModelOwnersQueries = ReturnType<typeof modelOwnersQueries>;

export function modelOwnersQueries({ db, dialect }: Database) {
  return {
    async all(): Promise<ModelOwnerRow[]> {
      return db.selectFrom('model_owners').selectAll().orderBy('id').execute();
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
