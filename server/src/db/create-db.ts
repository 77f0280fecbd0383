import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import { createPool as createMysqlPool } from 'mysql2';
import pg from 'pg';
import type { DialectName } from './dialect.js';
import type { Tables } from './tables.js';

export interface Database {
  db: Kysely<Tables>;
  dialect: DialectName;
  close(): Promise<void>;
}

export interface DbOptions {
  /** Connections in the pool (PostgreSQL and MySQL). */
  poolSize?: number;
  /** SQLite busy timeout in milliseconds. */
  busyTimeoutMs?: number;
}

// PostgreSQL hands back int8 (count, bigint columns) and numeric (sum) as strings. Quota values
// stay far below 2^53, so they are parsed to numbers here, once, for every query.
const PG_INT8 = 20;
const PG_NUMERIC = 1700;

function pgTypes(): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: string) => {
      if (oid === PG_INT8) return (v: string) => Number.parseInt(v, 10);
      if (oid === PG_NUMERIC) return (v: string) => Number.parseFloat(v);
      return pg.types.getTypeParser(oid, format as 'text');
    }) as pg.CustomTypesConfig['getTypeParser'],
  };
}

export function createDb(url: string, options: DbOptions = {}): Database {
  const poolSize = options.poolSize ?? 10;
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: sqlite }) });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new pg.Pool({ connectionString: url, max: poolSize, types: pgTypes() });
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  if (url.startsWith('mysql://') || url.startsWith('mariadb://')) {
    const pool = createMysqlPool({
      uri: url.replace(/^mariadb:/, 'mysql:'),
      connectionLimit: poolSize,
      supportBigNumbers: true,
      bigNumberStrings: false,
      // SUM() yields DECIMAL in MySQL; numbers keep the API shape equal on all engines.
      decimalNumbers: true,
      charset: 'utf8mb4',
      timezone: 'Z',
    });
    const db = new Kysely<Tables>({ dialect: new MysqlDialect({ pool }) });
    return { db, dialect: 'mysql', close: () => db.destroy() };
  }
  throw new Error(`Unsupported DATABASE_URL: ${url.split(':')[0]}`);
}
