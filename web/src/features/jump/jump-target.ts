/**
 * /jump?url=... hands a key to a chat app through its own scheme (ama://, opencat://, ...). Web
 * addresses are followed only on this site, and script-like schemes never, so the page cannot be used
 * as an open redirect.
 */
export function jumpTarget(raw: string | null, origin: string): string | null {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw, origin);
  } catch {
    return null;
  }
  if (['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'].includes(url.protocol)) return null;
  if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== origin) return null;
  return url.href;
}
