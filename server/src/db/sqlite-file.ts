import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

/**
 * Opens a SQLite file the way every connection of the gateway uses it: WAL (readers never wait for
 * the writer), NORMAL sync (durable at checkpoints; a power cut loses at most the last commits,
 * never consistency), foreign keys, and a busy timeout so two connections take turns writing.
 */
export function openSqliteFile(file: string, busyTimeoutMs = 5000): SQLite.Database {
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return sqlite;
}
