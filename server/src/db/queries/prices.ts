import type { PriceSyncMode } from '@switchyard/domain';
import type { Kysely } from 'kysely';
import type { Database } from '../create-db.js';
import { insertIgnore, toNumber } from '../dialect.js';
import type { PriceRow, Tables } from '../tables.js';

export type PricesQueries = ReturnType<typeof pricesQueries>;

/** A price without its model: what the batch editor applies to many models. */
export type PriceValues = Omit<PriceRow, 'model'>;

export interface SyncResult {
  inserted: number;
  updated: number;
  deleted: number;
  /** Rows of the list left alone because the stored price is locked. */
  skipped_locked: number;
}

// Bound parameters per statement stay far below PostgreSQL's and MySQL's limits.
const CHUNK = 100;

async function insertRows(db: Kysely<Tables>, rows: readonly PriceRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('prices')
      .values(rows.slice(i, i + CHUNK).map((r) => ({ ...r })))
      .execute();
  }
}

async function deleteModels(db: Kysely<Tables>, models: readonly string[]): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < models.length; i += CHUNK) {
    const result = await db
      .deleteFrom('prices')
      .where('model', 'in', models.slice(i, i + CHUNK))
      .executeTakeFirst();
    deleted += toNumber(result.numDeletedRows);
  }
  return deleted;
}

async function lockedByModel(db: Kysely<Tables>): Promise<Map<string, boolean>> {
  const rows = await db.selectFrom('prices').select(['model', 'locked']).execute();
  return new Map(rows.map((r) => [r.model, r.locked === 1]));
}

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
      for (let i = 0; i < rows.length; i += CHUNK) {
        const chunk = rows.slice(i, i + CHUNK).map((r) => ({ ...r }));
        await insertIgnore(dialect, db.insertInto('prices').values(chunk)).execute();
      }
    },

    async byModel(model: string): Promise<PriceRow | undefined> {
      return db.selectFrom('prices').selectAll().where('model', '=', model).executeTakeFirst();
    },

    /** Inserts one price; a duplicate model raises the engine's unique violation. */
    async insert(row: PriceRow): Promise<void> {
      await db.insertInto('prices').values(row).execute();
    },

    /**
     * Replaces the price of `model` with `row` (which may rename it), in one transaction. Renaming
     * onto a model that already has a price is refused.
     */
    async replace(model: string, row: PriceRow): Promise<'ok' | 'missing' | 'exists'> {
      return db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom('prices')
          .select('model')
          .where('model', '=', model)
          .executeTakeFirst();
        if (!current) return 'missing';
        if (row.model !== model) {
          const target = await trx
            .selectFrom('prices')
            .select('model')
            .where('model', '=', row.model)
            .executeTakeFirst();
          if (target) return 'exists';
          await trx.deleteFrom('prices').where('model', '=', model).execute();
          await trx.insertInto('prices').values(row).execute();
          return 'ok';
        }
        const { model: _, ...values } = row;
        await trx.updateTable('prices').set(values).where('model', '=', model).execute();
        return 'ok';
      });
    },

    async deleteMany(models: readonly string[]): Promise<number> {
      return db.transaction().execute((trx) => deleteModels(trx, models));
    },

    /**
     * The batch editor: models only in `original` lose their price, every model
     * in `models` gets `values`. A model new to the group that is priced elsewhere is refused
     * (returned) rather than silently moved.
     */
    async applyMultiple(
      original: readonly string[],
      models: readonly string[],
      values: PriceValues,
    ): Promise<{ taken: string[]; deleted: number; inserted: number; updated: number }> {
      return db.transaction().execute(async (trx) => {
        const existing = await lockedByModel(trx);
        const originalSet = new Set(original);
        const taken = models.filter((m) => !originalSet.has(m) && existing.has(m));
        if (taken.length > 0) return { taken, deleted: 0, inserted: 0, updated: 0 };
        const keep = new Set(models);
        const deleted = await deleteModels(
          trx,
          original.filter((m) => !keep.has(m) && existing.has(m)),
        );
        const toUpdate = models.filter((m) => existing.has(m));
        for (let i = 0; i < toUpdate.length; i += CHUNK) {
          await trx
            .updateTable('prices')
            .set(values)
            .where('model', 'in', toUpdate.slice(i, i + CHUNK))
            .execute();
        }
        const toInsert = models.filter((m) => !existing.has(m));
        await insertRows(
          trx,
          toInsert.map((model) => ({ model, ...values })),
        );
        return { taken: [], deleted, inserted: toInsert.length, updated: toUpdate.length };
      });
    },

    /**
     * Applies a price list (the price sync). `add` inserts missing models only; `update` also
     * replaces existing unlocked prices; `overwrite` deletes every unlocked price first. A locked
     * price is never changed or deleted.
     */
    async sync(rows: readonly PriceRow[], mode: PriceSyncMode): Promise<SyncResult> {
      return db.transaction().execute(async (trx) => {
        const existing = await lockedByModel(trx);
        const result: SyncResult = { inserted: 0, updated: 0, deleted: 0, skipped_locked: 0 };
        if (mode === 'overwrite') {
          const res = await trx.deleteFrom('prices').where('locked', '=', 0).executeTakeFirst();
          result.deleted = toNumber(res.numDeletedRows);
          for (const [model, locked] of existing) if (!locked) existing.delete(model);
        }
        const toInsert: PriceRow[] = [];
        for (const row of rows) {
          const locked = existing.get(row.model);
          if (locked === undefined) {
            toInsert.push(row);
          } else if (locked) {
            result.skipped_locked++;
          } else if (mode === 'update') {
            const { model, ...values } = row;
            await trx.updateTable('prices').set(values).where('model', '=', model).execute();
            result.updated++;
          }
        }
        await insertRows(trx, toInsert);
        result.inserted = toInsert.length;
        return result;
      });
    },
  };
}
