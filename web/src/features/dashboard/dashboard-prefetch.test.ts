import { QueryClient } from '@tanstack/react-query';
import type { RouteObject } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildRoutes } from '../../app/router';
import { selfQueryKey } from '../account/api';
import { dashboardQuery } from './api';

vi.mock('../../lib/toast', () => ({ toast: { error: vi.fn(), info: vi.fn() } }));

const ok = (data: unknown) =>
  new Response(JSON.stringify({ success: true, message: '', data }), {
    headers: { 'Content-Type': 'application/json' },
  });

/** The dashboard's route as the router resolves it: its lazy part (component and loader) merged in. */
async function dashboardRoute(client: QueryClient): Promise<RouteObject> {
  const panel = buildRoutes(client)[0]?.children?.[1];
  const route = panel?.children?.find((r) => r.path === 'dashboard');
  if (!route || typeof route.lazy !== 'function') throw new Error('no lazy dashboard route');
  return { ...route, ...(await route.lazy()) } as RouteObject;
}

describe("the dashboard route's loader", () => {
  afterEach(() => vi.unstubAllGlobals());

  it('puts the user and the week in the cache before the page is drawn', async () => {
    localStorage.setItem('user', JSON.stringify({ id: 3, username: 'amy', role: 1 }));
    const fetch = vi.fn(async (url: string) =>
      ok(url.endsWith('/api/user/self') ? { id: 3, username: 'amy', quota: 500 } : []),
    );
    vi.stubGlobal('fetch', fetch);
    const client = new QueryClient();
    const route = await dashboardRoute(client);
    expect(typeof route.loader).toBe('function');

    await (route.loader as () => Promise<unknown>)();

    expect(client.getQueryData(selfQueryKey)).toMatchObject({ quota: 500 });
    expect(client.getQueryData(dashboardQuery.queryKey)).toEqual([]);
  });

  it('asks for nothing without a session, and does not fail the route when a request fails', async () => {
    const fetch = vi.fn(async () => new Response('', { status: 500 }));
    vi.stubGlobal('fetch', fetch);
    const client = new QueryClient();
    const loader = (await dashboardRoute(client)).loader as () => Promise<unknown>;

    await loader();
    expect(fetch).not.toHaveBeenCalled();

    localStorage.setItem('user', JSON.stringify({ id: 3, username: 'amy', role: 1 }));
    await expect(loader()).resolves.toBeNull();
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});
