import type { SourceRow } from './source-reader.js';

// Reading one column of an old row whatever the engine handed back: PostgreSQL gives booleans and
// bigint strings, MySQL and SQLite give 0/1 and numbers, GORM's deleted_at is a date or a string.

export function num(row: SourceRow, column: string, fallback = 0): number {
  const v = row[column];
  if (v === null || v === undefined || v === '') return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : fallback;
}

export function int(row: SourceRow, column: string, fallback = 0): number {
  return Math.trunc(num(row, column, fallback));
}

export function text(row: SourceRow, column: string, fallback = ''): string {
  const v = row[column];
  if (v === null || v === undefined) return fallback;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function flag(row: SourceRow, column: string): number {
  const v = row[column];
  return v === true || v === 1 || v === '1' || v === 't' || v === 'true' ? 1 : 0;
}

/** A GORM soft-delete column as unix seconds, or null when the row is live. */
export function unixOrNull(row: SourceRow, column: string): number | null {
  const v = row[column];
  if (v === null || v === undefined || v === '') return null;
  if (v instanceof Date) return Math.floor(v.getTime() / 1000);
  if (typeof v === 'number') return v > 1e12 ? Math.floor(v / 1000) : v;
  const ms = Date.parse(String(v).replace(' ', 'T'));
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/** A JSON column (text or already parsed by the driver), or undefined when empty or unreadable. */
export function jsonValue(row: SourceRow, column: string): unknown {
  const v = row[column];
  if (v === null || v === undefined || v === '') return undefined;
  if (typeof v === 'object' && !Buffer.isBuffer(v)) return v;
  try {
    return JSON.parse(Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
  } catch {
    return undefined;
  }
}
