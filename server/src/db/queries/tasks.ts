import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { Tables, TasksTable } from '../tables.js';
import type { ListRequest } from './channels.js';
import { FINAL_STATUSES, OPEN_STATUSES } from './task-refunds.js';

export type TaskRow = Selectable<TasksTable>;
export type NewTask = Insertable<TasksTable>;
export type TasksQueries = ReturnType<typeof tasksQueries>;

/** The fields an async-task list may be ordered by. */
export const TASK_ORDERABLE = [
  'id',
  'created_at',
  'submit_time',
  'finish_time',
  'channel_id',
  'user_id',
  'platform',
] as const;
export type TaskOrderColumn = (typeof TASK_ORDERABLE)[number];

/** What a user may sort their own tasks by: not the channel, not the owner. */
export const SELF_TASK_ORDERABLE = ['id', 'created_at', 'submit_time', 'finish_time', 'platform'] as const;

export interface TaskFilter {
  platform?: string;
  userIds?: readonly number[];
  tokenId?: number;
  channelId?: number;
  taskId?: string;
  action?: string;
  status?: string;
  /** Inclusive unix-second bounds of submit_time. */
  start?: number;
  end?: number;
}

function where(db: Kysely<Tables>, f: TaskFilter) {
  let q = db.selectFrom('tasks');
  if (f.platform) q = q.where('platform', '=', f.platform);
  if (f.userIds && f.userIds.length > 0) q = q.where('user_id', 'in', f.userIds);
  if (f.tokenId !== undefined) q = q.where('token_id', '=', f.tokenId);
  if (f.channelId !== undefined) q = q.where('channel_id', '=', f.channelId);
  if (f.taskId) q = q.where('task_id', '=', f.taskId);
  if (f.action) q = q.where('action', '=', f.action);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.start !== undefined) q = q.where('submit_time', '>=', f.start);
  if (f.end !== undefined) q = q.where('submit_time', '<=', f.end);
  return q;
}

export function tasksQueries({ db, dialect }: Database) {
  return {
    async list(
      f: TaskFilter,
      page: ListRequest<TaskOrderColumn>,
    ): Promise<{ rows: TaskRow[]; total: number }> {
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

    async insert(row: NewTask): Promise<number> {
      return insertReturningId(dialect, db.insertInto('tasks').values(row));
    },

    /** A platform's task by the upstream's id. */
    async byTaskId(platform: string, taskId: string): Promise<TaskRow | undefined> {
      return db
        .selectFrom('tasks')
        .selectAll()
        .where('platform', '=', platform)
        .where('task_id', '=', taskId)
        .orderBy('id', 'desc')
        .executeTakeFirst();
    },

    async byTaskIds(platform: string, taskIds: readonly string[]): Promise<TaskRow[]> {
      if (taskIds.length === 0) return [];
      return db
        .selectFrom('tasks')
        .selectAll()
        .where('platform', '=', platform)
        .where('task_id', 'in', taskIds)
        .orderBy('id', 'asc')
        .execute();
    },

    /** The charge the submit's settlement actually took (what a refund gives back). */
    async setQuota(id: number, quota: number): Promise<void> {
      await db.updateTable('tasks').set({ quota }).where('id', '=', id).execute();
    },

    /** Tasks still open (not SUCCESS or FAILURE), oldest first: what the poller brings up to date. */
    async unfinished(limit: number, afterId = 0): Promise<TaskRow[]> {
      return db
        .selectFrom('tasks')
        .selectAll()
        .where('status', 'in', OPEN_STATUSES)
        .where('id', '>', afterId)
        .orderBy('id', 'asc')
        .limit(limit)
        .execute();
    },

    /**
     * Writes what the upstream reported, unless the task already ended (a poll that raced the
     * failure of the same task changes nothing). True when written.
     */
    async progress(id: number, patch: Updateable<TasksTable>): Promise<boolean> {
      const r = await db
        .updateTable('tasks')
        .set(patch)
        .where('id', '=', id)
        .where('status', 'not in', FINAL_STATUSES)
        .executeTakeFirst();
      return toNumber(r.numUpdatedRows) === 1;
    },
  };
}
