import { describe, expect, it, vi } from 'vitest';
import {
  ICON_CACHE_MAX_ENTRIES,
  ICON_CACHE_TTL_MS,
  IconCache,
  type IconEntries,
  type IconStore,
} from './icon-cache';

function memoryStore(): IconStore & { entries: IconEntries } {
  const s = {
    entries: {} as IconEntries,
    read: () => structuredClone(s.entries),
    write: (e: IconEntries) => {
      s.entries = structuredClone(e);
    },
  };
  return s;
}

const svg = (text: string) =>
  new Response(text, { status: 200, headers: { 'content-type': 'image/svg+xml' } });

describe('IconCache', () => {
  it('fetches an icon once and then answers from the cache as a data URL', async () => {
    const store = memoryStore();
    const fetcher = vi.fn(async () => svg('<svg/>'));
    const cache = new IconCache(store, fetcher, () => 1000);
    const first = await cache.get('https://icons.example/openai.svg');
    expect(first).toBe(`data:image/svg+xml;base64,${btoa('<svg/>')}`);
    expect(await cache.get('https://icons.example/openai.svg')).toBe(first);
    expect(fetcher).toHaveBeenCalledTimes(1);
  });

  it('fetches again after a week', async () => {
    let now = 0;
    const fetcher = vi.fn(async () => svg('<svg/>'));
    const cache = new IconCache(memoryStore(), fetcher, () => now);
    await cache.get('https://icons.example/a.svg');
    now = ICON_CACHE_TTL_MS - 1;
    await cache.get('https://icons.example/a.svg');
    expect(fetcher).toHaveBeenCalledTimes(1);
    now = ICON_CACHE_TTL_MS + 1;
    await cache.get('https://icons.example/a.svg');
    expect(fetcher).toHaveBeenCalledTimes(2);
  });

  it('keeps at most 50 entries, dropping the least recently shown', async () => {
    let now = 0;
    const store = memoryStore();
    const cache = new IconCache(
      store,
      async () => svg('<svg/>'),
      () => now,
    );
    for (let i = 0; i <= ICON_CACHE_MAX_ENTRIES; i++) {
      now = i === 1 ? 5 : i + 10;
      await cache.get(`https://icons.example/${i}.svg`);
      if (i === 2) {
        now = 1000;
        await cache.get('https://icons.example/0.svg');
      }
    }
    const urls = Object.keys(store.entries);
    expect(urls).toHaveLength(ICON_CACHE_MAX_ENTRIES);
    expect(urls).toContain('https://icons.example/0.svg');
    expect(urls).not.toContain('https://icons.example/1.svg');
  });

  it('answers null when the fetch fails, times out or is not an image, so the fallback shows', async () => {
    vi.useFakeTimers();
    try {
      const hanging = new IconCache(memoryStore(), (_url, { signal }) => {
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted'))),
        );
      });
      const pending = hanging.get('https://slow.example/icon.svg');
      await vi.advanceTimersByTimeAsync(5000);
      expect(await pending).toBeNull();
    } finally {
      vi.useRealTimers();
    }
    const offline = new IconCache(memoryStore(), async () => {
      throw new TypeError('Failed to fetch');
    });
    expect(await offline.get('https://icons.example/x.svg')).toBeNull();
    const html = new IconCache(
      memoryStore(),
      async () => new Response('<html>', { headers: { 'content-type': 'text/html' } }),
    );
    expect(await html.get('https://icons.example/x.svg')).toBeNull();
    expect(await html.get('not a url')).toBeNull();
  });
});
