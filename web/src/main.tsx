import './lib/zod-jitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, createAppRouter, routerReady } from './app/app';
import { createQueryClient } from './app/query-client';
import { initI18n } from './i18n';

const root = document.getElementById('root');
const queryClient = createQueryClient();
// The page's chunk loads while the language's texts do: the router asks for it when it is created.
const router = createAppRouter(queryClient);
// The first paint waits for the language's texts (no key flashes on screen) and for the page and its
// first data, so the screen is drawn once, whole, instead of the layout first and the page in a second,
// sliced render.
void Promise.allSettled([initI18n(), routerReady(router)]).finally(() => {
  if (root) {
    createRoot(root).render(
      <StrictMode>
        <App router={router} queryClient={queryClient} />
      </StrictMode>,
    );
  }
});
