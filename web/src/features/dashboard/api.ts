import { useEarlyQuery } from '../../app/query-client';
import { apiGet } from '../../lib/api-client';

/** One row of GET /api/user/dashboard: the caller's usage on one UTC day with one model. */
export interface DailyModelUsage {
  date: string;
  modelName: string;
  requestCount: number;
  quota: number;
  promptTokens: number;
  completionTokens: number;
  requestTime: number;
}

export const dashboardQuery = {
  queryKey: ['user', 'dashboard'],
  queryFn: () => apiGet<DailyModelUsage[]>('/api/user/dashboard'),
  staleTime: 30_000,
};

export function useDashboard() {
  return useEarlyQuery(dashboardQuery);
}
