import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { Tables, TasksTable } from '../tables.js';
import type { ListRequest } from './channels.js';

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
  };
}
