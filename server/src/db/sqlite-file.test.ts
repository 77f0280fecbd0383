import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeMajor, openSqliteFile, sqliteDriverPackage } from './sqlite-file.js';

const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-sqlite-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the SQLite driver', () => {
  it('is better-sqlite3 13 from Node 22 on and the 12 line on Node 20', () => {
    expect(nodeMajor('20.20.2')).toBe(20);
    expect(nodeMajor('24.21.0')).toBe(24);
    expect(sqliteDriverPackage(20)).toBe('better-sqlite3-node20');
    expect(sqliteDriverPackage(22)).toBe('better-sqlite3');
    expect(sqliteDriverPackage(24)).toBe('better-sqlite3');
  });

  // CI runs the suites on the machine's Node and again on Node 24, and says which in EXPECT_NODE_MAJOR:
  // this fails when the second run silently fell back to the machine's Node.
  it.runIf(process.env.EXPECT_NODE_MAJOR)('runs on the Node this run was started for', () => {
    expect(nodeMajor()).toBe(Number(process.env.EXPECT_NODE_MAJOR));
  });

  it('opens a file in WAL mode with foreign keys, and reads it back after a reopen', () => {
    const file = path.join(dir, 'a', 'b.db');
    const db = openSqliteFile(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.exec('create table t (v text)');
    const insert = db.prepare('insert into t (v) values (?)');
    for (let i = 0; i < 100; i++) insert.run(`row ${i}`);
    expect(db.prepare('select count(*) as n from t').get()).toEqual({ n: 100 });
    db.close();
    const reopened = openSqliteFile(file);
    expect(reopened.prepare('select v from t order by rowid limit 1').get()).toEqual({ v: 'row 0' });
    reopened.close();
  });
});
