import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n';
import { type DataColumn, DataTable, type RowKey } from './data-table';
import { useTableQuery } from './use-table-query';
import { useTableState } from './use-table-state';

interface Item {
  id: number;
  name: string;
  members?: Item[];
}

const ITEMS: Item[] = Array.from({ length: 25 }, (_, i) => ({ id: i + 1, name: `item-${i + 1}` }));

// A list endpoint speaking the server's paging: page/size/order/keyword in, {data,page,size,total_count} out.
function serveItems(items: Item[], calls: URL[]) {
  return vi.fn(async (input: string | URL | Request) => {
    const url = new URL(String(input), 'http://localhost');
    calls.push(url);
    const page = Number(url.searchParams.get('page'));
    const size = Number(url.searchParams.get('size'));
    const keyword = url.searchParams.get('keyword') ?? '';
    const order = url.searchParams.get('order') ?? '-id';
    const desc = order.startsWith('-');
    const matched = items
      .filter((item) => item.name.includes(keyword))
      .sort((a, b) => (desc ? b.id - a.id : a.id - b.id));
    const data = matched.slice((page - 1) * size, page * size);
    return new Response(
      JSON.stringify({ success: true, message: '', data: { data, page, size, total_count: matched.length } }),
    );
  });
}

const columns: DataColumn<Item>[] = [
  { id: 'id', header: 'ID', cell: (row) => row.id, sortField: 'id', hideable: false },
  { id: 'name', header: 'Name', cell: (row) => row.name },
];

let location = '';
function Where() {
  location = useLocation().search;
  return null;
}

function ItemsScreen({ grouped = false }: { grouped?: boolean }) {
  const controls = useTableState({ filters: ['keyword'], defaultOrder: '-id' });
  const query = useTableQuery<Item>('/api/items', controls);
  const [selected, setSelected] = useState<Set<RowKey>>(new Set());
  return (
    <>
      <Where />
      <DataTable
        tableId="items"
        columns={columns}
        controls={controls}
        query={query}
        rowKey={(row) => row.id}
        filterBar={
          <button type="button" onClick={() => controls.setFilters({ keyword: 'item-2' })}>
            filter
          </button>
        }
        rowActions={(row) => <span>act-{row.id}</span>}
        selection={{ selected, onChange: setSelected }}
        subRows={grouped ? (row) => row.members : undefined}
      />
      <output data-testid="selected">{[...selected].join(',')}</output>
    </>
  );
}

function start(initial = '/items', element = <ItemsScreen />) {
  const router = createMemoryRouter([{ path: '/items', element }], { initialEntries: [initial] });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

const bodyRows = () => screen.getAllByTestId(/^row-/);

describe('DataTable', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the first page with the total, then pages through the server', async () => {
    const calls: URL[] = [];
    vi.stubGlobal('fetch', serveItems(ITEMS, calls));
    start();
    expect(screen.getByText('加载中…')).toBeTruthy();
    await screen.findByText('item-25');
    expect(bodyRows()).toHaveLength(10);
    expect(screen.getByText('第 1–10 条，共 25 条')).toBeTruthy();
    expect(calls[0]?.searchParams.toString()).toBe('page=1&size=10&order=-id');

    await act(async () => fireEvent.click(screen.getByLabelText('下一页')));
    await screen.findByText('item-15');
    expect(location).toBe('?page=2');
    expect(calls.at(-1)?.searchParams.get('page')).toBe('2');
  });

  it('starts from the state in the URL and sorts through the header', async () => {
    const calls: URL[] = [];
    vi.stubGlobal('fetch', serveItems(ITEMS, calls));
    start('/items?page=3&size=10');
    await screen.findByText('item-5');
    expect(bodyRows()).toHaveLength(5);

    await act(async () => fireEvent.click(screen.getByText('ID')));
    await screen.findByText('item-1');
    expect(location).toBe('?order=id');
    expect(calls.at(-1)?.searchParams.get('order')).toBe('id');
    expect(screen.getByText('ID').closest('th')?.getAttribute('aria-sort')).toBe('ascending');
  });

  it('a filter goes to the URL and the query, and sends the page back to 1', async () => {
    const calls: URL[] = [];
    vi.stubGlobal('fetch', serveItems(ITEMS, calls));
    start('/items?page=2');
    await screen.findByText('item-15');
    await act(async () => fireEvent.click(screen.getByText('filter')));
    await waitFor(() => expect(location).toBe('?keyword=item-2'));
    await waitFor(() => expect(bodyRows()).toHaveLength(7)); // item-2, item-20..25
    expect(calls.at(-1)?.searchParams.get('keyword')).toBe('item-2');
    expect(calls.at(-1)?.searchParams.get('page')).toBe('1');
  });

  it('says when there is nothing to show, in the current language', async () => {
    vi.stubGlobal('fetch', serveItems([], []));
    await i18n.changeLanguage('en_US');
    start();
    expect(await screen.findByText('No data')).toBeTruthy();
  });

  it('offers a retry when loading fails', async () => {
    let fail = true;
    const ok = serveItems(ITEMS, []);
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: string) =>
        fail ? new Response('{"success":false,"message":"boom"}', { status: 500 }) : ok(input),
      ),
    );
    start();
    expect(await screen.findByText('数据加载失败。')).toBeTruthy();
    fail = false;
    await act(async () => fireEvent.click(screen.getByText('重试')));
    expect(await screen.findByText('item-25')).toBeTruthy();
  });

  it('selects rows and whole pages for batch actions', async () => {
    vi.stubGlobal('fetch', serveItems(ITEMS, []));
    start();
    await screen.findByText('item-25');
    await act(async () => fireEvent.click(screen.getAllByLabelText('选择此行')[0] as HTMLElement));
    expect(screen.getByTestId('selected').textContent).toBe('25');
    await act(async () => fireEvent.click(screen.getByLabelText('选择本页全部')));
    expect(screen.getByTestId('selected').textContent?.split(',')).toHaveLength(10);
    await act(async () => fireEvent.click(screen.getByLabelText('选择本页全部')));
    expect(screen.getByTestId('selected').textContent).toBe('');
  });

  it('hides a column from the column menu and remembers it', async () => {
    vi.stubGlobal('fetch', serveItems(ITEMS, []));
    const view = start();
    await screen.findByText('item-25');
    await act(async () => fireEvent.click(screen.getByLabelText('显示的列')));
    const menu = await screen.findByRole('menu');
    expect(within(menu).queryByText('ID')).toBeNull(); // not hideable
    await act(async () => fireEvent.click(within(menu).getByText('Name')));
    expect(screen.queryByText('item-25')).toBeNull();
    expect(JSON.parse(localStorage.getItem('table-columns:items') ?? '[]')).toEqual(['name']);
    view.unmount();
    start();
    await screen.findAllByText(/^act-/);
    expect(screen.queryByText('item-25')).toBeNull();
  });

  it('shows row actions and expands grouped rows into their members', async () => {
    const groups: Item[] = [
      { id: 100, name: 'tag-a', members: [ITEMS[0] as Item, ITEMS[1] as Item] },
      { id: 3, name: 'item-3' },
    ];
    vi.stubGlobal('fetch', serveItems(groups, []));
    start('/items', <ItemsScreen grouped />);
    await screen.findByText('tag-a');
    expect(screen.getByText('act-100')).toBeTruthy();
    expect(screen.queryByText('item-1')).toBeNull();
    const toggle = screen.getByLabelText('展开');
    expect(screen.getAllByLabelText('展开')).toHaveLength(1);
    await act(async () => fireEvent.click(toggle));
    expect(screen.getByText('item-1')).toBeTruthy();
    expect(screen.getByText('item-2')).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByLabelText('收起')));
    expect(screen.queryByText('item-1')).toBeNull();
  });
});
