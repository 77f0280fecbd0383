import { useQuery } from '@tanstack/react-query';
import { type TableControls, useTableQuery } from '../../components/data-table';
import { apiGet, type QueryValue } from '../../lib/api-client';

// An administrator reads every log (/api/log), a user their own (/api/log/self).
const logPath = (admin: boolean) => (admin ? '/api/log' : '/api/log/self');

export function useLogPage<T>(admin: boolean, controls: TableControls) {
  return useTableQuery<T>(logPath(admin), controls);
}

/** The quota the logs matching the filters add up to. */
export function useLogTotal(admin: boolean, query: Record<string, QueryValue>) {
  const path = `${logPath(admin)}/stat`;
  return useQuery({
    queryKey: [path, query],
    queryFn: () => apiGet<{ quota: number }>(path, { query }),
  });
}
