// Where the console is mounted: the server's injected value wins; a built bundle has the relative
// BASE_URL './', which says nothing about the mount point, so it means the site root.

/** Normalises to '/' or '/a/b' (leading slash, no trailing slash). */
export function resolveBasePath(injected: string | undefined, envBase: string): string {
  const candidate = injected?.trim() ? injected.trim() : envBase.startsWith('/') ? envBase : '/';
  const trimmed = candidate.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '/' : `/${trimmed}`;
}

export const basePath = resolveBasePath(window.__SWITCHYARD__?.basePath, import.meta.env.BASE_URL);

/** An absolute URL path under the base path, e.g. withBase('/api/status'). */
export function withBase(path: string, base: string = basePath): string {
  const tail = path.startsWith('/') ? path : `/${path}`;
  return base === '/' ? tail : `${base}${tail}`;
}
