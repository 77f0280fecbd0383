// A consume log row as the ledger thread binds it: one value per column, in insert order. Rows
// cross the thread boundary and reach the INSERT as arrays, so no column name is written, copied
// or looked up per row.

/** Columns of a consume log row, in insert order (`group` is quoted in SQL: it is a keyword). */
export const LOG_COLUMNS = [
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_id',
  'token_name',
  'model_name',
  'quota',
  'prompt_tokens',
  'completion_tokens',
  'channel_id',
  'request_time',
  'first_response_time',
  'is_stream',
  'source_ip',
  'group',
  'metadata',
] as const;

export type LogColumn = (typeof LOG_COLUMNS)[number];

const TEXT_COLUMNS: ReadonlySet<LogColumn> = new Set<LogColumn>([
  'content',
  'username',
  'token_name',
  'model_name',
  'source_ip',
  'group',
  'metadata',
]);

export function isTextColumn(column: LogColumn): boolean {
  return TEXT_COLUMNS.has(column);
}

/** The ledger writes `quota` itself (what it charged), and adds a shortfall to `metadata`. */
export const QUOTA_INDEX = LOG_COLUMNS.indexOf('quota');
export const METADATA_INDEX = LOG_COLUMNS.indexOf('metadata');
export const CHANNEL_ID_INDEX = LOG_COLUMNS.indexOf('channel_id');

/** Values in `LOG_COLUMNS` order; `null` is bound as NULL (and fails a NOT NULL column). */
export type LogRow = (string | number | null)[];

/** A consume log row by column name, as the relay builds it (without `id` and `quota`). */
export type LogValues = Record<string, string | number | boolean | null | undefined>;

/** better-sqlite3 binds no booleans; a missing value takes the column's default. */
export function columnValue(column: LogColumn, value: LogValues[string]): string | number | null {
  if (value === undefined) return isTextColumn(column) ? '' : 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/** The row of `values`; its quota is 0 until the ledger settles it. */
export function logRow(values: LogValues): LogRow {
  return LOG_COLUMNS.map((c) => (c === 'quota' ? 0 : columnValue(c, values[c])));
}
