import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from './create-db.js';
import { openSqliteFile } from './sqlite-file.js';

const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-create-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite transactions', () => {
  // The ledger's thread writes the same file on a connection of its own. A deferred transaction
  // that read before that thread committed could not write any more: SQLite refuses it at once
  // (busy_timeout does not apply), and an edit of a token or user answered 500 under traffic.
  it('hold the write lock from their start, so a commit elsewhere cannot strand their write', async () => {
    const file = path.join(dir, 'immediate.db');
    const database = createDb(`sqlite:${file}`);
    await sql`create table t (v text)`.execute(database.db);
    // The other writer gives up at once instead of waiting, so the test sees who holds the lock.
    const other = openSqliteFile(file, 0);
    try {
      let refused: unknown;
      await database.db.transaction().execute(async (trx) => {
        await sql`select count(*) from t`.execute(trx);
        try {
          other.prepare("insert into t (v) values ('other')").run();
        } catch (err) {
          refused = err;
        }
        await sql`insert into t (v) values ('mine')`.execute(trx);
      });
      expect((refused as { code?: string } | undefined)?.code).toBe('SQLITE_BUSY');
      // Once the transaction committed, the other writer writes as usual.
      other.prepare("insert into t (v) values ('other')").run();
      const rows = await sql<{ v: string }>`select v from t order by rowid`.execute(database.db);
      expect(rows.rows.map((r) => r.v)).toEqual(['mine', 'other']);
    } finally {
      other.close();
      await database.close();
    }
  });
});
