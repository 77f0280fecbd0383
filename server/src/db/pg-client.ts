import { finished } from 'node:stream/promises';
import type PgModule from 'pg';
import type * as PgCopy from 'pg-copy-streams';

// The pool's pg client, with two things Kysely cannot ask for:
// - `COPY <table> (<columns>) FROM STDIN` with the rows, in COPY's text format, as the statement's
//   one parameter: PostgreSQL parses a row of COPY in about a third of the CPU it spends on the same
//   row in a multi-row INSERT's VALUES list. It runs on the connection the statement was given (a
//   transaction's own), and answers like an INSERT.
// - A statement whose text starts with `/* prepared <name> */` is prepared once per connection under
//   that name and then only bound and run: the settlement group's writes, whose parsing and planning
//   cost PostgreSQL more than their execution. One name must always carry the same text.

const COPY_FROM_STDIN = /^\s*copy\s[^;]*\sfrom\s+stdin\s*$/i;
const PREPARED = /^\/\* prepared ([a-z_]+) \*\//;

/** The text that marks `sql` as a statement prepared once per connection under `name`. */
export function preparedAs(name: string, sql: string): string {
  if (!/^[a-z_]+$/.test(name)) throw new Error(`not a statement name: ${name}`);
  return `/* prepared ${name} */ ${sql}`;
}

type QueryResult = { command: string; rowCount: number; rows: never[]; fields: never[] };

/** pg's Client, running COPY statements and statements prepared by name as described above. */
export function gatewayPgClient(pg: typeof PgModule, copyFrom: typeof PgCopy.from): typeof PgModule.Client {
  return class GatewayPgClient extends pg.Client {
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
      const name = typeof text === 'string' && callback === undefined ? PREPARED.exec(text)?.[1] : undefined;
      if (name !== undefined) return super.query({ name, text, values });
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
