import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import {
  readTableState,
  type TableState,
  type TableStateOptions,
  toApiQuery,
  toggleSort,
  writeTableState,
} from './table-url-state';

export interface TableControls<F extends string = string> {
  state: TableState<F>;
  /** The list endpoint's query for this state. */
  apiQuery: Record<string, string | number>;
  setPage: (page: number) => void;
  setSize: (size: number) => void;
  /** Sort by a field, toggling its direction when already sorted by it. */
  sortBy: (field: string) => void;
  /** Changes filters; the page goes back to 1 because the old page may no longer exist. */
  setFilters: (filters: Partial<Record<F, string>>) => void;
  resetFilters: () => void;
}

/** Page, size, order and filters of one list screen, kept in the URL's query string. */
export function useTableState<const F extends string>(options: TableStateOptions<F>): TableControls<F> {
  const [params, setParams] = useSearchParams();
  const { filters: names, defaultOrder, defaultSize } = options;
  // The options object is usually written inline; its content is what matters.
  // biome-ignore lint/correctness/useExhaustiveDependencies: names are compared by value
  const stable = useMemo(
    () => ({ filters: names, defaultOrder, defaultSize }),
    [names.join(','), defaultOrder, defaultSize],
  );
  const state = useMemo(() => readTableState(params, stable), [params, stable]);

  const update = useCallback(
    (change: (current: TableState<F>) => TableState<F>) => {
      setParams((current) => writeTableState(current, change(readTableState(current, stable)), stable), {
        replace: false,
      });
    },
    [setParams, stable],
  );

  return {
    state,
    apiQuery: useMemo(() => toApiQuery(state), [state]),
    setPage: useCallback((page) => update((s) => ({ ...s, page: Math.max(1, page) })), [update]),
    setSize: useCallback((size) => update((s) => ({ ...s, size, page: 1 })), [update]),
    sortBy: useCallback(
      (field) => update((s) => ({ ...s, order: toggleSort(s.order, field), page: 1 })),
      [update],
    ),
    setFilters: useCallback(
      (filters) => update((s) => ({ ...s, page: 1, filters: { ...s.filters, ...filters } })),
      [update],
    ),
    resetFilters: useCallback(
      () =>
        update((s) => ({
          ...s,
          page: 1,
          filters: Object.fromEntries(stable.filters.map((name) => [name, ''])) as Record<F, string>,
        })),
      [update, stable],
    ),
  };
}
