import { LogType, TaskStatus, TokenStatus } from '@switchyard/domain';
import type { Kysely, Transaction } from 'kysely';
import { toNumber } from '../dialect.js';
import type { Tables } from '../tables.js';
import { balanceLogRow } from './users.js';

/** A task the poller gives up on, and what to tell its owner. */
export interface TaskFailure {
  table: 'tasks' | 'midjourneys';
  id: number;
  userId: number;
  tokenId: number;
  channelId: number;
  /** What the submit charged: given back whole. */
  quota: number;
  reason: string;
  now: number;
  /** For the log row: what failed (`mj_imagine`, `suno MUSIC`, ...). */
  what: string;
  /** The upstream's task id, for the log row. */
  upstreamId: string;
  /** Other columns written with the failure (progress, upstream data). */
  extra?: Record<string, unknown>;
}

/** A state a task never leaves. */
export const FINAL_STATUSES: readonly string[] = [TaskStatus.Success, TaskStatus.Failure];

/**
 * Every other state a task row is written with (MODAL: midjourney-proxy waits for a modal; '': a
 * row one-hub made before its first poll). Listed so the poller's read uses the status index.
 */
export const OPEN_STATUSES: readonly string[] = [
  TaskStatus.NotStart,
  TaskStatus.Submitted,
  TaskStatus.Queued,
  TaskStatus.InProgress,
  TaskStatus.Unknown,
  'MODAL',
  '',
];

/**
 * Marks the task failed and gives its charge back, once: the conditional UPDATE that moves it to
 * FAILURE is the claim, so two pollers (or a poll racing a timeout) refund it once between them.
 * Balances, used counters and the system log row change in the same transaction.
 */
export async function failAndRefund(db: Kysely<Tables>, f: TaskFailure): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const claimed = await claim(trx, f);
    if (!claimed) return false;
    if (f.quota <= 0) return true;
    const q = f.quota;
    const user = await trx
      .updateTable('users')
      .set((eb) => ({ quota: eb('quota', '+', q), used_quota: eb('used_quota', '-', q) }))
      .where('id', '=', f.userId)
      .executeTakeFirst();
    if (f.tokenId > 0) {
      await trx
        .updateTable('tokens')
        .set((eb) => ({
          // First: MySQL evaluates SET left to right, so this must see the old remain_quota everywhere.
          // A key emptied by this charge works again once it is given back.
          status: eb
            .case()
            .when(
              eb.and([
                eb('status', '=', TokenStatus.Exhausted),
                eb('unlimited_quota', '=', 0),
                eb(eb('remain_quota', '+', q), '>', 0),
              ]),
            )
            .then(TokenStatus.Enabled)
            .else(eb.ref('status'))
            .end(),
          used_quota: eb('used_quota', '-', q),
          // An unlimited token's remain_quota was never taken.
          remain_quota: eb
            .case()
            .when('unlimited_quota', '=', 0)
            .then(eb('remain_quota', '+', q))
            .else(eb.ref('remain_quota'))
            .end(),
        }))
        .where('id', '=', f.tokenId)
        .execute();
    }
    if (f.channelId > 0) {
      await trx
        .updateTable('channels')
        .set((eb) => ({ used_quota: eb('used_quota', '-', q) }))
        .where('id', '=', f.channelId)
        .execute();
    }
    // A deleted user's task: the row is marked, the log still says so.
    const credited = toNumber(user.numUpdatedRows) === 1;
    const username = credited
      ? ((await trx.selectFrom('users').select('username').where('id', '=', f.userId).executeTakeFirst())
          ?.username ?? '')
      : '';
    await trx
      .insertInto('logs')
      .values(
        balanceLogRow({
          user_id: f.userId,
          username,
          type: LogType.System,
          content: `Refund of ${q} quota: ${f.what} task ${f.upstreamId} failed (${f.reason.slice(0, 200)})`,
          quota: q,
          created_at: f.now,
          metadata: JSON.stringify({
            task_table: f.table,
            task_id: f.id,
            upstream_task_id: f.upstreamId,
            refund: q,
            reason: f.reason.slice(0, 500),
          }),
        }),
      )
      .execute();
    return true;
  });
}

async function claim(trx: Transaction<Tables>, f: TaskFailure): Promise<boolean> {
  if (f.table === 'tasks') {
    const r = await trx
      .updateTable('tasks')
      .set({
        ...(f.extra as object),
        status: TaskStatus.Failure,
        fail_reason: f.reason.slice(0, 2000),
        finish_time: f.now,
        updated_at: f.now,
      })
      .where('id', '=', f.id)
      .where('status', 'not in', FINAL_STATUSES)
      .executeTakeFirst();
    return toNumber(r.numUpdatedRows) === 1;
  }
  const r = await trx
    .updateTable('midjourneys')
    .set({
      ...(f.extra as object),
      status: TaskStatus.Failure,
      fail_reason: f.reason.slice(0, 2000),
      finish_time: f.now,
    })
    .where('id', '=', f.id)
    .where('status', 'not in', FINAL_STATUSES)
    .executeTakeFirst();
  return toNumber(r.numUpdatedRows) === 1;
}
