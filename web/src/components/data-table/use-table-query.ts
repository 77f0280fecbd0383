import type { Page } from '@switchyard/domain';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api-client';
import type { TableControls } from './use-table-state';

/**
 * One page of a list endpoint for the table's current state. The previous page stays on screen while
 * the next loads, so paging does not flash an empty table.
 */
export function useTableQuery<T, F extends string = string>(path: string, table: TableControls<F>) {
  return useQuery({
    queryKey: [path, table.apiQuery],
    queryFn: ({ signal }) => apiGet<Page<T>>(path, { query: table.apiQuery, signal }),
    placeholderData: keepPreviousData,
  });
}
