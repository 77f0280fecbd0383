import { addDays, utcDate } from '../../db/queries/statistics.js';
import type { RouteContext } from '../../http/route.js';

// The user's dashboard, with camelCase keys (one-hub's answer has PascalCase ones). It reads the
// daily rollup kept by jobs/statistics-rollup.ts, never the logs.

/** Days shown: today and the six before it (UTC). */
export const DASHBOARD_DAYS = 7;

/**
 * GET /api/user/dashboard: the caller's usage per day and model over the last seven days, oldest
 * first: `{date, modelName, requestCount, quota, promptTokens, completionTokens, requestTime}`.
 * Days without usage have no rows.
 */
export async function userDashboard({ s, caller }: RouteContext<unknown, unknown, unknown>) {
  const today = utcDate(s.clock.nowSeconds());
  return s.repos.statistics.byDateAndModel({
    from: addDays(today, -(DASHBOARD_DAYS - 1)),
    to: today,
    userId: caller!.user.id,
  });
}
