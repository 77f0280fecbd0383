// Readers for JSON a client or an upstream sent: nothing in it is trusted to have the documented
// shape, so every field is checked where it is read and a wrong type reads as absent.

export type JsonRecord = Record<string, unknown>;

export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function asRecord(v: unknown): JsonRecord | undefined {
  return isRecord(v) ? v : undefined;
}

export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * A client's value as an error message may quote it: a string (cut to 100 characters) as it is,
 * anything else by its JSON type. `String(v)` would throw on an object without a prototype.
 */
export function describeValue(v: unknown): string {
  if (typeof v === 'string') return v.length > 100 ? `${v.slice(0, 100)}...` : v;
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : String(v);
}

export function asNumber(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function asBoolean(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A non-negative integer token count, or undefined when absent or not a number. */
export function asCount(v: unknown): number | undefined {
  const n = asNumber(v);
  return n === undefined ? undefined : Math.max(0, Math.trunc(n));
}

/** The parsed JSON text, or undefined when it does not parse. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
