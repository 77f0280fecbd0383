import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NoticeProvider, useNotice } from './notice-provider';

function Bell() {
  const { openNotice } = useNotice();
  return (
    <button type="button" onClick={openNotice}>
      bell
    </button>
  );
}

async function start(notice: string) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(JSON.stringify({ success: true, message: '', data: notice }))),
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const view = render(
    <QueryClientProvider client={client}>
      <NoticeProvider>
        <Bell />
      </NoticeProvider>
    </QueryClientProvider>,
  );
  await waitFor(() => expect(client.getQueryState(['notice'])?.status).toBe('success'));
  return view;
}

describe('NoticeProvider', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('opens by itself for a text not seen before, and remembers it', async () => {
    await start('**Maintenance** tonight');
    expect(await screen.findByRole('dialog', { name: '公告' })).toBeTruthy();
    expect((await screen.findByText('Maintenance')).tagName).toBe('STRONG');
    expect(localStorage.getItem('notice')).toBe('**Maintenance** tonight');
  });

  it('stays closed for the text already seen, until the bell is pressed', async () => {
    localStorage.setItem('notice', 'same text');
    await start('same text');
    expect(screen.queryByRole('dialog')).toBeNull();
    await act(async () => fireEvent.click(screen.getByText('bell')));
    const dialog = await screen.findByRole('dialog', { name: '公告' });
    // The Markdown renderer is loaded with the first notice.
    await waitFor(() => expect(dialog.textContent).toContain('same text'));
  });

  it('opens again when the text changes', async () => {
    localStorage.setItem('notice', 'old text');
    await start('new text');
    const dialog = await screen.findByRole('dialog', { name: '公告' });
    // The Markdown renderer is loaded with the first notice.
    await waitFor(() => expect(dialog.textContent).toContain('new text'));
  });

  it('stays closed when there is no notice', async () => {
    await start('');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(localStorage.getItem('notice')).toBeNull();
  });
});
