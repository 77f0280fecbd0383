import { z } from 'zod';
import {
  MIDJOURNEY_ORDERABLE,
  type MidjourneyFilter,
  type MidjourneyOrderColumn,
  SELF_MIDJOURNEY_ORDERABLE,
} from '../../db/queries/midjourneys.js';
import {
  SELF_TASK_ORDERABLE,
  TASK_ORDERABLE,
  type TaskFilter,
  type TaskOrderColumn,
} from '../../db/queries/tasks.js';
import { type PageRequest, pageQuery, pageResult } from '../../http/pagination.js';
import type { RouteContext } from '../../http/route.js';
import { optionalInt, optionalText } from '../validation.js';
import { presentMidjourney, presentSelfMidjourney, presentSelfTask, presentTask } from './task-presenter.js';

// Image tasks and async (music, video) tasks. Administrators see every task with
// its channel; a user sees only their own, and never which channel ran them.

const timeRange = { start_timestamp: optionalInt, end_timestamp: optionalInt };

export const midjourneyListQuery = pageQuery(MIDJOURNEY_ORDERABLE).and(
  z.object({ channel_id: optionalInt, user_id: optionalInt, mj_id: optionalText, ...timeRange }),
);
export const selfMidjourneyListQuery = pageQuery(SELF_MIDJOURNEY_ORDERABLE).and(
  z.object({ token_id: optionalInt, mj_id: optionalText, ...timeRange }),
);

export const TASK_PLATFORMS = ['suno', 'kling'] as const;
const platform = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z.enum(TASK_PLATFORMS, { error: `platform must be one of ${TASK_PLATFORMS.join(', ')}` }).optional(),
);
/** `user_ids` may come repeated (`user_ids=1&user_ids=2`), bracketed, or as one comma list. */
const idList = z.preprocess((v) => {
  if (v === undefined || v === '') return undefined;
  const parts = (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(','));
  return parts.map((x) => x.trim()).filter(Boolean);
}, z
  .array(z.coerce.number().int().positive('user_ids must be positive numbers'))
  .max(100, 'at most 100 user_ids')
  .optional());
const taskFilters = {
  platform,
  task_id: optionalText,
  action: optionalText,
  status: optionalText,
  token_id: optionalInt,
  ...timeRange,
};
export const taskListQuery = pageQuery(TASK_ORDERABLE).and(
  z
    .object({
      ...taskFilters,
      channel_id: optionalInt,
      user_id: optionalInt,
      user_ids: idList,
      'user_ids[]': idList,
    })
    .transform(({ 'user_ids[]': bracketed, ...rest }) => ({
      ...rest,
      user_ids: [...(rest.user_ids ?? []), ...(bracketed ?? [])],
    })),
);
export const selfTaskListQuery = pageQuery(SELF_TASK_ORDERABLE).and(z.object(taskFilters));

interface MjQuery {
  channel_id?: number | undefined;
  user_id?: number | undefined;
  token_id?: number | undefined;
  mj_id?: string | undefined;
  start_timestamp?: number | undefined;
  end_timestamp?: number | undefined;
}

function mjFilter(q: MjQuery): MidjourneyFilter {
  const f: MidjourneyFilter = {};
  if (q.channel_id) f.channelId = q.channel_id;
  if (q.user_id) f.userId = q.user_id;
  if (q.token_id) f.tokenId = q.token_id;
  if (q.mj_id) f.mjId = q.mj_id;
  if (q.start_timestamp !== undefined) f.start = q.start_timestamp;
  if (q.end_timestamp !== undefined) f.end = q.end_timestamp;
  return f;
}

export async function listMidjourney({
  s,
  query,
}: RouteContext<unknown, PageRequest<MidjourneyOrderColumn> & MjQuery, unknown>) {
  const { rows, total } = await s.repos.midjourneys.list(mjFilter(query), query);
  return pageResult(query, rows.map(presentMidjourney), total);
}

export async function listSelfMidjourney({
  s,
  caller,
  query,
}: RouteContext<unknown, PageRequest<MidjourneyOrderColumn> & MjQuery, unknown>) {
  const { token_id, mj_id, start_timestamp, end_timestamp } = query;
  const filter = mjFilter({ token_id, mj_id, start_timestamp, end_timestamp });
  filter.userId = caller!.user.id;
  const { rows, total } = await s.repos.midjourneys.list(filter, query);
  return pageResult(query, rows.map(presentSelfMidjourney), total);
}

interface TaskQuery {
  platform?: string | undefined;
  task_id?: string | undefined;
  action?: string | undefined;
  status?: string | undefined;
  token_id?: number | undefined;
  channel_id?: number | undefined;
  user_id?: number | undefined;
  user_ids?: number[] | undefined;
  start_timestamp?: number | undefined;
  end_timestamp?: number | undefined;
}

function taskFilter(q: TaskQuery): TaskFilter {
  const f: TaskFilter = {};
  if (q.platform) f.platform = q.platform;
  if (q.task_id) f.taskId = q.task_id;
  if (q.action) f.action = q.action;
  if (q.status) f.status = q.status;
  if (q.token_id) f.tokenId = q.token_id;
  if (q.channel_id) f.channelId = q.channel_id;
  const users = [...(q.user_ids ?? []), ...(q.user_id ? [q.user_id] : [])];
  if (users.length > 0) f.userIds = users;
  if (q.start_timestamp !== undefined) f.start = q.start_timestamp;
  if (q.end_timestamp !== undefined) f.end = q.end_timestamp;
  return f;
}

export async function listTasks({
  s,
  query,
}: RouteContext<unknown, PageRequest<TaskOrderColumn> & TaskQuery, unknown>) {
  const { rows, total } = await s.repos.tasks.list(taskFilter(query), query);
  return pageResult(query, rows.map(presentTask), total);
}

export async function listSelfTasks({
  s,
  caller,
  query,
}: RouteContext<unknown, PageRequest<TaskOrderColumn> & TaskQuery, unknown>) {
  const { channel_id: _channel, user_id: _user, user_ids: _users, ...own } = query;
  const filter = taskFilter(own);
  filter.userIds = [caller!.user.id];
  const { rows, total } = await s.repos.tasks.list(filter, query);
  return pageResult(query, rows.map(presentSelfTask), total);
}
