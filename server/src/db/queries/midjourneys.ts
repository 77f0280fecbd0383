import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { MidjourneysTable, Tables } from '../tables.js';
import type { ListRequest } from './channels.js';
import { FINAL_STATUSES, OPEN_STATUSES } from './task-refunds.js';

export type MidjourneyRow = Selectable<MidjourneysTable>;
export type NewMidjourney = Insertable<MidjourneysTable>;
export type MidjourneysQueries = ReturnType<typeof midjourneysQueries>;

/** The fields an image-task list may be ordered by. */
export const MIDJOURNEY_ORDERABLE = [
  'id',
  'user_id',
  'code',
  'action',
  'mj_id',
  'submit_time',
  'start_time',
  'finish_time',
  'status',
  'channel_id',
] as const;
export type MidjourneyOrderColumn = (typeof MIDJOURNEY_ORDERABLE)[number];

/** What a user may sort their own image tasks by: not the channel. */
export const SELF_MIDJOURNEY_ORDERABLE = MIDJOURNEY_ORDERABLE.filter((c) => c !== 'channel_id');

export interface MidjourneyFilter {
  userId?: number;
  tokenId?: number;
  channelId?: number;
  mjId?: string;
  /** Inclusive unix-second bounds of submit_time. */
  start?: number;
  end?: number;
}

function where(db: Kysely<Tables>, f: MidjourneyFilter) {
  let q = db.selectFrom('midjourneys');
  if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
  if (f.tokenId !== undefined) q = q.where('token_id', '=', f.tokenId);
  if (f.channelId !== undefined) q = q.where('channel_id', '=', f.channelId);
  if (f.mjId) q = q.where('mj_id', '=', f.mjId);
  if (f.start !== undefined) q = q.where('submit_time', '>=', f.start);
  if (f.end !== undefined) q = q.where('submit_time', '<=', f.end);
  return q;
}

export function midjourneysQueries({ db, dialect }: Database) {
  return {
    async list(
      f: MidjourneyFilter,
      page: ListRequest<MidjourneyOrderColumn>,
    ): Promise<{ rows: MidjourneyRow[]; total: number }> {
      let q = where(db, f).selectAll();
      for (const o of page.order) q = q.orderBy(o.column, o.direction);
      if (!page.order.some((o) => o.column === 'id'))
        q = q.orderBy('id', page.order.at(-1)?.direction ?? 'desc');
      const [rows, count] = await Promise.all([
        q.limit(page.size).offset(page.offset).execute(),
        where(db, f)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: toNumber(count.n) };
    },

    async insert(row: NewMidjourney): Promise<number> {
      return insertReturningId(dialect, db.insertInto('midjourneys').values(row));
    },

    /** A task by the upstream's (midjourney-proxy's) id. */
    async byMjId(mjId: string): Promise<MidjourneyRow | undefined> {
      return db
        .selectFrom('midjourneys')
        .selectAll()
        .where('mj_id', '=', mjId)
        .orderBy('id', 'desc')
        .executeTakeFirst();
    },

    async byMjIds(mjIds: readonly string[]): Promise<MidjourneyRow[]> {
      if (mjIds.length === 0) return [];
      return db
        .selectFrom('midjourneys')
        .selectAll()
        .where('mj_id', 'in', mjIds)
        .orderBy('id', 'asc')
        .execute();
    },

    /** The charge the submit's settlement actually took (what a refund gives back). */
    async setQuota(id: number, quota: number): Promise<void> {
      await db.updateTable('midjourneys').set({ quota }).where('id', '=', id).execute();
    },

    /** Tasks still open (not SUCCESS or FAILURE), oldest first: what the poller brings up to date. */
    async unfinished(limit: number, afterId = 0): Promise<MidjourneyRow[]> {
      return db
        .selectFrom('midjourneys')
        .selectAll()
        .where('status', 'in', OPEN_STATUSES)
        .where('id', '>', afterId)
        .orderBy('id', 'asc')
        .limit(limit)
        .execute();
    },

    /** Writes what the upstream reported unless the task already ended. True when written. */
    async progress(id: number, patch: Updateable<MidjourneysTable>): Promise<boolean> {
      const r = await db
        .updateTable('midjourneys')
        .set(patch)
        .where('id', '=', id)
        .where('status', 'not in', FINAL_STATUSES)
        .executeTakeFirst();
      return toNumber(r.numUpdatedRows) === 1;
    },
  };
}
