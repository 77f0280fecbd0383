import { z } from 'zod';
import {
  addDays,
  type DailyModelUsage,
  type UsageTotals,
  utcDate,
  utcDayStart,
} from '../../db/queries/statistics.js';
import type { RouteContext } from '../../http/route.js';
import type { Services } from '../../services.js';
import { invalidField } from '../validation.js';

// Administrators' analytics, with camelCase keys throughout (one-hub mixes PascalCase and
// snake_case). Consumption comes from the daily rollup, never from the log table; sign-ups,
// redemptions and orders are counted from their own tables. Days are UTC calendar days.

/** The longest period one request may cover. */
export const PERIOD_MAX_DAYS = 366;
/** Without a start, a period is the seven days ending at its end. */
const DEFAULT_PERIOD_DAYS = 7;

export const GROUP_TYPES = ['model', 'model_type', 'channel'] as const;
export type GroupType = (typeof GROUP_TYPES)[number];

const blankToUndefined = (v: unknown) => (v === '' ? undefined : v);
const unixSeconds = (name: string) =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: `${name} must be a unix time in seconds` })
      .int(`${name} must be a unix time in seconds`)
      .min(0, `${name} must be a unix time in seconds`)
      .optional(),
  );

export const periodQuery = z.object({
  start_timestamp: unixSeconds('start_timestamp'),
  end_timestamp: unixSeconds('end_timestamp'),
  group_type: z.preprocess(
    blankToUndefined,
    z.enum(GROUP_TYPES, { error: 'group_type must be model, model_type or channel' }).default('model'),
  ),
  user_id: z.preprocess(
    blankToUndefined,
    z.coerce.number().int('user_id must be a user id').positive('user_id must be a user id').optional(),
  ),
});
export type PeriodQuery = z.infer<typeof periodQuery>;

/** GET /api/analytics/statistics: totals right now. */
export async function analyticsStatistics({ s }: RouteContext<unknown, unknown, unknown>) {
  const q = s.repos.statistics;
  const [userStatistics, channelStatistics, redemptionStatistics, orderStatistics] = await Promise.all([
    q.userTotals(),
    q.channelCounts(),
    q.redemptionTotals(),
    q.orderTotals(),
  ]);
  return { userStatistics, channelStatistics, redemptionStatistics, orderStatistics };
}

export interface PeriodUsage extends UsageTotals {
  date: string;
  /** What the row is grouped by: the model, its owner's name, or the channel's name. */
  channel: string;
}

/** Inclusive UTC dates of the period; refuses a reversed or too long one. */
function periodDates(s: Services, q: PeriodQuery): { from: string; to: string } {
  const end = q.end_timestamp ?? s.clock.nowSeconds();
  const to = utcDate(end);
  const from =
    q.start_timestamp !== undefined ? utcDate(q.start_timestamp) : addDays(to, -(DEFAULT_PERIOD_DAYS - 1));
  if (q.start_timestamp !== undefined && q.start_timestamp > end)
    throw invalidField('start_timestamp', 'start_timestamp must not be after end_timestamp', 'query');
  const days = (utcDayStart(to) - utcDayStart(from)) / 86_400 + 1;
  if (days > PERIOD_MAX_DAYS)
    throw invalidField(
      'start_timestamp',
      `The period cannot be longer than ${PERIOD_MAX_DAYS} days`,
      'query',
    );
  return { from, to };
}

function addInto(target: UsageTotals, row: UsageTotals): void {
  target.requestCount += row.requestCount;
  target.quota += row.quota;
  target.promptTokens += row.promptTokens;
  target.completionTokens += row.completionTokens;
  target.requestTime += row.requestTime;
}

/**
 * Per-model rows regrouped by the model's owner: the owner of the model's price (exact or wildcard,
 * as the relay prices it); a model without a price has the owner "" (unknown).
 */
async function byOwner(s: Services, rows: readonly DailyModelUsage[]): Promise<PeriodUsage[]> {
  const owners = new Map((await s.repos.modelOwners.all()).map((o) => [o.id, o.name]));
  const prices = s.relay.tables.prices;
  const merged = new Map<string, PeriodUsage>();
  for (const r of rows) {
    const ownerId = prices.lookup(r.modelName)?.channelType;
    const owner = ownerId === undefined ? '' : (owners.get(ownerId) ?? '');
    const key = `${r.date}\u0000${owner}`;
    let m = merged.get(key);
    if (!m) {
      m = {
        date: r.date,
        channel: owner,
        requestCount: 0,
        quota: 0,
        promptTokens: 0,
        completionTokens: 0,
        requestTime: 0,
      };
      merged.set(key, m);
    }
    addInto(m, r);
  }
  return [...merged.values()].sort(
    (a, b) => a.date.localeCompare(b.date) || a.channel.localeCompare(b.channel),
  );
}

async function usage(s: Services, group: GroupType, range: { from: string; to: string; userId?: number }) {
  const q = s.repos.statistics;
  if (group === 'channel') {
    const rows = await q.byDateAndChannel(range);
    // Deleted channels keep their names: old usage still names them.
    const names = await s.repos.logs.channelNames(rows.map((r) => r.channelId));
    return rows.map(({ channelId, ...r }) => ({ ...r, channel: names.get(channelId) ?? '' }));
  }
  const rows = await q.byDateAndModel(range);
  if (group === 'model_type') return byOwner(s, rows);
  return rows.map(({ modelName, ...r }) => ({ ...r, channel: modelName }));
}

/**
 * GET /api/analytics/period?start_timestamp&end_timestamp&group_type&user_id: per UTC day over the
 * period, sign-ups, consumption grouped by model, owner or channel, redemptions and paid orders.
 * `user_id` narrows consumption, redemptions and orders to one user.
 */
export async function analyticsPeriod({ s, query }: RouteContext<unknown, PeriodQuery, unknown>) {
  const { from, to } = periodDates(s, query);
  const start = utcDayStart(from);
  const end = utcDayStart(to) + 86_400;
  const range = query.user_id !== undefined ? { from, to, userId: query.user_id } : { from, to };
  const q = s.repos.statistics;
  const [userStatistics, channelStatistics, redemptionStatistics, orderStatistics] = await Promise.all([
    q.registrationsByDay(start, end),
    usage(s, query.group_type, range),
    q.redemptionsByDay(start, end, query.user_id),
    q.ordersByDay(start, end, query.user_id),
  ]);
  return { from, to, userStatistics, channelStatistics, redemptionStatistics, orderStatistics };
}
