import { TokenStatus } from '@switchyard/domain';
import type SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createDb } from '../../db/create-db.js';
import { migrateToLatest } from '../../db/migrations/index.js';
import { openSqliteFile } from '../../db/sqlite-file.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { logRow } from './consume-log-row.js';
import { type HeldQuota, type LedgerJob, SqliteLedgerCore } from './sqlite-ledger-core.js';

const sqlite = engineTargets().find((t) => t.engine === 'sqlite')!;
const status = { enabled: TokenStatus.Enabled, exhausted: TokenStatus.Exhausted };

interface Opened {
  core: SqliteLedgerCore;
  /** A second connection, as the console would read. */
  read: SQLite.Database;
  file: string;
}

const opened: { core: SqliteLedgerCore; read: SQLite.Database; db: TestDatabase }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) {
    o.core.close();
    o.read.close();
    await o.db.drop();
  }
});

/** A fresh database: users 1..3, tokens 1..6 (4..6 unlimited), channels 1..3. */
async function open(users: number[], tokens: { user: number; remain: number; unlimited?: boolean }[]) {
  const db = await createTestDatabase(sqlite);
  const d = createDb(db.url);
  await migrateToLatest(d.db, d.dialect);
  await d.close();
  const file = db.url.slice('sqlite:'.length);
  const read = openSqliteFile(file);
  const addUser = read.prepare(
    `INSERT INTO users (id, username, password_hash, aff_code, created_time, quota) VALUES (?, ?, 'x', ?, 0, ?)`,
  );
  for (const [i, quota] of users.entries()) addUser.run(i + 1, `user${i + 1}`, `aff${i + 1}`, quota);
  const addToken = read.prepare(
    `INSERT INTO tokens (id, user_id, name, key_hash, key_sealed, created_time, remain_quota, unlimited_quota, subnet)
     VALUES (?, ?, ?, ?, '', 0, ?, ?, '')`,
  );
  for (const [i, t] of tokens.entries()) {
    addToken.run(i + 1, t.user, `token${i + 1}`, `hash${i + 1}`, t.remain, t.unlimited ? 1 : 0);
  }
  for (let c = 1; c <= 3; c++) {
    read
      .prepare(
        `INSERT INTO channels (id, key_sealed, name, created_time, base_url, other, models, "group", model_mapping,
           model_headers, custom_parameter, plugin) VALUES (?, '', ?, 0, '', '', '', '', '', '', '', '')`,
      )
      .run(c, `channel${c}`);
  }
  const o: Opened = { core: new SqliteLedgerCore(openSqliteFile(file), status), read, file };
  opened.push({ ...o, db });
  return o;
}

function snapshot(read: SQLite.Database) {
  return {
    users: read.prepare('SELECT id, quota, used_quota, request_count FROM users ORDER BY id').all(),
    tokens: read.prepare('SELECT id, remain_quota, used_quota, status FROM tokens ORDER BY id').all(),
    channels: read.prepare('SELECT id, used_quota FROM channels ORDER BY id').all(),
    logs: read
      .prepare(
        'SELECT user_id, token_id, content, quota, prompt_tokens, channel_id, metadata FROM logs ORDER BY id',
      )
      .all(),
  };
}

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function numbers(seed: number): (below: number) => number {
  let s = seed;
  return (below) => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    // The low bits of this generator repeat quickly; the high ones do not.
    return Math.floor(s / 65_536) % below;
  };
}

const USERS = [20_000, 3_000, 900];
const TOKENS = [
  { user: 1, remain: 1_500 },
  { user: 2, remain: 2_500 },
  { user: 3, remain: 5_000 },
  { user: 1, remain: 0, unlimited: true },
  { user: 2, remain: 0, unlimited: true },
  { user: 3, remain: 400 },
];

/**
 * Settlements as the SQLite store sends them: the reserve lived in the main thread's memory, so each
 * job charges its whole cost from a reserve of 0. Finals are often more than the balances hold, so
 * shortfalls and exhausted tokens occur.
 */
function scenario(seed: number, count: number): LedgerJob[] {
  const next = numbers(seed);
  const jobs: LedgerJob[] = [];
  for (let i = 0; i < count; i++) {
    const tokenId = 1 + next(TOKENS.length);
    const token = TOKENS[tokenId - 1]!;
    const held: HeldQuota = {
      userId: token.user,
      tokenId,
      tokenUnlimited: token.unlimited === true,
      amount: 0,
    };
    const channelId = next(4);
    jobs.push({
      held,
      finalQuota: next(3) === 0 ? 0 : next(400),
      recordLog: next(6) !== 0,
      log: logRow({
        user_id: held.userId,
        token_id: tokenId,
        content: `call ${i}`,
        channel_id: channelId,
        prompt_tokens: i,
        metadata: i % 5 === 0 ? 'not json' : `{"i":${i}}`,
      }),
    });
  }
  return jobs;
}

describe('SqliteLedgerCore', () => {
  it('commits log rows to the staging table with their settlement, and publishes them in order', async () => {
    const o = await open([1000], [{ user: 1, remain: 0, unlimited: true }]);
    const settle = (content: string, finalQuota: number, recordLog = true): LedgerJob => ({
      held: { userId: 1, tokenId: 1, tokenUnlimited: true, amount: 0 },
      finalQuota,
      recordLog,
      log: logRow({ content }),
    });
    const staged = () => o.read.prepare('SELECT content, quota FROM logs_staging ORDER BY rowid').all();
    const logs = () => o.read.prepare('SELECT content, quota FROM logs ORDER BY id').all();
    o.core.runBatch([settle('a', 3), settle('unlogged', 4, false), settle('b', 5)]);
    o.core.runBatch([settle('c', 6)]);
    expect(o.core.stagedLogs).toBe(3);
    expect(staged()).toEqual([
      { content: 'a', quota: 3 },
      { content: 'b', quota: 5 },
      { content: 'c', quota: 6 },
    ]);
    expect(logs()).toEqual([]);
    // The balance moved with the staged rows, before any publishing.
    expect(o.read.prepare('SELECT used_quota FROM users WHERE id = 1').pluck().get()).toBe(18);

    // Rows another connection staged are taken along, in the order they were committed.
    const other = new SqliteLedgerCore(openSqliteFile(o.file), status);
    other.runBatch([settle('d', 7)]);
    other.close();
    expect(o.core.publishLogs()).toBe(4);
    expect(o.core.stagedLogs).toBe(0);
    expect(staged()).toEqual([]);
    expect(logs()).toEqual([
      { content: 'a', quota: 3 },
      { content: 'b', quota: 5 },
      { content: 'c', quota: 6 },
      { content: 'd', quota: 7 },
    ]);
    expect(o.core.publishLogs()).toBe(0);
  });

  it('lands a batch with many settlements of the same users and tokens exactly as one by one', async () => {
    const grouped = await open(USERS, TOKENS);
    const single = await open(USERS, TOKENS);
    const isolated = await open(USERS, TOKENS);
    const jobsA = scenario(7, 240);
    const jobsB = scenario(7, 240);
    const jobsC = scenario(7, 240);

    const resultsA = [];
    for (let i = 0; i < jobsA.length; i += 60)
      resultsA.push(...grouped.core.runBatch(jobsA.slice(i, i + 60)));
    // Publishing between batches changes nothing but when the rows reach `logs`.
    const resultsB = jobsB.flatMap((job, i) => {
      if (i % 37 === 0) single.core.publishLogs();
      return single.core.runBatch([job]);
    });
    // A log row the table refuses sends a whole batch down the savepoint-per-job path.
    const bad: LedgerJob = {
      held: { userId: 1, tokenId: 4, tokenUnlimited: true, amount: 0 },
      finalQuota: 0,
      recordLog: true,
      log: logRow({ user_id: null }),
    };
    const resultsC = [];
    for (let i = 0; i < jobsC.length; i += 60) {
      const results = isolated.core.runBatch([...jobsC.slice(i, i + 60), bad]);
      expect(results.at(-1)?.ok).toBe(false);
      resultsC.push(...results.slice(0, -1));
    }
    expect(resultsA).toEqual(resultsB);
    expect(resultsA).toEqual(resultsC);

    for (const o of [grouped, single, isolated]) o.core.publishLogs();
    const a = snapshot(grouped.read);
    expect(a).toEqual(snapshot(single.read));
    expect(a).toEqual(snapshot(isolated.read));
    // The scenario reached the cases that matter.
    expect(resultsA.some((r) => r.ok && r.value.shortfall > 0)).toBe(true);
    expect(a.tokens.some((t) => (t as { status: number }).status === TokenStatus.Exhausted)).toBe(true);
    expect(a.logs.some((l) => String((l as { metadata: string }).metadata).includes('shortfall'))).toBe(true);
  });

  it('reports the balances its commit left, whether the batch ran grouped or job by job', async () => {
    const o = await open(USERS, TOKENS);
    const jobs = scenario(11, 120);
    const committed = (ids: { users: number[]; tokens: number[] }) => ({
      users: new Map(
        ids.users.map((id) => [
          id,
          o.read.prepare('SELECT quota FROM users WHERE id = ?').pluck().get(id) as number,
        ]),
      ),
      tokens: new Map(
        ids.tokens.map((id) => [
          id,
          o.read.prepare('SELECT remain_quota FROM tokens WHERE id = ?').pluck().get(id) as number,
        ]),
      ),
    });
    const bad: LedgerJob = {
      held: { userId: 2, tokenId: 2, tokenUnlimited: false, amount: 0 },
      finalQuota: 5,
      recordLog: true,
      log: logRow({ user_id: null }),
    };
    for (let i = 0; i < jobs.length; i += 30) {
      // Every other batch holds a job that fails: it runs job by job.
      const batch = i % 60 === 0 ? jobs.slice(i, i + 30) : [...jobs.slice(i, i + 30), bad];
      o.core.runBatch(batch);
      const reported = o.core.settledBalances;
      const limited = batch.filter((j) => !j.held.tokenUnlimited).map((j) => j.held.tokenId);
      expect(reported.users).toEqual(committed({ users: [...reported.users.keys()], tokens: [] }).users);
      expect(reported.tokens).toEqual(committed({ users: [], tokens: [...reported.tokens.keys()] }).tokens);
      // Every user and limited token of the batch is reported.
      expect([...reported.users.keys()].sort()).toEqual([...new Set(batch.map((j) => j.held.userId))].sort());
      for (const id of limited) expect(reported.tokens.has(id)).toBe(true);
    }
  });
});
