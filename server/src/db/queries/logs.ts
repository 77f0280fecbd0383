import { LogType } from '@switchyard/domain';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { LogsTable, Tables } from '../tables.js';
import type { ListRequest } from './channels.js';

export type LogRow = Selectable<LogsTable>;
export type NewLog = Insertable<LogsTable>;
export type LogsQueries = ReturnType<typeof logsQueries>;

export const LOG_ORDERABLE = [
  'id',
  'created_at',
  'channel_id',
  'user_id',
  'token_name',
  'model_name',
  'type',
  'source_ip',
] as const;
export type LogOrderColumn = (typeof LOG_ORDERABLE)[number];

/** What a user may sort their own logs by: nothing that would reveal channels or other users. */
export const SELF_LOG_ORDERABLE = ['id', 'created_at', 'token_name', 'model_name', 'type'] as const;

export interface LogFilter {
  /** A log type; undefined or 0 means every type. */
  type?: number;
  userId?: number;
  /** Inclusive unix-second bounds of created_at. */
  start?: number;
  end?: number;
  modelName?: string;
  username?: string;
  tokenName?: string;
  channelId?: number;
  sourceIp?: string;
}

/** Rows removed per statement by deleteConsumeBefore, so writers are never blocked for long. */
const DELETE_BATCH = 5000;

// Paging a million rows with the indexes of `logs` (migrations 0001 and 0018):
// - The equality filters type, user_id, model_name and channel_id have an index (col, created_at); a
//   time range narrows the second column of the same index. A username filter is served as the
//   user_id of the account with that name (`withNamedUser`). token_name and source_ip have none:
//   each indexed log column costs every settlement a B-tree insert, and these are rare filters (a
//   user's token filter comes with their user_id); they are checked on the rows a walk reads.
// - The default order "-id" means newest first. It is served with keys an index already holds in
//   that order, so a page is an index walk that stops after `size` rows instead of a sort of every
//   matching row (ids and times rise together, up to the length of a request):
//   * with one of those equality filters: created_at, id (SQLite and InnoDB append the primary key
//     to every index; PostgreSQL sorts only the ties, incrementally);
//   * with a time range but none of those: created_at, type, id, the order of the (created_at, type)
//     index. Plain `id desc` there walked the whole primary key down to the range (1.5 s on
//     MariaDB for one day a million rows back);
//   * with neither: id, a backward walk of the primary key (clustered in InnoDB, the rowid in
//     SQLite) that stops after one page.
// - total_count is counted with the same WHERE, so it covers the same index range; a request with
//   no indexed filter and no time range counts the whole table.
const INDEXED_EQUALITY: readonly (keyof LogFilter)[] = ['type', 'userId', 'modelName', 'channelId'];

function where(db: Kysely<Tables>, f: LogFilter) {
  let q = db.selectFrom('logs');
  if (f.type) q = q.where('type', '=', f.type);
  if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
  if (f.start !== undefined) q = q.where('created_at', '>=', f.start);
  if (f.end !== undefined) q = q.where('created_at', '<=', f.end);
  if (f.modelName) q = q.where('model_name', '=', f.modelName);
  if (f.username) q = q.where('username', '=', f.username);
  if (f.tokenName) q = q.where('token_name', '=', f.tokenName);
  if (f.channelId !== undefined) q = q.where('channel_id', '=', f.channelId);
  if (f.sourceIp) q = q.where('source_ip', '=', f.sourceIp);
  return q;
}

const hasIndexedEquality = (f: LogFilter) =>
  INDEXED_EQUALITY.some((k) => f[k] !== undefined && f[k] !== '' && f[k] !== 0);

/** The page query of `list`, exported so tests can check its plan. */
export function logPageQuery<F extends LogOrderColumn>(
  db: Kysely<Tables>,
  f: LogFilter,
  page: ListRequest<F>,
) {
  let q = where(db, f).selectAll();
  const indexed = hasIndexedEquality(f);
  const byTime: LogOrderColumn[] = indexed ? ['created_at', 'id'] : ['created_at', 'type', 'id'];
  const newest: LogOrderColumn[] = indexed || f.start !== undefined || f.end !== undefined ? byTime : ['id'];
  const used = new Set<LogOrderColumn>();
  const orderBy = (column: LogOrderColumn, direction: 'asc' | 'desc') => {
    if (used.has(column)) return;
    used.add(column);
    q = q.orderBy(column, direction);
  };
  for (const o of page.order) {
    if (o.column === 'id') for (const c of newest) orderBy(c, o.direction);
    else if (o.column === 'created_at') for (const c of byTime) orderBy(c, o.direction);
    else orderBy(o.column, o.direction);
  }
  // A stable tie-break in the direction of the last key, so an index walk in one direction serves both.
  orderBy('id', page.order.at(-1)?.direction ?? 'desc');
  return q.limit(page.size).offset(page.offset);
}

/** The total_count query of `list`: the same WHERE, so the same index range. */
export function logCountQuery(db: Kysely<Tables>, f: LogFilter) {
  return where(db, f).select((eb) => eb.fn.countAll().as('n'));
}

export function logsQueries({ db, dialect }: Database) {
  /**
   * A username filter, narrowed to the account that has that name now, so the (user_id, created_at)
   * index serves it (logs keep the name of their time). Logs of another account that once had the
   * name (renamed, or deleted: deletion renames) are left out; with no such account the name alone
   * is matched, row by row.
   */
  async function withNamedUser(f: LogFilter): Promise<LogFilter> {
    if (!f.username || f.userId !== undefined) return f;
    const user = await db
      .selectFrom('users')
      .select('id')
      .where('username', '=', f.username)
      .executeTakeFirst();
    return user ? { ...f, userId: toNumber(user.id) } : f;
  }

  return {
    async list<F extends LogOrderColumn>(
      filter: LogFilter,
      page: ListRequest<F>,
    ): Promise<{ rows: LogRow[]; total: number }> {
      const f = await withNamedUser(filter);
      const [rows, count] = await Promise.all([
        logPageQuery(db, f, page).execute(),
        logCountQuery(db, f).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: toNumber(count.n) };
    },

    /** Sum of quota over the consume logs matching `f` (its type, if any, is ignored). */
    async sumConsumeQuota(f: LogFilter): Promise<number> {
      const row = await where(db, { ...(await withNamedUser(f)), type: LogType.Consume })
        .select((eb) => eb.fn.sum<number>('quota').as('quota'))
        .executeTakeFirstOrThrow();
      return toNumber(row.quota);
    },

    /** Hard-deletes consume logs created before `before`, in batches; returns how many. */
    async deleteConsumeBefore(before: number, batch = DELETE_BATCH): Promise<number> {
      let deleted = 0;
      for (;;) {
        const ids = await db
          .selectFrom('logs')
          .select('id')
          .where('type', '=', LogType.Consume)
          .where('created_at', '<', before)
          .limit(batch)
          .execute();
        if (ids.length === 0) return deleted;
        const result = await db
          .deleteFrom('logs')
          .where(
            'id',
            'in',
            ids.map((r) => r.id),
          )
          .executeTakeFirst();
        deleted += toNumber(result.numDeletedRows);
        if (ids.length < batch) return deleted;
      }
    },

    async insert(row: NewLog): Promise<number> {
      return insertReturningId(dialect, db.insertInto('logs').values(row));
    },

    /** Id to name of the given channels, deleted ones included (old logs still name them). */
    async channelNames(ids: readonly number[]): Promise<Map<number, string>> {
      const unique = [...new Set(ids)].filter((id) => id > 0);
      if (unique.length === 0) return new Map();
      const rows = await db.selectFrom('channels').select(['id', 'name']).where('id', 'in', unique).execute();
      return new Map(rows.map((r) => [r.id, r.name]));
    },
  };
}
