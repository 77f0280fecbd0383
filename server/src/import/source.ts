import { createRequire } from 'node:module';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import type * as Mysql from 'mysql2';
import type PgModule from 'pg';
import type { DialectName } from '../db/dialect.js';
import { sqliteDriver } from '../db/sqlite-file.js';

// The old system's database, opened read-only: the import never writes to it.

export type SourceSystem = 'one-hub' | 'one-api' | 'new-api';
export const SOURCE_SYSTEMS: readonly SourceSystem[] = ['one-hub', 'one-api', 'new-api'];

export interface SourceDb {
  // biome-ignore lint/suspicious/noExplicitAny: the old system's schema varies by version; rows are read as records.
  db: Kysely<any>;
  dialect: DialectName;
  close(): Promise<void>;
}

const load = createRequire(import.meta.url);
const PG_DATE = 1082;

/**
 * A source address as the operator has it: `sqlite:/path/one-api.db` or a bare `.db` path,
 * `postgres://…`, `mysql://…`, or the Go form one-hub's and one-api's SQL_DSN use
 * (`user:pass@tcp(host:3306)/db?parseTime=true`).
 */
export function normalizeSourceDsn(dsn: string): string {
  const go = /^([^:@/]+)(?::(.*))?@tcp\(([^)]+)\)\/([^?]+)(?:\?.*)?$/.exec(dsn.trim());
  if (go) {
    const [, user, pass, host, db] = go;
    const auth = pass
      ? `${encodeURIComponent(user!)}:${encodeURIComponent(pass)}`
      : encodeURIComponent(user!);
    return `mysql://${auth}@${host}/${db}`;
  }
  if (/^(sqlite|postgres|postgresql|mysql|mariadb):/.test(dsn)) return dsn;
  if (/\.(db|sqlite3?)$/i.test(dsn)) return `sqlite:${dsn}`;
  throw new Error(
    `Cannot read the source address "${dsn.split('@').pop()}": use sqlite:<file>, postgres://…, mysql://… or user:pass@tcp(host:port)/db`,
  );
}

export function openSource(dsn: string): SourceDb {
  const url = normalizeSourceDsn(dsn);
  if (url.startsWith('sqlite:')) {
    const Sqlite = sqliteDriver();
    const file = url.slice('sqlite:'.length);
    const database = new Sqlite(file, { readonly: true, fileMustExist: true });
    const db = new Kysely({ dialect: new SqliteDialect({ database }) });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  if (url.startsWith('postgres')) {
    const pg = load('pg') as typeof PgModule;
    const pool = new pg.Pool({
      connectionString: url,
      max: 2,
      application_name: 'switchyard-import',
      // DATE as its text (pg would make a local-midnight Date of it, a day off east of UTC).
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === PG_DATE
            ? (v: string) => v
            : pg.types.getTypeParser(oid, format as 'text')) as PgModule.CustomTypesConfig['getTypeParser'],
      },
    });
    // The server refuses any write on these sessions. Set per connection rather than by the startup
    // `options`, which an `?options=` in the address would replace; the client runs it first.
    pool.on('connect', (client) => {
      client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY').catch(() => {});
    });
    const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  const { createPool } = load('mysql2') as typeof Mysql;
  const pool = createPool({
    uri: url.replace(/^mariadb:/, 'mysql:'),
    connectionLimit: 2,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    charset: 'utf8mb4',
    timezone: 'Z',
    // DATE as its text, like the other engines; DATETIME stays a Date.
    dateStrings: ['DATE'],
  });
  // The server refuses any write on these sessions.
  pool.on('connection', (c) => c.query('SET SESSION TRANSACTION READ ONLY'));
  const db = new Kysely({ dialect: new MysqlDialect({ pool }) });
  return { db, dialect: 'mysql', close: () => db.destroy() };
}
