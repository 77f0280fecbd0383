import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TokenDialog } from './token-dialog';

// The dialog against a fake /api speaking the server's envelope; what it sends is what matters.
function serve(sent: { method: string; path: string; body: unknown }[]) {
  return vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const method = init?.method ?? 'GET';
    sent.push({ method, path: url.pathname, body: init?.body ? JSON.parse(String(init.body)) : undefined });
    const data =
      url.pathname === '/api/user_group_map'
        ? { vip: { id: 2, symbol: 'vip', name: 'VIP', ratio: 2, public: true, api_rate: 0 } }
        : url.pathname === '/api/status'
          ? { quota_per_unit: 500000, display_in_currency: true }
          : { id: 9, key: 'sk-new' };
    return new Response(JSON.stringify({ success: true, message: '', data }));
  });
}

function renderDialog(onSaved = vi.fn()) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <TokenDialog token={null} onClose={() => {}} onSaved={onSaved} />
    </QueryClientProvider>,
  );
  return onSaved;
}

describe('TokenDialog', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('checks the name before sending anything', async () => {
    const sent: { method: string; path: string; body: unknown }[] = [];
    vi.stubGlobal('fetch', serve(sent));
    renderDialog();
    fireEvent.click(screen.getByTestId('token-submit'));
    expect(await screen.findByText('此项为必填项')).toBeTruthy();
    fireEvent.change(screen.getByTestId('token-name'), { target: { value: 'x'.repeat(31) } });
    expect(await screen.findByText('名称最多 30 个字符')).toBeTruthy();
    expect(sent.filter((s) => s.method === 'POST')).toEqual([]);
  });

  it('sends a currency amount as raw quota and "never" as -1', async () => {
    const sent: { method: string; path: string; body: unknown }[] = [];
    vi.stubGlobal('fetch', serve(sent));
    const onSaved = renderDialog();
    fireEvent.change(screen.getByTestId('token-name'), { target: { value: ' ci ' } });
    fireEvent.change(screen.getByTestId('token-quota'), { target: { value: '2.5' } });
    fireEvent.click(screen.getByTestId('token-submit'));
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith({ id: 9, key: 'sk-new' }));
    expect(sent.find((s) => s.method === 'POST')).toEqual({
      method: 'POST',
      path: '/api/token',
      body: {
        name: 'ci',
        expired_time: -1,
        remain_quota: 1250000,
        unlimited_quota: false,
        group: '',
        models: null,
        subnet: '',
      },
    });
  });
});
