import { z } from 'zod';
import { LOG_ORDERABLE, type LogFilter, SELF_LOG_ORDERABLE } from '../../db/queries/logs.js';
import { type PageRequest, pageQuery, pageResult } from '../../http/pagination.js';
import type { RouteContext } from '../../http/route.js';
import type { Services } from '../../services.js';
import { audit } from '../audit.js';
import { optionalInt, optionalText } from '../validation.js';
import { presentLog, presentSelfLog } from './log-presenter.js';

// Logs. Administrators see every log with its channel; a user sees only their
// own, and nothing about channels, other users or where other requests came from.

const timeRange = {
  start_timestamp: optionalInt,
  end_timestamp: optionalInt,
};

export const logListQuery = pageQuery(LOG_ORDERABLE).and(
  z.object({
    log_type: optionalInt,
    ...timeRange,
    model_name: optionalText,
    username: optionalText,
    token_name: optionalText,
    channel_id: optionalInt,
    source_ip: optionalText,
  }),
);
export const selfLogListQuery = pageQuery(SELF_LOG_ORDERABLE).and(
  z.object({ log_type: optionalInt, ...timeRange, model_name: optionalText, token_name: optionalText }),
);
export const logStatQuery = z.object({
  ...timeRange,
  model_name: optionalText,
  username: optionalText,
  token_name: optionalText,
  // The reference calls it `channel`; `channel_id` matches the list's filter.
  channel: optionalInt,
  channel_id: optionalInt,
});
export const selfLogStatQuery = z.object({
  ...timeRange,
  model_name: optionalText,
  token_name: optionalText,
});
export const deadLetterListQuery = pageQuery(['id', 'created_at'] as const);
export const logDeleteQuery = z.object({
  target_timestamp: z.coerce
    .number({ error: 'target_timestamp is required (unix seconds)' })
    .int()
    .positive('target_timestamp is required (unix seconds)'),
});

interface Filters {
  log_type?: number | undefined;
  start_timestamp?: number | undefined;
  end_timestamp?: number | undefined;
  model_name?: string | undefined;
  username?: string | undefined;
  token_name?: string | undefined;
  channel_id?: number | undefined;
  channel?: number | undefined;
  source_ip?: string | undefined;
}

function toFilter(q: Filters): LogFilter {
  const f: LogFilter = {};
  if (q.log_type) f.type = q.log_type;
  if (q.start_timestamp !== undefined) f.start = q.start_timestamp;
  if (q.end_timestamp !== undefined) f.end = q.end_timestamp;
  if (q.model_name) f.modelName = q.model_name;
  if (q.username) f.username = q.username;
  if (q.token_name) f.tokenName = q.token_name;
  const channelId = q.channel_id ?? q.channel;
  if (channelId) f.channelId = channelId;
  if (q.source_ip) f.sourceIp = q.source_ip;
  return f;
}

type AdminList = PageRequest<(typeof LOG_ORDERABLE)[number]> & Filters;
type SelfList = PageRequest<(typeof SELF_LOG_ORDERABLE)[number]> & Filters;

/**
 * The ledger writes consume rows in bulk, after the calls they log (SQLite: a staging table moved
 * into `logs` every second; PostgreSQL and MySQL: the write batcher). A read of the log waits for
 * what is already settled, so a call shows in the log as soon as its reply has been sent.
 */
function settledLogs(s: Pick<Services, 'relay'>): Promise<void> {
  return s.relay.ledger.flush();
}

export async function listLogs({ s, query }: RouteContext<unknown, AdminList, unknown>) {
  await settledLogs(s);
  const { rows, total } = await s.repos.logs.list(toFilter(query), query);
  const names = await s.repos.logs.channelNames(rows.map((r) => r.channel_id));
  return pageResult(
    query,
    rows.map((r) => presentLog(r, names)),
    total,
  );
}

export async function listSelfLogs({ s, caller, query }: RouteContext<unknown, SelfList, unknown>) {
  // Only the filters a user may use are read; the owner is always the caller.
  const { log_type, start_timestamp, end_timestamp, model_name, token_name } = query;
  const filter = toFilter({ log_type, start_timestamp, end_timestamp, model_name, token_name });
  filter.userId = caller!.user.id;
  await settledLogs(s);
  const { rows, total } = await s.repos.logs.list(filter, query);
  return pageResult(query, rows.map(presentSelfLog), total);
}

export async function logStat({ s, query }: RouteContext<unknown, Filters, unknown>) {
  await settledLogs(s);
  return { quota: await s.repos.logs.sumConsumeQuota(toFilter(query)) };
}

export async function selfLogStat({ s, caller, query }: RouteContext<unknown, Filters, unknown>) {
  const { start_timestamp, end_timestamp, model_name, token_name } = query;
  const filter = toFilter({ start_timestamp, end_timestamp, model_name, token_name });
  filter.userId = caller!.user.id;
  await settledLogs(s);
  return { quota: await s.repos.logs.sumConsumeQuota(filter) };
}

/** DELETE /api/log/?target_timestamp=: removes consume logs older than it; `data` = how many. */
export async function deleteLogs({
  s,
  caller,
  ip,
  query,
}: RouteContext<unknown, { target_timestamp: number }, unknown>) {
  await settledLogs(s);
  const deleted = await s.repos.logs.deleteConsumeBefore(query.target_timestamp);
  await audit(
    s,
    caller,
    ip,
    'log.delete',
    { type: 'log', id: `before:${query.target_timestamp}` },
    { deleted },
  );
  return deleted;
}

/**
 * GET /api/log/dead_letters: settlements the database refused (kept in `settlement_dead_letters`
 * with the error, the call's log row and whether it was then charged), newest first, so an
 * administrator sees every one and can correct a balance by hand where it was not charged.
 */
export async function listDeadLetters({
  s,
  query,
}: RouteContext<unknown, PageRequest<'id' | 'created_at'>, unknown>) {
  await settledLogs(s);
  let list = s.database.db.selectFrom('settlement_dead_letters').selectAll();
  for (const o of query.order) list = list.orderBy(o.column, o.direction);
  const [rows, count] = await Promise.all([
    list.limit(query.size).offset(query.offset).execute(),
    s.database.db
      .selectFrom('settlement_dead_letters')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return pageResult(
    query,
    rows.map((r) => ({
      id: Number(r.id),
      created_at: Number(r.created_at),
      user_id: Number(r.user_id),
      token_id: Number(r.token_id),
      channel_id: Number(r.channel_id),
      reserved: Number(r.reserved),
      final_quota: Number(r.final_quota),
      charged: Number(r.charged) === 1,
      error: r.error,
      log: parseLog(r.log),
    })),
    Number(count.n),
  );
}

function parseLog(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
