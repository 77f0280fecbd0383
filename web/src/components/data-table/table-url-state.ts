// The list state of one table, as it lives in the URL: the API's own query names (page, size,
// order, filters) so that a copied link reproduces the view and the query passes straight through.

export const PAGE_SIZES = [10, 30, 50, 100] as const;
export const DEFAULT_SIZE = 10;

export type SortDirection = 'asc' | 'desc';

export interface TableState<F extends string = string> {
  page: number;
  size: number;
  /** The API's `order` value: a field, `-field` for descending; '' means the server's default. */
  order: string;
  filters: Record<F, string>;
}

export interface TableStateOptions<F extends string> {
  /** Filter names read from and written to the URL. */
  filters: readonly F[];
  defaultOrder?: string;
  defaultSize?: number;
}

function positiveInt(raw: string | null, fallback: number): number {
  if (raw === null || !/^\d+$/.test(raw)) return fallback;
  const value = Number(raw);
  return value >= 1 ? value : fallback;
}

export function readTableState<F extends string>(
  params: URLSearchParams,
  options: TableStateOptions<F>,
): TableState<F> {
  const defaultSize = options.defaultSize ?? DEFAULT_SIZE;
  const size = positiveInt(params.get('size'), defaultSize);
  const filters = {} as Record<F, string>;
  for (const name of options.filters) filters[name] = params.get(name) ?? '';
  return {
    page: positiveInt(params.get('page'), 1),
    // An edited URL with a size the server refuses falls back instead of failing the whole screen.
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : defaultSize,
    order: params.get('order') ?? options.defaultOrder ?? '',
    filters,
  };
}

/** The URL for `state`, keeping unrelated parameters and leaving defaults out so links stay short. */
export function writeTableState<F extends string>(
  params: URLSearchParams,
  state: TableState<F>,
  options: TableStateOptions<F>,
): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (key: string, value: string, fallback: string) => {
    if (value === fallback || value === '') next.delete(key);
    else next.set(key, value);
  };
  set('page', String(state.page), '1');
  set('size', String(state.size), String(options.defaultSize ?? DEFAULT_SIZE));
  set('order', state.order, options.defaultOrder ?? '');
  for (const name of options.filters) set(name, state.filters[name] ?? '', '');
  return next;
}

/** The query string values for the list endpoint: empty filters are not sent. */
export function toApiQuery<F extends string>(state: TableState<F>): Record<string, string | number> {
  const query: Record<string, string | number> = { page: state.page, size: state.size };
  if (state.order) query.order = state.order;
  for (const [name, value] of Object.entries<string>(state.filters)) {
    if (value !== '') query[name] = value;
  }
  return query;
}

/** The direction `field` is sorted in by `order` (its first term only), or null. */
export function sortOf(order: string, field: string): SortDirection | null {
  const first = order.split(',')[0]?.trim() ?? '';
  if (first === field) return 'asc';
  if (first === `-${field}`) return 'desc';
  return null;
}

/** Clicking a header: ascending first, then descending, then ascending again. */
export function toggleSort(order: string, field: string): string {
  return sortOf(order, field) === 'asc' ? `-${field}` : field;
}
