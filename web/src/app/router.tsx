import type { QueryClient } from '@tanstack/react-query';
import { Navigate, type RouteObject } from 'react-router';
import { TopProgress } from '../components/top-progress';
import { RouteErrorPage } from '../features/errors/error-fallback';
import { ConsoleLayout } from './layouts/console-layout';
import { PublicLayout } from './layouts/public-layout';
import { RequireAdmin, RequireAuth } from './layouts/require-auth';
import { RootLayout } from './layouts/root-layout';
import { PANEL_BASE, PANEL_HOME } from './panel-paths';
import type { RouteHandle } from './route-handle';
import { adminOnlyPaths, menu, type PageRoute, panelRoutes, publicRoutes } from './routes';

function pageRoute(page: PageRoute, client: QueryClient): RouteObject {
  const handle: RouteHandle = { title: page.title };
  const lazy = async () => {
    const { default: Component, prefetch } = await page.load();
    // A loader: the router (and so the first render) waits for the page's first data.
    return prefetch ? { Component, loader: () => prefetch(client).then(() => null) } : { Component };
  };
  // Each page has its own error element so the layout (and its navigation) survives a broken page.
  const common = { handle, lazy, errorElement: <RouteErrorPage /> };
  return page.path === '' ? { index: true, ...common } : { path: page.path, ...common };
}

/** The router's tree, built from the routes table. */
export function buildRoutes(client: QueryClient): RouteObject[] {
  const adminPaths = adminOnlyPaths(menu);
  return [
    {
      id: 'root',
      element: <RootLayout />,
      errorElement: <RouteErrorPage />,
      hydrateFallbackElement: <TopProgress />,
      children: [
        { element: <PublicLayout />, children: publicRoutes.map((page) => pageRoute(page, client)) },
        {
          path: 'panel',
          element: (
            <RequireAuth>
              <ConsoleLayout />
            </RequireAuth>
          ),
          children: [
            { index: true, element: <Navigate to={PANEL_HOME} replace /> },
            ...panelRoutes
              .filter((page) => !adminPaths.has(page.path))
              .map((page) => pageRoute(page, client)),
            {
              element: <RequireAdmin />,
              children: panelRoutes
                .filter((page) => adminPaths.has(page.path))
                .map((page) => pageRoute(page, client)),
            },
            { path: '*', element: <Navigate to={`${PANEL_BASE}/404`} replace /> },
          ],
        },
        { path: '*', element: <Navigate to="/404" replace /> },
      ],
    },
  ];
}
