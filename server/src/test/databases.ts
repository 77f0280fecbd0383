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
