// What text may reach the database. PostgreSQL refuses a NUL character in text outright (and a
// settlement carrying one would fail after the call was served), and a lone UTF-16 surrogate (JSON's
// "\ud800") is no character at all. At the request boundary, query strings, path parameters, API
// bodies and model names holding them are refused with 400 naming the field; text the gateway stores
// on its own (a settlement's fields from an upstream) is kept without them. Bytes that are not UTF-8
// have become U+FFFD by the time a body is decoded.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** True when `value` holds a NUL or a lone surrogate. */
export function hasUnstorableText(value: string): boolean {
  return value.includes('\u0000') || LONE_SURROGATE.test(value);
}

/** `value` with NULs removed and lone surrogates replaced by U+FFFD. */
export function storableText(value: string): string {
  if (!hasUnstorableText(value)) return value;
  return value.replaceAll('\u0000', '').replace(LONE_SURROGATES, '\uFFFD');
}

/** The first string inside `value` (objects and arrays walked) that holds unstorable text, if any. */
export function findUnstorable(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') return hasUnstorableText(value) ? value : undefined;
  if (depth > 32 || value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (hasUnstorableText(k)) return k;
    const found = findUnstorable(v, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `value` with every string in it (keys too) made storable; the same object when nothing changes. */
export function cleanStrings<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (findUnstorable(value, depth) === undefined) return value;
  if (Array.isArray(value)) return value.map((v) => cleanStrings(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[storableText(k)] = cleanStrings(v, depth + 1);
  return out as T;
}

/**
 * Where inside `value` the first unstorable text is, as a dotted path (`name`, `models.2`), or
 * undefined when there is none. A key that is itself unstorable is named by its parent's path.
 */
export function unstorablePath(value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'string') return hasUnstorableText(value) ? path || '(value)' : undefined;
  if (depth > 32 || value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    const here = path ? `${path}.${k}` : k;
    if (hasUnstorableText(k)) return path ? `${path} (a key)` : '(a key)';
    const found = unstorablePath(v, here, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
