import type { QueryClient } from '@tanstack/react-query';
import { createBrowserRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { basePath } from '../lib/base-path';
import { AppProviders } from './providers';
import { buildRoutes } from './router';

export type AppRouter = ReturnType<typeof createBrowserRouter>;

/** The router starts loading the current route's page chunk as soon as it exists. */
export function createAppRouter(client: QueryClient): AppRouter {
  return createBrowserRouter(buildRoutes(client), { basename: basePath });
}

/**
 * Settles once the first route's page module and its first data are in (or have failed: the route
 * then shows its error).
 */
export function routerReady(router: AppRouter): Promise<void> {
  if (router.state.initialized) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = router.subscribe((state) => {
      if (!state.initialized) return;
      stop();
      resolve();
    });
  });
}

export function App({ router, queryClient }: { router: AppRouter; queryClient: QueryClient }) {
  return (
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
