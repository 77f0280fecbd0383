import { sql } from 'kysely';
import type { SourceDb } from './source.js';

export type SourceRow = Record<string, unknown>;

/**
 * Reads the old system's tables as plain records, in id order and in batches, so a table of
 * millions of rows never sits in memory and a step can resume after the last id it saw.
 */
export class SourceReader {
  private tables: Map<string, Set<string>> | undefined;

  constructor(private readonly source: SourceDb) {}

  private async catalog(): Promise<Map<string, Set<string>>> {
    if (!this.tables) {
      if (this.source.dialect === 'sqlite') {
        const metas = await this.source.db.introspection.getTables();
        this.tables = new Map(metas.map((t) => [t.name, new Set(t.columns.map((c) => c.name))]));
      } else {
        // Only the old system's own schema (PostgreSQL's search_path, MySQL's database). Kysely's
        // introspection reads every schema, and fails when another one is dropped meanwhile.
        const own = this.source.dialect === 'postgres' ? sql`current_schema()` : sql`database()`;
        const r = await sql<{ table_name: string; column_name: string }>`
          select table_name as table_name, column_name as column_name
          from information_schema.columns where table_schema = ${own}`.execute(this.source.db);
        this.tables = new Map();
        for (const row of r.rows) {
          const name = String(row.table_name);
          const columns = this.tables.get(name) ?? new Set<string>();
          columns.add(String(row.column_name));
          this.tables.set(name, columns);
        }
      }
    }
    return this.tables;
  }

  async has(table: string): Promise<boolean> {
    return (await this.catalog()).has(table);
  }

  async columns(table: string): Promise<Set<string>> {
    return (await this.catalog()).get(table) ?? new Set();
  }

  async count(table: string, where?: { column: string; atLeast: number }): Promise<number> {
    if (!(await this.has(table))) return 0;
    let q = this.source.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n'));
    if (where) q = q.where(where.column, '>=', where.atLeast);
    const row = await q.executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Every row of a table without an id column (options, prices): these are small. */
  async all(table: string): Promise<SourceRow[]> {
    if (!(await this.has(table))) return [];
    return (await this.source.db.selectFrom(table).selectAll().execute()) as SourceRow[];
  }

  /** Rows of a table keyed by several columns, in that order, `size` at a time. */
  async *pages(table: string, orderBy: string[], size: number): AsyncGenerator<SourceRow[]> {
    if (!(await this.has(table))) return;
    for (let offset = 0; ; offset += size) {
      let q = this.source.db.selectFrom(table).selectAll();
      for (const c of orderBy) q = q.orderBy(c);
      const rows = (await q.limit(size).offset(offset).execute()) as SourceRow[];
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < size) return;
    }
  }

  /** Rows in ascending id after `afterId`, `size` at a time. */
  async *batches(
    table: string,
    size: number,
    opts: { afterId?: number; where?: { column: string; atLeast: number } } = {},
  ): AsyncGenerator<SourceRow[]> {
    if (!(await this.has(table))) return;
    let after = opts.afterId ?? 0;
    for (;;) {
      let q = this.source.db.selectFrom(table).selectAll().where('id', '>', after);
      if (opts.where) q = q.where(opts.where.column, '>=', opts.where.atLeast);
      const rows = (await q.orderBy('id').limit(size).execute()) as SourceRow[];
      if (rows.length === 0) return;
      yield rows;
      after = Number(rows[rows.length - 1]!.id);
      if (rows.length < size) return;
    }
  }
}
