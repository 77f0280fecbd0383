import { describe, expect, it } from 'vitest';
import { readTableState, sortOf, toApiQuery, toggleSort, writeTableState } from './table-url-state';

const options = { filters: ['keyword', 'status'] as const, defaultOrder: '-id' };

describe('table state in the URL', () => {
  it('reads defaults from an empty query', () => {
    expect(readTableState(new URLSearchParams(), options)).toEqual({
      page: 1,
      size: 10,
      order: '-id',
      filters: { keyword: '', status: '' },
    });
  });

  it('reads page, size, order and filters, ignoring unknown parameters', () => {
    const state = readTableState(
      new URLSearchParams('page=3&size=50&order=priority&keyword=gpt&x=1'),
      options,
    );
    expect(state).toEqual({ page: 3, size: 50, order: 'priority', filters: { keyword: 'gpt', status: '' } });
  });

  it('falls back for a page below 1, a non-number, or a size the server refuses', () => {
    const state = readTableState(new URLSearchParams('page=0&size=500'), options);
    expect(state.page).toBe(1);
    expect(state.size).toBe(10);
    expect(readTableState(new URLSearchParams('page=abc&size=7'), options)).toMatchObject({
      page: 1,
      size: 10,
    });
  });

  it('writes only what differs from the defaults and keeps other parameters', () => {
    const next = writeTableState(
      new URLSearchParams('tab=2&keyword=old'),
      { page: 1, size: 10, order: '-id', filters: { keyword: '', status: '2' } },
      options,
    );
    expect(next.toString()).toBe('tab=2&status=2');
    const round = writeTableState(
      new URLSearchParams(),
      { page: 4, size: 30, order: 'name', filters: { keyword: 'a b', status: '' } },
      options,
    );
    expect(readTableState(round, options)).toEqual({
      page: 4,
      size: 30,
      order: 'name',
      filters: { keyword: 'a b', status: '' },
    });
  });

  it('sends the list endpoint page, size, order and the filters that are set', () => {
    expect(toApiQuery({ page: 2, size: 30, order: '-id', filters: { keyword: 'x', status: '' } })).toEqual({
      page: 2,
      size: 30,
      order: '-id',
      keyword: 'x',
    });
    expect(toApiQuery({ page: 1, size: 10, order: '', filters: {} })).toEqual({ page: 1, size: 10 });
  });

  it('toggles a column ascending, then descending, then ascending', () => {
    expect(toggleSort('-id', 'name')).toBe('name');
    expect(toggleSort('name', 'name')).toBe('-name');
    expect(toggleSort('-name', 'name')).toBe('name');
    expect(sortOf('-name,id', 'name')).toBe('desc');
    expect(sortOf('name', 'name')).toBe('asc');
    expect(sortOf('id', 'name')).toBeNull();
  });
});
