import { createRequire } from 'node:module';
import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type LogEvent,
  MysqlDialect,
  PostgresDialect,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  type SqliteStatement,
} from 'kysely';
import type * as Mysql from 'mysql2';
import type PgModule from 'pg';
import type * as PgCopy from 'pg-copy-streams';
import type { DialectName } from './dialect.js';
import { gatewayPgClient } from './pg-client.js';
import { openSqliteFile } from './sqlite-file.js';
import type { Tables } from './tables.js';

export interface Database {
  db: Kysely<Tables>;
  dialect: DialectName;
  /** The SQLite file behind `db` (not for `:memory:`), for work that opens its own connection. */
  sqliteFile?: string;
  /**
   * SQLite: how many statements that may write (and transaction ends) `db` has run. Work that keeps
   * what it read through its own connection learns from it that `db` may have changed it.
   */
  sqliteWrites?: () => number;
  /** The servers' pool as its driver reports it (for /metrics). */
  poolStats?: () => PoolStats;
  /**
   * PostgreSQL: the driver's quoting of a string literal, for statements sent several to a message
   * (the simple query protocol, which takes no parameters).
   */
  quoteLiteral?: (text: string) => string;
  close(): Promise<void>;
}

export interface PoolStats {
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

export interface DbOptions {
  /** Connections in the pool (PostgreSQL and MySQL). */
  poolSize?: number;
  /** How long opening a connection may take before the query waiting on it fails (servers). */
  connectTimeoutMs?: number;
  /** How long an unused pooled connection stays open (servers). */
  idleTimeoutMs?: number;
  /** PostgreSQL's `statement_timeout` (MariaDB: `max_statement_time`); 0 or unset = none. */
  statementTimeoutMs?: number;
  /** SQLite busy timeout in milliseconds. */
  busyTimeoutMs?: number;
  /**
   * Told of a connection the server dropped while it sat idle in the pool (a restart, a failover,
   * `pg_terminate_backend`, MariaDB `KILL`). The pool forgets it and opens another when needed;
   * without a listener pg's pool would rethrow the error and end the process.
   */
  onConnectionError?: (err: Error) => void;
  /** Told the text of each statement run (tests count what a path sends). */
  onQuery?: (sql: string) => void;
}

/** How PostgreSQL names the gateway's sessions (`pg_stat_activity.application_name`) unless the URL does. */
export const PG_APPLICATION_NAME = 'switchyard';

// A server's driver is loaded only when its URL is used: each costs a SQLite deployment megabytes of
// memory for nothing. Both are CommonJS, so `require` keeps `createDb` synchronous.
const load = createRequire(import.meta.url);

// PostgreSQL hands back int8 (count, bigint columns) and numeric (sum) as strings. Quota values
// stay far below 2^53, so they are parsed to numbers here, once, for every query.
const PG_INT8 = 20;
const PG_NUMERIC = 1700;

function pgTypes(pg: typeof PgModule): PgModule.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: string) => {
      if (oid === PG_INT8) return (v: string) => Number.parseInt(v, 10);
      if (oid === PG_NUMERIC) return (v: string) => Number.parseFloat(v);
      return pg.types.getTypeParser(oid, format as 'text');
    }) as PgModule.CustomTypesConfig['getTypeParser'],
  };
}

/**
 * SQLite transactions begin IMMEDIATE. The ledger's thread writes the same file on a connection of
 * its own; a deferred transaction that read before that thread committed can no longer write, and
 * SQLite refuses it at once (busy_timeout does not apply). An immediate one takes the write lock at
 * its start, waiting for it as busy_timeout allows, and then cannot be refused midway.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

export function createDb(url: string, options: DbOptions = {}): Database {
  const poolSize = options.poolSize ?? 10;
  const onConnectionError = options.onConnectionError ?? (() => {});
  const onQuery = options.onQuery;
  const log = onQuery ? { log: (event: LogEvent) => onQuery(event.query.sql) } : {};
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    const sqlite = openSqliteFile(file, options.busyTimeoutMs);
    const writes = { count: 0 };
    const db = new Kysely<Tables>({
      dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite, writes) }),
      ...log,
    });
    return {
      db,
      dialect: 'sqlite',
      ...(file === ':memory:' ? {} : { sqliteFile: file }),
      sqliteWrites: () => writes.count,
      close: () => db.destroy(),
    };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pg = load('pg') as typeof PgModule;
    const named = new URL(url).searchParams.has('application_name');
    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      idleTimeoutMillis: options.idleTimeoutMs ?? 30_000,
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      types: pgTypes(pg),
      Client: gatewayPgClient(pg, (load('pg-copy-streams') as typeof PgCopy).from),
      ...(named ? {} : { application_name: PG_APPLICATION_NAME }),
    });
    // Idle clients' errors come through the pool; a client checked out (a transaction between two
    // statements) emits its own, and its next query fails, failing only the work it carried.
    pool.on('error', (err) => onConnectionError(err));
    pool.on('connect', (client) => client.on('error', (err) => onConnectionError(err)));
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }), ...log });
    const poolStats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    return { db, dialect: 'postgres', poolStats, quoteLiteral: pg.escapeLiteral, close: () => db.destroy() };
  }
  if (url.startsWith('mysql://') || url.startsWith('mariadb://')) {
    const { createPool } = load('mysql2') as typeof Mysql;
    const pool = createPool({
      uri: url.replace(/^mariadb:/, 'mysql:'),
      connectionLimit: poolSize,
      connectTimeout: options.connectTimeoutMs ?? 10_000,
      idleTimeout: options.idleTimeoutMs ?? 30_000,
      maxIdle: poolSize,
      supportBigNumbers: true,
      bigNumberStrings: false,
      // SUM() yields DECIMAL in MySQL; numbers keep the API shape equal on all engines.
      decimalNumbers: true,
      charset: 'utf8mb4',
      timezone: 'Z',
      // A settlement group's writes go in one query (`group-statements.ts`). Every statement the
      // server sends takes client text only as parameters, which the driver escapes, so none can
      // end a statement early.
      multipleStatements: true,
    });
    // A pooled connection the server dropped leaves the pool by itself; a later error on it (or on
    // the pool) must not reach the process as an unhandled 'error' event.
    pool.on('connection', (connection) => {
      connection.on('error', (err) => onConnectionError(err));
      const limitMs = options.statementTimeoutMs;
      // Queued on the new connection ahead of any query. MariaDB counts seconds for every
      // statement; MySQL only limits SELECTs, in milliseconds.
      if (limitMs)
        connection.query(`SET SESSION max_statement_time = ${limitMs / 1000}`, (err) => {
          if (err) connection.query(`SET SESSION max_execution_time = ${Math.round(limitMs)}`, () => {});
        });
    });
    (pool as unknown as NodeJS.EventEmitter).on('error', (err: Error) => onConnectionError(err));
    const db = new Kysely<Tables>({ dialect: new MysqlDialect({ pool }), ...log });
    // mysql2 keeps its counts in fields it does not document; read defensively.
    const inner = pool as unknown as {
      _allConnections?: { length: number };
      _freeConnections?: { length: number };
      _connectionQueue?: { length: number };
    };
    const poolStats = () => ({
      total: inner._allConnections?.length ?? 0,
      idle: inner._freeConnections?.length ?? 0,
      waiting: inner._connectionQueue?.length ?? 0,
    });
    return { db, dialect: 'mysql', poolStats, close: () => db.destroy() };
  }
  throw new Error(`Unsupported DATABASE_URL: ${url.split(':')[0]}`);
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; preparing costs as much as running a small one. The gateway
 * runs a few hundred distinct statements, so they are kept by their SQL text. Kysely never streams
 * (`iterate`) here, so one statement is never in use twice at the same time.
 *
 * Every statement that may write is counted when it runs: Kysely runs with `run` all but queries
 * and `RETURNING` statements, so every `run` counts (COMMIT too: a reader that looked between an
 * UPDATE and its COMMIT learns again), and `all` counts unless SQLite reports the statement
 * read-only.
 */
function withStatementCache(sqlite: SQLite.Database, writes: { count: number }): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = counted(sqlite.prepare(sql), writes);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

function counted(statement: SQLite.Statement, writes: { count: number }): SqliteStatement {
  const readonly = statement.readonly;
  return {
    reader: statement.reader,
    all(parameters) {
      if (!readonly) writes.count++;
      return statement.all(parameters);
    },
    run(parameters) {
      writes.count++;
      return statement.run(parameters);
    },
    iterate(parameters) {
      if (!readonly) writes.count++;
      return statement.iterate(parameters);
    },
  };
}
