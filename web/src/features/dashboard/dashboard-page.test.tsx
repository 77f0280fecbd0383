import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { Profiler } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { selfQueryKey } from '../account/api';
import { dashboardQuery } from './api';
import DashboardPage from './dashboard-page';

vi.mock('../../lib/toast', () => ({ toast: { error: vi.fn(), info: vi.fn() } }));

const ok = (data: unknown) =>
  new Response(JSON.stringify({ success: true, message: '', data }), {
    headers: { 'Content-Type': 'application/json' },
  });

describe('DashboardPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('commits the figures cards first, with their figures, and the week, invite and models after', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => ok(url.endsWith('/api/user/aff') ? 'abc' : {})),
    );
    const client = new QueryClient();
    // What the route's loader leaves in the cache before the first render.
    client.setQueryData(selfQueryKey, {
      id: 1,
      username: 'amy',
      quota: 500_000,
      used_quota: 0,
      request_count: 7,
    });
    client.setQueryData(dashboardQuery.queryKey, []);
    const commits: { balance: string | null; week: boolean }[] = [];
    const snapshot = () =>
      commits.push({
        balance: document.querySelector('[data-testid="dashboard-balance"]')?.textContent ?? null,
        week: document.querySelector('[data-testid="dashboard-week-chart"]') !== null,
      });

    render(
      <QueryClientProvider client={client}>
        <Profiler id="dashboard" onRender={snapshot}>
          <DashboardPage />
        </Profiler>
      </QueryClientProvider>,
    );

    expect(commits[0]).toEqual({ balance: expect.stringMatching(/\d/), week: false });
    expect(await screen.findByTestId('dashboard-week-chart')).toBeTruthy();
    expect(await screen.findByTestId('dashboard-models')).toBeTruthy();
  });
});
