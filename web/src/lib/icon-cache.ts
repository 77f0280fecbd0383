// Model-owner icons come from public icon services (fetch time-out 5 s). They are kept as
// data URLs so a page shows them at once and offline (up to 50 entries, 1 week); a failed
// fetch answers null and the caller shows its bundled fallback.

export const ICON_CACHE_MAX_ENTRIES = 50;
export const ICON_CACHE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const ICON_FETCH_TIMEOUT_MS = 5000;
/** Icons are small SVGs or PNGs; anything larger is not worth a slot. */
const ICON_MAX_BYTES = 256 * 1024;

interface Entry {
  data: string;
  /** When it was fetched (expiry). */
  fetchedAt: number;
  /** When it was last shown (which entry to drop first). */
  usedAt: number;
}
export type IconEntries = Record<string, Entry>;

export interface IconStore {
  read(): IconEntries;
  write(entries: IconEntries): void;
}

type Fetcher = (url: string, init: { signal: AbortSignal }) => Promise<Response>;

/** The browser's local storage under the cache's own key; a refusal only loses persistence. */
export function localIconStore(key = 'ownerIconCache'): IconStore {
  return {
    read() {
      try {
        const parsed: unknown = JSON.parse(window.localStorage.getItem(key) ?? '{}');
        return typeof parsed === 'object' && parsed !== null ? (parsed as IconEntries) : {};
      } catch {
        return {};
      }
    },
    write(entries) {
      try {
        window.localStorage.setItem(key, JSON.stringify(entries));
      } catch {
        // Storage full or refused: the icon still shows this time.
      }
    },
  };
}

function toDataUrl(bytes: Uint8Array, type: string): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${type};base64,${btoa(binary)}`;
}

export class IconCache {
  constructor(
    private readonly store: IconStore,
    private readonly fetcher: Fetcher = (url, init) => fetch(url, init),
    private readonly now: () => number = Date.now,
  ) {}

  /** The icon as a data URL, from the cache while fresh, else fetched; null when it cannot be had. */
  async get(url: string): Promise<string | null> {
    if (!/^(https?:|data:)/.test(url)) return null;
    if (url.startsWith('data:')) return url;
    const entries = this.store.read();
    const hit = entries[url];
    const now = this.now();
    if (hit && now - hit.fetchedAt < ICON_CACHE_TTL_MS) {
      hit.usedAt = now;
      this.store.write(entries);
      return hit.data;
    }
    const data = await this.fetchIcon(url);
    if (data === null) return hit?.data ?? null;
    const next = this.store.read();
    next[url] = { data, fetchedAt: now, usedAt: now };
    this.store.write(evict(next, now));
    return data;
  }

  private async fetchIcon(url: string): Promise<string | null> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), ICON_FETCH_TIMEOUT_MS);
    try {
      const res = await this.fetcher(url, { signal: controller.signal });
      if (!res.ok) return null;
      // The reply's bytes, not a Blob: where the page's Blob is not fetch's (a test DOM on Node 22+),
      // a Blob from res.blob() lacks arrayBuffer().
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (!type.startsWith('image/')) return null;
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.length > ICON_MAX_BYTES) return null;
      return toDataUrl(bytes, type);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Drops expired entries, then the least recently shown ones beyond the limit. */
function evict(entries: IconEntries, now: number): IconEntries {
  const live = Object.entries(entries).filter(([, e]) => now - e.fetchedAt < ICON_CACHE_TTL_MS);
  live.sort(([, a], [, b]) => b.usedAt - a.usedAt);
  return Object.fromEntries(live.slice(0, ICON_CACHE_MAX_ENTRIES));
}
