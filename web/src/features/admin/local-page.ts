import type { Page } from '@switchyard/domain';

// Some lists come whole from the server (prices, model owners). They are paged, filtered and sorted
// here with the same URL state as the server-paged lists, so every screen behaves alike.

export function pageLocally<T>(
  rows: readonly T[],
  state: { page: number; size: number; order: string },
  keep: (row: T) => boolean = () => true,
): Page<T> {
  let matched = rows.filter(keep);
  const first = state.order.split(',')[0]?.trim() ?? '';
  if (first) {
    const desc = first.startsWith('-');
    const field = desc ? first.slice(1) : first;
    matched = [...matched].sort((a, b) => {
      const x = (a as Record<string, unknown>)[field];
      const y = (b as Record<string, unknown>)[field];
      const cmp =
        typeof x === 'number' && typeof y === 'number'
          ? x - y
          : String(x ?? '').localeCompare(String(y ?? ''));
      return desc ? -cmp : cmp;
    });
  }
  const start = (state.page - 1) * state.size;
  return {
    data: matched.slice(start, start + state.size),
    page: state.page,
    size: state.size,
    total_count: matched.length,
  };
}
