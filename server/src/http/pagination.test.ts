import { describe, expect, it } from 'vitest';
import { pageQuery, pageResult } from './pagination.js';

describe('pageQuery', () => {
  const q = pageQuery(['id', 'name', 'created_time'] as const);

  it('defaults to page 1, size 10, newest first', () => {
    expect(q.parse({})).toEqual({
      page: 1,
      size: 10,
      offset: 0,
      order: [{ column: 'id', direction: 'desc' }],
    });
  });

  it('clamps pages below 1 and computes the offset', () => {
    expect(q.parse({ page: '0', size: '30' })).toMatchObject({ page: 1, offset: 0 });
    expect(q.parse({ page: '3', size: '30' })).toMatchObject({ page: 3, size: 30, offset: 60 });
  });

  it('refuses a size over 100 and unknown order fields', () => {
    expect(q.safeParse({ size: '101' }).success).toBe(false);
    const bad = q.safeParse({ order: 'name,-password' });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain('password');
  });

  it('reads several order fields with directions', () => {
    expect(q.parse({ order: '-created_time,name' }).order).toEqual([
      { column: 'created_time', direction: 'desc' },
      { column: 'name', direction: 'asc' },
    ]);
  });

  it('shapes a page of results', () => {
    expect(pageResult({ page: 2, size: 10 }, ['a'], 11)).toEqual({
      data: ['a'],
      page: 2,
      size: 10,
      total_count: 11,
    });
  });
});
