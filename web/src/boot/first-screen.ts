import { startLanguage } from '../i18n/start-language';
import { hasStoredUser } from '../lib/storage';

// The first screen's chunks, asked for while the entry bundle is still on the wire: the router and
// i18next would only discover the page's chunk and the language's texts once the entry has run, a
// round trip or two later. The build writes the plan into index.html (vite.config.ts); this module
// is a separate tiny entry of its own, so it runs long before the entry bundle arrives.

/** Chunk files (relative to the page's base) by first screen and by language. */
export interface FirstScreenPlan {
  /** Console path without the base path, e.g. '/login'. */
  screens: Record<string, string[]>;
  /** Language code, e.g. 'zh_CN'. */
  locales: Record<string, string[]>;
}

export const PLAN_ELEMENT_ID = 'switchyard-first-screen';

/** The path inside the console: '/a/b/login' under the base '/a/b' is '/login'. */
export function screenPath(pathname: string, basePath: string | undefined): string {
  const base = (basePath ?? '').replace(/^\/+|\/+$/g, '');
  let path = pathname;
  if (base !== '' && (path === `/${base}` || path.startsWith(`/${base}/`)))
    path = path.slice(base.length + 1);
  path = path.replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

/** The files to preload for this visit: the screen's chunks (if it is a planned one) and the language's. */
export function firstScreenFiles(
  plan: FirstScreenPlan,
  pathname: string,
  basePath: string | undefined,
  language: string,
): string[] {
  const screen = plan.screens[screenPath(pathname, basePath)] ?? [];
  return [...screen, ...(plan.locales[language] ?? [])];
}

/**
 * The API requests (relative to the page's base) a signed-in first screen shows at once, by console
 * path; the screen's own queries ask for the same URLs and are answered by these preloads.
 */
export const FIRST_REQUESTS: Record<string, readonly string[]> = {
  '/panel/dashboard': ['api/user/self', 'api/user/dashboard'],
};

/** The API requests to start for this visit: only with a session (otherwise they would answer 401). */
export function firstScreenRequests(
  pathname: string,
  basePath: string | undefined,
  signedIn: boolean,
): string[] {
  return signedIn ? [...(FIRST_REQUESTS[screenPath(pathname, basePath)] ?? [])] : [];
}

/**
 * Adds a `<link rel=modulepreload>` per file, and a fetch preload per API request of the screen; the
 * entry's own imports and fetches then find them in flight.
 */
export function preloadFirstScreen(doc: Document, win: Window): void {
  for (const url of firstScreenRequests(
    win.location.pathname,
    win.__SWITCHYARD__?.basePath,
    hasStoredUser(),
  )) {
    const link = doc.createElement('link');
    link.rel = 'preload';
    link.as = 'fetch';
    // Anonymous CORS is what a same-origin fetch() with credentials 'same-origin' asks for: a match.
    link.crossOrigin = 'anonymous';
    link.href = url;
    doc.head.appendChild(link);
  }
  const text = doc.getElementById(PLAN_ELEMENT_ID)?.textContent;
  if (!text) return;
  const plan = JSON.parse(text) as FirstScreenPlan;
  // The language i18n will start in, read the same way.
  const files = firstScreenFiles(plan, win.location.pathname, win.__SWITCHYARD__?.basePath, startLanguage());
  for (const file of files) {
    const link = doc.createElement('link');
    link.rel = 'modulepreload';
    // The same credentials mode as Vite's module scripts and preloads, so the browser reuses the fetch.
    link.crossOrigin = '';
    link.href = file;
    doc.head.appendChild(link);
  }
}
