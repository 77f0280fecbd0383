import { LogType, OrderStatus, RedemptionStatus } from '@switchyard/domain';
import { type ExpressionBuilder, type RawBuilder, sql } from 'kysely';
import type { Database } from '../create-db.js';
import { type DialectName, toNumber, upsert } from '../dialect.js';
import type { Tables } from '../tables.js';

// The daily rollup (`statistics`) and the aggregates the dashboards read. Dashboards read the rollup,
// never the log table; a day's rows are written whole from its consume logs (summed here per time
// range; the job sums a day from hour slices), so running it twice, or on two nodes at once, writes
// the same rows.

export type StatisticsQueries = ReturnType<typeof statisticsQueries>;

const SECONDS_PER_DAY = 86_400;
const SECONDS_PER_HOUR = 3600;
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC calendar date (`YYYY-MM-DD`) of a unix time in seconds. */
export function utcDate(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

/** Unix seconds of 00:00:00 UTC on `date`. */
export function utcDayStart(date: string): number {
  if (!DATE_TEXT.test(date)) throw new Error(`Not a YYYY-MM-DD date: ${date}`);
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (!Number.isFinite(ms)) throw new Error(`Not a calendar date: ${date}`);
  return ms / 1000;
}

/** The date `days` calendar days after (negative: before) `date`. */
export function addDays(date: string, days: number): string {
  return utcDate(utcDayStart(date) + days * SECONDS_PER_DAY);
}

/**
 * A unix-seconds column as its UTC `YYYY-MM-DD` date, on each engine. None of them depends on the
 * session time zone: MySQL's FROM_UNIXTIME would, so it adds seconds to the epoch instead.
 */
export function utcDateOf(dialect: DialectName, column: string): RawBuilder<string> {
  const col = sql.ref(column);
  if (dialect === 'postgres')
    return sql<string>`to_char(to_timestamp(${col}) at time zone 'UTC', 'YYYY-MM-DD')`;
  if (dialect === 'mysql')
    return sql<string>`date_format(date_add('1970-01-01', interval ${col} second), '%Y-%m-%d')`;
  return sql<string>`strftime('%Y-%m-%d', ${col}, 'unixepoch')`;
}

/** The counters of one rollup row (or a sum of them). */
export interface UsageTotals {
  requestCount: number;
  quota: number;
  promptTokens: number;
  completionTokens: number;
  /** Milliseconds, summed over the requests. */
  requestTime: number;
}

export interface DailyModelUsage extends UsageTotals {
  date: string;
  modelName: string;
}

export interface DailyChannelUsage extends UsageTotals {
  date: string;
  channelId: number;
}

export interface StatisticsRange {
  /** Inclusive `YYYY-MM-DD` bounds. */
  from: string;
  to: string;
  userId?: number;
}

/** One group of a log aggregate: the counters of one user, channel and model. */
export type RollupGroup = Omit<StatisticsRow, 'date'>;

/** A group of a log aggregate by hour: `hour` is the unix second the hour starts at. */
export interface HourGroup extends RollupGroup {
  hour: number;
}

export interface StatisticsRow {
  date: string;
  user_id: number;
  channel_id: number;
  model_name: string;
  request_count: number;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  request_time: number;
}

/** Rows per upsert statement: 9 bound values each stays far below every engine's parameter limit. */
const UPSERT_BATCH = 500;

const COUNTERS = ['request_count', 'quota', 'prompt_tokens', 'completion_tokens', 'request_time'] as const;

function totals(r: {
  request_count: unknown;
  quota: unknown;
  prompt_tokens: unknown;
  completion_tokens: unknown;
  request_time: unknown;
}): UsageTotals {
  return {
    requestCount: toNumber(r.request_count),
    quota: toNumber(r.quota),
    promptTokens: toNumber(r.prompt_tokens),
    completionTokens: toNumber(r.completion_tokens),
    requestTime: toNumber(r.request_time),
  };
}

/** What a rollup row adds up over the logs of its group. */
function logSums(eb: ExpressionBuilder<Tables, 'logs'>) {
  return [
    eb.fn.countAll<number>().as('request_count'),
    eb.fn.sum<number>('quota').as('quota'),
    eb.fn.sum<number>('prompt_tokens').as('prompt_tokens'),
    eb.fn.sum<number>('completion_tokens').as('completion_tokens'),
    eb.fn.sum<number>('request_time').as('request_time'),
  ] as const;
}

/**
 * The SELECT of `aggregateLogIds`, on its own so its query plan can be checked: it must walk the id
 * range. `+type` keeps it there: offered the (type, created_at) index, SQLite without statistics took
 * it and read every consume log ever written, on every run.
 */
export function logIdRangeAggregate(db: Database['db'], afterId: number, upToId: number) {
  const hour = sql<number>`${sql.ref('created_at')} - (${sql.ref('created_at')} % ${SECONDS_PER_HOUR})`;
  return db
    .selectFrom('logs')
    .select((eb) => [hour.as('hour'), 'user_id', 'channel_id', 'model_name', ...logSums(eb)])
    .where(sql<number>`+${sql.ref('type')}`, '=', LogType.Consume)
    .where('id', '>', afterId)
    .where('id', '<=', upToId)
    .groupBy([hour, 'user_id', 'channel_id', 'model_name']);
}

export function statisticsQueries({ db, dialect }: Database) {
  /** The value the conflicting INSERT would have written, for the upsert's SET list. */
  const incoming = (column: string) =>
    dialect === 'mysql' ? sql.raw(`values(${column})`) : sql.raw(`excluded.${column}`);

  const sums = () =>
    db
      .selectFrom('statistics')
      .select((eb) => [
        eb.fn.sum<number>('request_count').as('request_count'),
        eb.fn.sum<number>('quota').as('quota'),
        eb.fn.sum<number>('prompt_tokens').as('prompt_tokens'),
        eb.fn.sum<number>('completion_tokens').as('completion_tokens'),
        eb.fn.sum<number>('request_time').as('request_time'),
      ]);

  const inRange = (r: StatisticsRange) => {
    let q = sums().where('date', '>=', r.from).where('date', '<=', r.to);
    if (r.userId !== undefined) q = q.where('user_id', '=', r.userId);
    return q;
  };

  /**
   * The consume logs of `[start, end)` (unix seconds) summed per user, channel and model, in key
   * order. Served by the (type, created_at) index. A plain SELECT: it blocks no writer (an
   * INSERT ... SELECT would share-lock the range on MySQL and hold SQLite's write lock).
   */
  async function aggregateLogs(start: number, end: number, upToId?: number): Promise<RollupGroup[]> {
    let q = db
      .selectFrom('logs')
      .select((eb) => ['user_id', 'channel_id', 'model_name', ...logSums(eb)])
      .where('type', '=', LogType.Consume)
      .where('created_at', '>=', start)
      .where('created_at', '<', end);
    if (upToId !== undefined) q = q.where('id', '<=', upToId);
    const groups = await q
      .groupBy(['user_id', 'channel_id', 'model_name'])
      .orderBy('user_id')
      .orderBy('channel_id')
      .orderBy('model_name')
      .execute();
    return groups.map((g) => ({
      user_id: toNumber(g.user_id),
      channel_id: toNumber(g.channel_id),
      model_name: g.model_name,
      request_count: toNumber(g.request_count),
      quota: toNumber(g.quota),
      prompt_tokens: toNumber(g.prompt_tokens),
      completion_tokens: toNumber(g.completion_tokens),
      request_time: toNumber(g.request_time),
    }));
  }

  /**
   * Writes the whole-day totals of `date` with an upsert that overwrites: idempotent, so nodes may
   * write the same day at the same time. Rows of groups missing from `groups` (deleted logs) are
   * kept: the rollup outlives log cleanup. Written in key order, so concurrent writers cannot
   * deadlock.
   */
  async function writeDay(date: string, groups: readonly RollupGroup[]): Promise<void> {
    const rows = groups.map((g) => ({ date, ...g }));
    const overwrite = Object.fromEntries(COUNTERS.map((c) => [c, incoming(c)]));
    for (let i = 0; i < rows.length; i += UPSERT_BATCH) {
      await upsert(
        dialect,
        db.insertInto('statistics').values(rows.slice(i, i + UPSERT_BATCH)),
        ['date', 'user_id', 'channel_id', 'model_name'],
        overwrite,
      ).execute();
    }
  }

  return {
    aggregateLogs,
    writeDay,

    /**
     * Whether log ids grow in commit order, so the logs above the last id seen are exactly the
     * ones written since. SQLite: one write transaction at a time, AUTOINCREMENT ids. Not the
     * servers, where a transaction holding a lower id can commit after one holding a higher.
     */
    logIdsInCommitOrder: dialect === 'sqlite',

    /** The highest log id written so far, 0 with none. */
    async lastLogId(): Promise<number> {
      const row = await db
        .selectFrom('logs')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return toNumber(row?.id ?? 0);
    },

    /** The consume logs with `afterId < id <= upToId`, summed per hour, user, channel and model. */
    async aggregateLogIds(afterId: number, upToId: number): Promise<HourGroup[]> {
      const groups = await logIdRangeAggregate(db, afterId, upToId).execute();
      return groups.map((g) => ({
        hour: toNumber(g.hour),
        user_id: toNumber(g.user_id),
        channel_id: toNumber(g.channel_id),
        model_name: g.model_name,
        request_count: toNumber(g.request_count),
        quota: toNumber(g.quota),
        prompt_tokens: toNumber(g.prompt_tokens),
        completion_tokens: toNumber(g.completion_tokens),
        request_time: toNumber(g.request_time),
      }));
    },

    /** Rebuilds one UTC day from its consume logs in one scan; returns how many groups it has. */
    async rollupDay(date: string): Promise<number> {
      const start = utcDayStart(date);
      const groups = await aggregateLogs(start, start + SECONDS_PER_DAY);
      await writeDay(date, groups);
      return groups.length;
    },

    /** Raw rollup rows of a date range (tests and exports). */
    async rows(range: StatisticsRange): Promise<StatisticsRow[]> {
      let q = db
        .selectFrom('statistics')
        .selectAll()
        .where('date', '>=', range.from)
        .where('date', '<=', range.to);
      if (range.userId !== undefined) q = q.where('user_id', '=', range.userId);
      const rows = await q
        .orderBy('date')
        .orderBy('user_id')
        .orderBy('channel_id')
        .orderBy('model_name')
        .execute();
      return rows.map((r) => ({
        date: r.date,
        user_id: toNumber(r.user_id),
        channel_id: toNumber(r.channel_id),
        model_name: r.model_name,
        request_count: toNumber(r.request_count),
        quota: toNumber(r.quota),
        prompt_tokens: toNumber(r.prompt_tokens),
        completion_tokens: toNumber(r.completion_tokens),
        request_time: toNumber(r.request_time),
      }));
    },

    /** Per day and model (channels summed), oldest first. */
    async byDateAndModel(range: StatisticsRange): Promise<DailyModelUsage[]> {
      const rows = await inRange(range)
        .select(['date', 'model_name'])
        .groupBy(['date', 'model_name'])
        .orderBy('date')
        .orderBy('model_name')
        .execute();
      return rows.map((r) => ({ date: r.date, modelName: r.model_name, ...totals(r) }));
    },

    /** Per day and channel (models summed), oldest first. */
    async byDateAndChannel(range: StatisticsRange): Promise<DailyChannelUsage[]> {
      const rows = await inRange(range)
        .select(['date', 'channel_id'])
        .groupBy(['date', 'channel_id'])
        .orderBy('date')
        .orderBy('channel_id')
        .execute();
      return rows.map((r) => ({ date: r.date, channelId: toNumber(r.channel_id), ...totals(r) }));
    },

    /** Live users: balances, spending, head count and how many were invited. */
    async userTotals() {
      const row = await db
        .selectFrom('users')
        .where('deleted_at', 'is', null)
        .select((eb) => [
          eb.fn.sum<number>('quota').as('quota'),
          eb.fn.sum<number>('used_quota').as('used_quota'),
          eb.fn.countAll<number>().as('users'),
          eb.fn.sum<number>(eb.case().when('inviter_id', '!=', 0).then(1).else(0).end()).as('invited'),
        ])
        .executeTakeFirstOrThrow();
      // What live quota leases hold and counted is the users' too (db/queries/quota-leases.ts).
      const leased = await db
        .selectFrom('quota_leases')
        .innerJoin('users', 'users.id', 'quota_leases.user_id')
        .where('quota_leases.returned', '=', 0)
        .where('users.deleted_at', 'is', null)
        .select((eb) => [
          eb.fn.sum<number>('quota_leases.amount').as('quota'),
          eb.fn.sum<number>('quota_leases.used_quota').as('used_quota'),
        ])
        .executeTakeFirstOrThrow();
      return {
        totalQuota: toNumber(row.quota) + toNumber(leased.quota),
        totalUsedQuota: toNumber(row.used_quota) + toNumber(leased.used_quota),
        totalUser: toNumber(row.users),
        totalInviterUser: toNumber(row.invited),
      };
    },

    /** Live channels counted by status. */
    async channelCounts() {
      const rows = await db
        .selectFrom('channels')
        .where('deleted_at', 'is', null)
        .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .orderBy('status')
        .execute();
      return rows.map((r) => ({ status: toNumber(r.status), totalChannels: toNumber(r.n) }));
    },

    /** Redemption codes by status (disabled codes left out): how many and their face value. */
    async redemptionTotals() {
      const rows = await db
        .selectFrom('redemptions')
        .where('status', '!=', RedemptionStatus.Disabled)
        .select((eb) => ['status', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('quota').as('quota')])
        .groupBy('status')
        .orderBy('status')
        .execute();
      return rows.map((r) => ({
        status: toNumber(r.status),
        count: toNumber(r.n),
        quota: toNumber(r.quota),
      }));
    },

    /** Paid orders by currency: quota granted and money received. */
    async orderTotals() {
      const rows = await db
        .selectFrom('orders')
        .where('status', '=', OrderStatus.Success)
        .select((eb) => [
          'order_currency',
          eb.fn.sum<number>('quota').as('quota'),
          eb.fn.sum<number>('order_amount').as('money'),
        ])
        .groupBy('order_currency')
        .orderBy('order_currency')
        .execute();
      return rows.map((r) => ({
        orderCurrency: r.order_currency,
        quota: toNumber(r.quota),
        money: toNumber(r.money),
      }));
    },

    /** Sign-ups per UTC day in [start, end) (unix seconds), deleted accounts included: they happened. */
    async registrationsByDay(start: number, end: number) {
      const day = utcDateOf(dialect, 'created_time');
      const rows = await db
        .selectFrom('users')
        .where('created_time', '>=', start)
        .where('created_time', '<', end)
        .select((eb) => [
          day.as('date'),
          eb.fn.countAll<number>().as('users'),
          eb.fn.sum<number>(eb.case().when('inviter_id', '!=', 0).then(1).else(0).end()).as('invited'),
        ])
        .groupBy(day)
        .orderBy(day)
        .execute();
      return rows.map((r) => ({
        date: r.date,
        userCount: toNumber(r.users),
        inviterUserCount: toNumber(r.invited),
      }));
    },

    /** Codes redeemed per UTC day in [start, end): quota credited and distinct redeemers. */
    async redemptionsByDay(start: number, end: number, userId?: number) {
      const day = utcDateOf(dialect, 'redeemed_time');
      let q = db
        .selectFrom('redemptions')
        .where('status', '=', RedemptionStatus.Used)
        .where('redeemed_time', '>=', start)
        .where('redeemed_time', '<', end);
      if (userId !== undefined) q = q.where('redeemed_by', '=', userId);
      const rows = await q
        .select((eb) => [
          day.as('date'),
          eb.fn.countAll<number>().as('n'),
          eb.fn.sum<number>('quota').as('quota'),
          eb.fn.count<number>('redeemed_by').distinct().as('users'),
        ])
        .groupBy(day)
        .orderBy(day)
        .execute();
      return rows.map((r) => ({
        date: r.date,
        count: toNumber(r.n),
        quota: toNumber(r.quota),
        userCount: toNumber(r.users),
      }));
    },

    /** Paid orders per UTC day in [start, end) and currency. */
    async ordersByDay(start: number, end: number, userId?: number) {
      const day = utcDateOf(dialect, 'created_at');
      let q = db
        .selectFrom('orders')
        .where('status', '=', OrderStatus.Success)
        .where('created_at', '>=', start)
        .where('created_at', '<', end);
      if (userId !== undefined) q = q.where('user_id', '=', userId);
      const rows = await q
        .select((eb) => [
          day.as('date'),
          'order_currency',
          eb.fn.countAll<number>().as('n'),
          eb.fn.sum<number>('order_amount').as('amount'),
          eb.fn.sum<number>('quota').as('quota'),
        ])
        .groupBy([day, 'order_currency'])
        .orderBy(day)
        .orderBy('order_currency')
        .execute();
      return rows.map((r) => ({
        date: r.date,
        orderCurrency: r.order_currency,
        count: toNumber(r.n),
        orderAmount: toNumber(r.amount),
        quota: toNumber(r.quota),
      }));
    },
  };
}
