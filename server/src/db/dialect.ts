import {
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type InsertQueryBuilder,
  type InsertResult,
  type Kysely,
  sql,
} from 'kysely';
import type { Tables } from './tables.js';

// Every difference between SQLite, PostgreSQL and MySQL/MariaDB lives here, so query modules are
// written once. Identifier quoting (`group`, `key`) is Kysely's job on all three.

export type DialectName = 'sqlite' | 'postgres' | 'mysql';

/** Column type names per engine for the migrations. */
export function columnTypes(dialect: DialectName) {
  return {
    /** Short indexed text. MySQL cannot index unbounded text, so indexed strings get a length. */
    shortText: sql.raw(dialect === 'sqlite' ? 'text' : 'varchar(191)'),
    longText: sql.raw(dialect === 'mysql' ? 'mediumtext' : 'text'),
    bigint: sql.raw(dialect === 'sqlite' ? 'integer' : 'bigint'),
    int: sql.raw('integer'),
    double: sql.raw(dialect === 'sqlite' ? 'real' : 'double precision'),
  };
}

/** An auto-increment integer primary key named `id`. */
export function idColumn(dialect: DialectName) {
  return (col: ColumnDefinitionBuilder) => {
    if (dialect === 'postgres') return col.primaryKey().generatedByDefaultAsIdentity();
    return col.primaryKey().autoIncrement();
  };
}

export function idType(dialect: DialectName) {
  return sql.raw(dialect === 'postgres' ? 'bigint' : 'integer');
}

/** MySQL tables need an explicit utf8mb4 charset and a binary collation to compare like the others. */
export function tableOptions<T extends string, C extends string>(
  dialect: DialectName,
  table: CreateTableBuilder<T, C>,
) {
  if (dialect !== 'mysql') return table;
  return table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
}

/** INSERT that silently skips rows whose unique key already exists. */
export function insertIgnore<TB extends keyof Tables, O>(
  dialect: DialectName,
  query: InsertQueryBuilder<Tables, TB, O>,
): InsertQueryBuilder<Tables, TB, O> {
  if (dialect === 'mysql') return query.ignore();
  return query.onConflict((oc) => oc.doNothing());
}

/** INSERT ... ON CONFLICT(key) DO UPDATE, or MySQL's ON DUPLICATE KEY UPDATE. */
export function upsert<TB extends keyof Tables, O>(
  dialect: DialectName,
  query: InsertQueryBuilder<Tables, TB, O>,
  conflictColumns: readonly string[],
  update: Record<string, unknown>,
): InsertQueryBuilder<Tables, TB, O> {
  // Kysely's typed builders cannot express a column list chosen at run time; the values are still bound.
  const u = update as never;
  if (dialect === 'mysql') return query.onDuplicateKeyUpdate(u);
  return query.onConflict((oc) => oc.columns(conflictColumns as never).doUpdateSet(u));
}

/** Runs an INSERT and returns the new row's id on every engine. */
export async function insertReturningId<TB extends keyof Tables>(
  dialect: DialectName,
  query: InsertQueryBuilder<Tables, TB, InsertResult>,
): Promise<number> {
  if (dialect === 'mysql') {
    const result = await query.executeTakeFirstOrThrow();
    return Number(result.insertId);
  }
  const row = (await (query as unknown as InsertQueryBuilder<Tables, TB, { id: number }>)
    .returning(sql<number>`id`.as('id') as never)
    .executeTakeFirstOrThrow()) as { id: number | string };
  return Number(row.id);
}

/** Aggregates (count, sum) arrive as number, string or null depending on the engine. */
export function toNumber(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`Not a number from the database: ${String(value)}`);
  return n;
}

/** True when the error is a unique-constraint violation, whatever the engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; message?: string };
  return (
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    e?.code === '23505' ||
    e?.code === 'ER_DUP_ENTRY' ||
    e?.errno === 1062
  );
}

export async function ping(db: Kysely<Tables>): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * Why a MySQL server's `version()` is too old for the settlement statements (`json_table`:
 * MariaDB 10.6, MySQL 8.0.4), or undefined when it will do.
 */
export function mysqlVersionProblem(version: string): string | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return undefined;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const mariadb = /mariadb/i.test(version);
  const atLeast = (a: number, b: number, c: number) =>
    major !== a ? major > a : minor !== b ? minor > b : patch >= c;
  if (mariadb ? atLeast(10, 6, 0) : atLeast(8, 0, 4)) return undefined;
  return `${mariadb ? 'MariaDB' : 'MySQL'} ${version} is too old: Switchyard needs MySQL 8.0.4+ or MariaDB 10.6+`;
}
