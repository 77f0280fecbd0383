import { sqliteDriver } from '@switchyard/server/dist/db/sqlite-file.js';
import { createPool } from 'mysql2/promise';
import pg from 'pg';
import type { LedgerSnapshot } from '../report/accounting.js';

// Direct access to the gateway's database, for what the management API cannot do yet (a fourth
// group, unlimited group rates, user groups) and for counting rows and balances after a run.

export const BENCH_USER_PREFIX = 'benchuser';

export interface BenchDatabase {
  run(sql: string, params?: readonly unknown[]): Promise<void>;
  row(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Numbered placeholders for PostgreSQL from the `?` ones the queries here are written with. */
export function numberedPlaceholders(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

export async function openBenchDatabase(url: string): Promise<BenchDatabase> {
  if (url.startsWith('sqlite:')) {
    const Database = sqliteDriver();
    const db = new Database(url.slice('sqlite:'.length), { fileMustExist: true });
    db.pragma('busy_timeout = 10000');
    return {
      run: async (sql, params = []) => {
        db.prepare(sql).run(...params);
      },
      row: async (sql, params = []) => (db.prepare(sql).get(...params) as Record<string, unknown>) ?? {},
      close: async () => {
        db.close();
      },
    };
  }
  if (url.startsWith('mysql:')) {
    const pool = createPool({ uri: url, connectionLimit: 1 });
    // The queries here quote identifiers the standard way; MySQL quotes them with backticks.
    const mysqlText = (sql: string) => sql.replace(/"([a-z_]+)"/g, '`$1`');
    return {
      run: async (sql, params = []) => {
        await pool.query(mysqlText(sql), [...params]);
      },
      row: async (sql, params = []) => {
        const [rows] = await pool.query(mysqlText(sql), [...params]);
        return ((rows as Record<string, unknown>[])[0] as Record<string, unknown> | undefined) ?? {};
      },
      close: () => pool.end(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    run: async (sql, params = []) => {
      await client.query(numberedPlaceholders(sql), [...params]);
    },
    row: async (sql, params = []) => {
      const res = await client.query(numberedPlaceholders(sql), [...params]);
      return (res.rows[0] as Record<string, unknown> | undefined) ?? {};
    },
    close: () => client.end(),
  };
}

const num = (v: unknown) => Number(v ?? 0);

/** Totals of the benchmark users, their tokens, all channels and the consume log (type 2). */
export async function ledgerTotals(
  db: BenchDatabase,
): Promise<Omit<LedgerSnapshot, 'upstreamRequests' | 'abandonedCalls' | 'settlementsPending'>> {
  const users = `select id from users where username like '${BENCH_USER_PREFIX}%'`;
  const logs = await db.row('select count(*) as n, coalesce(sum(quota), 0) as q from logs where type = 2');
  const u = await db.row(
    `select coalesce(sum(quota), 0) as q, coalesce(sum(used_quota), 0) as used, coalesce(sum(request_count), 0) as r from users where id in (${users})`,
  );
  const t = await db.row(
    `select coalesce(sum(remain_quota), 0) as remain, coalesce(sum(used_quota), 0) as used from tokens where user_id in (${users})`,
  );
  const c = await db.row('select coalesce(sum(used_quota), 0) as used from channels');
  // What nodes hold in quota leases left the balances but is not spent: it counts as balance.
  // A build from before leases (--compare-root) has no such table.
  const l = await db
    .row(
      `select coalesce(sum(amount), 0) as a, coalesce(sum(case when token_limited = 1 then amount else 0 end), 0) as t from quota_leases where returned = 0 and user_id in (${users})`,
    )
    .catch((err: unknown) => {
      if (/quota_leases/.test(String(err))) return { a: 0, t: 0 };
      throw err;
    });
  // What settlements charged against a live lease is counted on its row until it goes back. A build
  // from before those counters (--compare-root) has no such columns.
  const counted = await db
    .row(
      `select coalesce(sum(used_quota), 0) as used, coalesce(sum(request_count), 0) as r from quota_leases where returned = 0 and user_id in (${users})`,
    )
    .catch((err: unknown) => {
      if (/quota_leases|used_quota|request_count/.test(String(err))) return { used: 0, r: 0 };
      throw err;
    });
  return {
    logRows: num(logs.n),
    logQuota: num(logs.q),
    userQuota: num(u.q) + num(l.a),
    userUsed: num(u.used) + num(counted.used),
    userRequests: num(u.r) + num(counted.r),
    tokenRemain: num(t.remain) + num(l.t),
    tokenUsed: num(t.used) + num(counted.used),
    channelUsed: num(c.used),
  };
}
