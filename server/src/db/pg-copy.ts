import { finished } from 'node:stream/promises';
import type PgModule from 'pg';
import type * as PgCopy from 'pg-copy-streams';

// PostgreSQL parses a row of `COPY ... FROM STDIN` in about a third of the CPU it spends on the
// same row in a multi-row INSERT's VALUES list. Kysely has no COPY, so the pool's client runs one
// when a statement asks for it: `COPY <table> (<columns>) FROM STDIN` with the rows, in COPY's text
// format, as its one parameter. It runs on the connection the statement was given (a
// transaction's own), and answers like an INSERT.

const COPY_FROM_STDIN = /^\s*copy\s[^;]*\sfrom\s+stdin\s*$/i;

type QueryResult = { command: string; rowCount: number; rows: never[]; fields: never[] };

/** pg's Client, running a `COPY ... FROM STDIN` statement whose one parameter is the data. */
export function copyingClient(pg: typeof PgModule, copyFrom: typeof PgCopy.from): typeof PgModule.Client {
  return class CopyingClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this one passes them all on.
    override query(...args: any[]): any {
      const [text, values, callback] = args;
      if (
        typeof text === 'string' &&
        callback === undefined &&
        Array.isArray(values) &&
        values.length === 1 &&
        typeof values[0] === 'string' &&
        COPY_FROM_STDIN.test(text)
      )
        return this.copy(text, values[0]);
      return super.query(...(args as Parameters<PgModule.Client['query']>));
    }

    private async copy(text: string, data: string): Promise<QueryResult> {
      const stream = super.query(copyFrom(text));
      stream.end(data);
      await finished(stream);
      return { command: 'COPY', rowCount: stream.rowCount, rows: [], fields: [] };
    }
  };
}

/**
 * One row in COPY's text format: values separated by tabs, `\N` for null, and in text a backslash,
 * tab, newline or carriage return written as its escape. NUL cannot be stored in text at all.
 */
export function copyRow(values: readonly (string | number | null)[]): string {
  return `${values.map(copyField).join('\t')}\n`;
}

function copyField(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    return String(value);
  }
  if (value.includes('\0')) throw new TypeError('text with a NUL character cannot be stored');
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, escapeCopy) : value;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const escapeCopy = (c: string) => COPY_ESCAPES[c]!;
