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
  /** Used when neither the saved choice nor the cached server default names a language. */
  fallbackLanguage: string;
  /** The local-storage keys of the saved language and of the cached GET /api/status. */
  keys: { language: string; siteInfo: string };
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

/** The language i18n will start in (the same order as pickLanguage: saved, server default, fallback). */
export function planLanguage(plan: FirstScreenPlan, read: (key: string) => string | null): string {
  const saved = read(plan.keys.language);
  if (saved !== null && saved in plan.locales) return saved;
  try {
    const site: unknown = JSON.parse(read(plan.keys.siteInfo) ?? 'null');
    const language =
      typeof site === 'object' && site !== null ? (site as { language?: unknown }).language : undefined;
    if (typeof language === 'string' && language in plan.locales) return language;
  } catch {
    // A corrupt cache: the fallback, as i18n itself does.
  }
  return plan.fallbackLanguage;
}

/** The files to preload for this visit: the screen's chunks (if it is a planned one) and the language's. */
export function firstScreenFiles(
  plan: FirstScreenPlan,
  pathname: string,
  basePath: string | undefined,
  read: (key: string) => string | null,
): string[] {
  const screen = plan.screens[screenPath(pathname, basePath)] ?? [];
  return [...screen, ...(plan.locales[planLanguage(plan, read)] ?? [])];
}

/** Adds a `<link rel=modulepreload>` per file; the entry's own imports then find them in flight. */
export function preloadFirstScreen(doc: Document, win: Window): void {
  const text = doc.getElementById(PLAN_ELEMENT_ID)?.textContent;
  if (!text) return;
  const plan = JSON.parse(text) as FirstScreenPlan;
  const read = (key: string): string | null => {
    try {
      return win.localStorage.getItem(key);
    } catch {
      return null;
    }
  };
  for (const file of firstScreenFiles(plan, win.location.pathname, win.__SWITCHYARD__?.basePath, read)) {
    const link = doc.createElement('link');
    link.rel = 'modulepreload';
    // The same credentials mode as Vite's module scripts and preloads, so the browser reuses the fetch.
    link.crossOrigin = '';
    link.href = file;
    doc.head.appendChild(link);
  }
}
