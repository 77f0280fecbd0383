import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPool } from 'mysql2/promise';
import pg from 'pg';
import type { DialectName } from '../db/dialect.js';

// Each test file gets its own database namespace (a temp SQLite file, a PostgreSQL schema, a MySQL
// database), so suites run in parallel without seeing each other's rows.

export interface TestDatabase {
  engine: DialectName;
  url: string;
  drop(): Promise<void>;
}

export interface EngineTarget {
  engine: DialectName;
  /** Server URL from the environment, or undefined when the suite must be skipped. */
  serverUrl: string | undefined;
  skipReason: string | undefined;
}

/** The engines a database suite runs on: SQLite always, the others when their URL is set. */
export function engineTargets(env: Record<string, string | undefined> = process.env): EngineTarget[] {
  const required = env.REQUIRE_ALL_SUITES === '1';
  const target = (engine: DialectName, variable: string): EngineTarget => {
    const serverUrl = env[variable];
    if (!serverUrl && required)
      throw new Error(`${variable} is not set but REQUIRE_ALL_SUITES=1 requires the ${engine} suite`);
    return {
      engine,
      serverUrl,
      skipReason: serverUrl ? undefined : `${engine} suite skipped: ${variable} is not set`,
    };
  };
  return [
    { engine: 'sqlite', serverUrl: 'sqlite:', skipReason: undefined },
    target('postgres', 'TEST_POSTGRES_URL'),
    target('mysql', 'TEST_MYSQL_URL'),
  ];
}

export async function createTestDatabase(target: EngineTarget): Promise<TestDatabase> {
  const name = `sy_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  if (target.engine === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-test-'));
    return {
      engine: 'sqlite',
      url: `sqlite:${path.join(dir, 'test.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const serverUrl = target.serverUrl!;
  if (target.engine === 'postgres') {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create schema ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.searchParams.set('options', `-c search_path=${name}`);
    return {
      engine: 'postgres',
      url: url.toString(),
      drop: async () => {
        const c = new pg.Client({ connectionString: serverUrl });
        await c.connect();
        await c.query(`drop schema if exists ${name} cascade`);
        await c.end();
      },
    };
  }
  const admin = createPool({ uri: serverUrl, connectionLimit: 1 });
  await admin.query(`create database ${name} character set utf8mb4 collate utf8mb4_bin`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    engine: 'mysql',
    url: url.toString(),
    drop: async () => {
      const c = createPool({ uri: serverUrl, connectionLimit: 1 });
      await c.query(`drop database if exists ${name}`);
      await c.end();
    },
  };
}

/**
 * Ends every session a test's gateway holds on the database server, as a restart or failover does:
 * PostgreSQL's by the gateway's application name, MySQL's on the test's own database. Never another
 * test's. Answers how many were ended.
 */
export async function endOwnSessions(
  engine: string,
  serverUrl: string,
  own: TestDatabase,
  appName: string,
): Promise<number> {
  if (engine === 'postgres') {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      const r = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
        [appName],
      );
      return r.rowCount ?? 0;
    } finally {
      await admin.end();
    }
  }
  const admin = createPool({ uri: serverUrl, connectionLimit: 1 });
  try {
    const [rows] = await admin.query(
      'select id from information_schema.processlist where db = ? and id <> connection_id()',
      [new URL(own.url).pathname.slice(1)],
    );
    let killed = 0;
    for (const row of rows as { id: number }[]) {
      await admin.query(`kill ${Number(row.id)}`).then(
        () => killed++,
        () => {},
      );
    }
    return killed;
  } finally {
    await admin.end();
  }
}
