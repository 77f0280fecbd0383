import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type DataColumn, useTableQuery, useTableState } from '../data-table';
import { ListScreen } from './list-screen';

interface Item {
  id: number;
  name: string;
  enabled: boolean;
}

const ITEMS: Item[] = Array.from({ length: 12 }, (_, i) => ({
  id: i + 1,
  name: `item-${i + 1}`,
  enabled: i % 2 === 0,
}));

// A list endpoint speaking the server's paging (newest first), filtered by `keyword` and `enabled` (1 / 0).
function serveItems(calls: URL[]) {
  return vi.fn(async (input: string | URL | Request) => {
    const url = new URL(String(input), 'http://localhost');
    calls.push(url);
    const page = Number(url.searchParams.get('page'));
    const size = Number(url.searchParams.get('size'));
    const keyword = url.searchParams.get('keyword') ?? '';
    const enabled = url.searchParams.get('enabled');
    const matched = ITEMS.filter(
      (item) => item.name.includes(keyword) && (enabled === null || item.enabled === (enabled === '1')),
    ).sort((a, b) => b.id - a.id);
    const data = matched.slice((page - 1) * size, page * size);
    return new Response(
      JSON.stringify({ success: true, message: '', data: { data, page, size, total_count: matched.length } }),
    );
  });
}

const columns: DataColumn<Item>[] = [
  { id: 'id', header: 'ID', cell: (row) => row.id, hideable: false },
  { id: 'name', header: 'Name', cell: (row) => row.name },
];

let location = '';
function Where() {
  location = useLocation().search;
  return null;
}

function ItemsScreen(props: {
  onEdit: (item: Item) => void;
  onDelete: (item: Item) => void;
  onCreate: () => void;
}) {
  const controls = useTableState({ filters: ['keyword', 'enabled'], defaultOrder: '-id' });
  const query = useTableQuery<Item>('/api/items', controls);
  return (
    <>
      <Where />
      <ListScreen
        tableId="items"
        columns={columns}
        controls={controls}
        query={query}
        rowKey={(row) => row.id}
        create={{ label: 'New item', run: props.onCreate }}
        filters={[
          { kind: 'search', name: 'keyword', label: 'Search' },
          {
            kind: 'select',
            name: 'enabled',
            label: 'State',
            options: [
              { value: '', label: 'All' },
              { value: '1', label: 'On' },
              { value: '0', label: 'Off' },
            ],
          },
        ]}
        rowActions={[
          { label: 'Edit', icon: <span>e</span>, run: props.onEdit, hidden: (row) => row.id === 12 },
          {
            label: 'Delete',
            icon: <span>d</span>,
            confirm: (row) => `Delete ${row.name}?`,
            disabled: (row) => row.id === 11,
            run: props.onDelete,
          },
        ]}
      />
    </>
  );
}

function start(props: Parameters<typeof ItemsScreen>[0], initial = '/items') {
  const router = createMemoryRouter([{ path: '/items', element: <ItemsScreen {...props} /> }], {
    initialEntries: [initial],
  });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

// Each step waits on a fetch and a render; a busy machine takes longer than the default second.
configure({ asyncUtilTimeout: 5000 });

const handlers = () => ({ onEdit: vi.fn(), onDelete: vi.fn(), onCreate: vi.fn() });

describe('ListScreen', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('binds the described filters to the URL and the list query', async () => {
    const calls: URL[] = [];
    vi.stubGlobal('fetch', serveItems(calls));
    start(handlers(), '/items?enabled=0');
    await screen.findByText('item-12');
    expect(calls.at(-1)?.searchParams.get('enabled')).toBe('0');
    expect(screen.queryByText('item-11')).toBeNull();

    fireEvent.change(screen.getByLabelText('Search'), { target: { value: 'item-1' } });
    fireEvent.keyDown(screen.getByLabelText('Search'), { key: 'Enter' });
    await waitFor(() => expect(location).toBe('?enabled=0&keyword=item-1'));
    await waitFor(() => expect(calls.at(-1)?.searchParams.get('keyword')).toBe('item-1'));
    await waitFor(() => expect(screen.queryByText('item-2')).toBeNull());
    expect(screen.getByText('item-10')).toBeTruthy();

    // The select offers the described options; "All" clears the filter.
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'State' }));
    await act(async () => fireEvent.click(await screen.findByRole('option', { name: 'All' })));
    await waitFor(() => expect(location).toBe('?keyword=item-1'));
    await screen.findByText('item-11');
  }, 30_000);

  it('row buttons: hidden and disabled per row, a confirmation before the action, the create button', async () => {
    vi.stubGlobal('fetch', serveItems([]));
    const on = handlers();
    start(on);
    const row = (id: number) => screen.getByTestId(`row-${id}`);
    await screen.findByText('item-12');

    expect(within(row(12)).queryByRole('button', { name: 'Edit' })).toBeNull();
    fireEvent.click(within(row(10)).getByRole('button', { name: 'Edit' }));
    expect(on.onEdit).toHaveBeenCalledWith(ITEMS[9]);
    expect(within(row(11)).getByRole('button', { name: 'Delete' })).toHaveProperty('disabled', true);

    // Declined: nothing deleted.
    fireEvent.click(within(row(10)).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Delete item-10?')).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: '取消' })));
    await waitFor(() => expect(screen.queryByText('Delete item-10?')).toBeNull());
    expect(on.onDelete).not.toHaveBeenCalled();

    // Confirmed: deleted once (the page is accessible again once the dialog has gone).
    fireEvent.click(await within(row(10)).findByRole('button', { name: 'Delete' }));
    await screen.findByText('Delete item-10?');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: '确认' })));
    await waitFor(() => expect(on.onDelete).toHaveBeenCalledTimes(1));
    expect(on.onDelete).toHaveBeenCalledWith(ITEMS[9]);

    await waitFor(() => expect(screen.queryByText('Delete item-10?')).toBeNull());
    fireEvent.click(await screen.findByRole('button', { name: 'New item' }));
    expect(on.onCreate).toHaveBeenCalledTimes(1);
  }, 30_000);
});
