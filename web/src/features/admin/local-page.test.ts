import { describe, expect, it } from 'vitest';
import { pageLocally } from './local-page';

const rows = [
  { id: 3, name: 'c' },
  { id: 1, name: 'a' },
  { id: 2, name: 'b' },
];

describe('pageLocally', () => {
  it('sorts by the first order term and slices the page', () => {
    expect(pageLocally(rows, { page: 1, size: 2, order: 'id' })).toEqual({
      data: [rows[1], rows[2]],
      page: 1,
      size: 2,
      total_count: 3,
    });
    expect(pageLocally(rows, { page: 2, size: 2, order: '-name' }).data).toEqual([rows[1]]);
  });

  it('counts only the rows kept by the filter', () => {
    const page = pageLocally(rows, { page: 1, size: 10, order: '' }, (r) => r.id > 1);
    expect(page.total_count).toBe(2);
    expect(page.data.map((r) => r.id)).toEqual([3, 2]);
  });
});
