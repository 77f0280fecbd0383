import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type SQLite from 'better-sqlite3';

const require = createRequire(import.meta.url);

/** Node's major version: the SQLite driver depends on it. */
export function nodeMajor(version = process.versions.node): number {
  return Number(version.split('.')[0]);
}

/**
 * The package of the SQLite driver for this Node: better-sqlite3 13 (Node-API) from Node 22 on,
 * and on the end-of-life Node 20 the 12 line installed under an alias, since 13 crashes there.
 * 12 is no choice for 22 and later: on Node 24 it aborts the process when the garbage collector
 * finalises a statement (`RemoveEnvironmentCleanupHook`, `(env) != nullptr`).
 */
export function sqliteDriverPackage(major = nodeMajor()): string {
  return major >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';
}

/** The driver's Database class for this Node (require caches the module after the first call). */
export function sqliteDriver(): typeof SQLite {
  const name = sqliteDriverPackage();
  try {
    return require(name) as typeof SQLite;
  } catch (err) {
    throw new Error(
      `SQLite needs the npm package ${name} on Node ${process.versions.node}; run npm install (${(err as Error).message})`,
    );
  }
}

/**
 * Opens a SQLite file the way every connection of the gateway uses it: WAL (readers never wait for
 * the writer), NORMAL sync (durable at checkpoints; a power cut loses at most the last commits,
 * never consistency), foreign keys, and a busy timeout so two connections take turns writing.
 */
export function openSqliteFile(file: string, busyTimeoutMs = 5000): SQLite.Database {
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const Database = sqliteDriver();
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return sqlite;
}
