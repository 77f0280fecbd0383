import { useState } from 'react';
import { createBrowserRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { basePath } from '../lib/base-path';
import { AppProviders } from './providers';
import { buildRoutes } from './router';

export function App() {
  const [router] = useState(() => createBrowserRouter(buildRoutes(), { basename: basePath }));
  return (
    <AppProviders>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
