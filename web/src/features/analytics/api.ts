import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api-client';
import type { AnalyticsPeriod, AnalyticsStatistics } from './analytics-data';

export function useAnalyticsStatistics() {
  return useQuery({
    queryKey: ['/api/analytics/statistics'],
    queryFn: () => apiGet<AnalyticsStatistics>('/api/analytics/statistics'),
  });
}

/** Usage between two UTC days (inclusive), grouped by model, user or channel. */
export function useAnalyticsPeriod(start: string, end: string, group: string) {
  const startSeconds = Date.parse(`${start}T00:00:00Z`) / 1000;
  const endSeconds = Date.parse(`${end}T23:59:59Z`) / 1000;
  return useQuery({
    queryKey: ['/api/analytics/period', start, end, group],
    queryFn: () =>
      apiGet<AnalyticsPeriod>('/api/analytics/period', {
        query: { start_timestamp: startSeconds, end_timestamp: endSeconds, group_type: group },
      }),
    enabled: Number.isFinite(startSeconds) && Number.isFinite(endSeconds),
  });
}
