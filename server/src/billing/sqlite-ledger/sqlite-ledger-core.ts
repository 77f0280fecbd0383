import type SQLite from 'better-sqlite3';
import type { HeldQuota } from '../ledger/held-quota.js';
import { settlementAmounts, withShortfall } from '../ledger/settlement.js';
import {
  type LockedBalances,
  needsRoom,
  type PlannedSettle,
  planSettlements,
} from '../ledger/settlement-plan.js';
import {
  CHANNEL_ID_INDEX,
  LOG_COLUMNS,
  type LogRow,
  METADATA_INDEX,
  QUOTA_INDEX,
} from './consume-log-row.js';

// The ledger's SQL on one SQLite connection, with statements prepared once. It runs inside the
// ledger worker thread (main-thread commits stalled the event loop), but is
// plain synchronous code so it can be tested and reasoned about without the thread. It imports
// nothing from the workspace packages, so the thread starts from source in tests as well.

/** The token status codes the ledger writes (TokenStatus of the domain, passed in by the caller). */
export interface TokenStatusCodes {
  enabled: number;
  exhausted: number;
}

export type ReserveRefusal = 'insufficient_user_quota' | 'insufficient_token_quota';

export type { HeldQuota } from '../ledger/held-quota.js';

/**
 * A settlement to commit. The SQLite store holds quota in the main thread's memory, so its jobs come
 * with a reserve of 0: the whole final cost is taken here, as far as the balances go.
 */
export interface LedgerJob {
  held: HeldQuota;
  finalQuota: number;
  log: LogRow;
  recordLog: boolean;
  /** Its number in the settlement journal; the highest committed is kept with the commit. */
  journalSeq?: number;
}

export interface SettledAmounts {
  charged: number;
  refunded: number;
  shortfall: number;
}

/** Balances by id: users' `quota`, tokens' `remain_quota`. */
export interface BalanceRows {
  users: Map<number, number>;
  tokens: Map<number, number>;
}

export type JobResult =
  | { ok: true; value: SettledAmounts }
  | { ok: false; error: { message: string; code?: string } };

/** A job of a batch threw: the batch was rolled back and is run again job by job. */
class JobFailed extends Error {}

export class SqliteLedgerCore {
  private readonly userRoom: SQLite.Statement;
  private readonly tokenRoom: SQLite.Statement;
  private readonly settleUser: SQLite.Statement;
  private readonly moveToken: SQLite.Statement;
  private readonly addUser: SQLite.Statement;
  private readonly addToken: SQLite.Statement;
  private readonly addChannelUsed: SQLite.Statement;
  private readonly tokenState: SQLite.Statement;
  private readonly enabledStatus: number;
  private readonly insertLog: SQLite.Statement;
  private readonly markJournal: SQLite.Statement;
  private readonly publishTx: SQLite.Transaction<() => number>;
  /** Log rows committed to `logs_staging` by this connection and not published since. */
  private staged = 0;
  private readonly groupedTx: SQLite.Transaction<(jobs: readonly LedgerJob[]) => JobResult[]>;
  private readonly isolatedTx: SQLite.Transaction<(jobs: readonly LedgerJob[]) => JobResult[]>;
  /** The values bound to the log INSERT; the job's own row is never changed (a batch may run twice). */
  private readonly logValues: LogRow = LOG_COLUMNS.map(() => null);
  private settled: BalanceRows = { users: new Map(), tokens: new Map() };

  constructor(
    private readonly sqlite: SQLite.Database,
    status: TokenStatusCodes,
  ) {
    this.userRoom = sqlite.prepare('SELECT quota FROM users WHERE id = ?').pluck();
    this.tokenRoom = sqlite.prepare('SELECT remain_quota FROM tokens WHERE id = ?').pluck();
    this.settleUser = sqlite.prepare(
      'UPDATE users SET quota = quota + ?, used_quota = used_quota + ?, request_count = request_count + 1 WHERE id = ?',
    );
    // SQLite evaluates every SET expression on the old row, so the status test sees the old balance.
    this.moveToken = sqlite.prepare(
      `UPDATE tokens SET
         status = CASE WHEN ? = 1 AND status = ${Number(status.enabled)} AND remain_quota + ? <= 0
                  THEN ${Number(status.exhausted)} ELSE status END,
         remain_quota = remain_quota + ?,
         used_quota = used_quota + ?
       WHERE id = ?`,
    );
    // The summed changes of a batch (settlement-plan.ts): one UPDATE per row touched.
    this.addUser = sqlite.prepare(
      'UPDATE users SET quota = quota + ?, used_quota = used_quota + ?, request_count = request_count + ? WHERE id = ?',
    );
    this.addToken = sqlite.prepare(
      `UPDATE tokens SET
         status = CASE WHEN ? = 1 AND status = ${Number(status.enabled)} THEN ${Number(status.exhausted)} ELSE status END,
         remain_quota = remain_quota + ?,
         used_quota = used_quota + ?
       WHERE id = ?`,
    );
    this.tokenState = sqlite.prepare('SELECT remain_quota, status FROM tokens WHERE id = ?');
    this.enabledStatus = Number(status.enabled);
    this.addChannelUsed = sqlite.prepare('UPDATE channels SET used_quota = used_quota + ? WHERE id = ?');
    // One row per statement: a multi-row INSERT needs a statement journal and measured slower. The
    // settling transaction appends to `logs_staging` (no indexes, migration 0003); `publishLogs`
    // moves the rows into `logs` in bulk, where each index page they touch is written once per move
    // instead of once per group commit.
    const columns = LOG_COLUMNS.map((c) => `"${c}"`).join(', ');
    this.insertLog = sqlite.prepare(
      `INSERT INTO logs_staging (${columns}) VALUES (${LOG_COLUMNS.map(() => '?').join(', ')})`,
    );
    // The journal's settlements up to this number are committed (migration 0008): a restart after
    // a kill makes only the ones above it again.
    this.markJournal = sqlite.prepare(
      'INSERT INTO journal_marks (id, seq) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET seq = max(seq, excluded.seq)',
    );
    const moveLogs = sqlite.prepare(
      `INSERT INTO logs (${columns}) SELECT ${columns} FROM logs_staging ORDER BY rowid`,
    );
    const clearStaged = sqlite.prepare('DELETE FROM logs_staging');
    // Under the write lock nothing else writes the staging table between the two statements.
    this.publishTx = sqlite.transaction(() => {
      const moved = moveLogs.run().changes;
      clearStaged.run();
      return moved;
    });
    // The common batch: one transaction, no savepoints, balance changes summed per row. A job that
    // throws (a log row the table refuses) rolls the whole batch back, and it runs again isolated.
    this.groupedTx = sqlite.transaction((jobs: readonly LedgerJob[]) => {
      try {
        const results = this.applyGrouped(jobs);
        this.mark(jobs);
        return results;
      } catch (err) {
        throw new JobFailed(String((err as Error)?.message ?? err), { cause: err });
      }
    });
    // Each job in its own savepoint (a nested transaction), so a failing job is undone alone and its
    // neighbours still commit in the one outer transaction.
    const one = sqlite.transaction((job: LedgerJob) => this.apply(job));
    this.isolatedTx = sqlite.transaction((jobs: readonly LedgerJob[]) => {
      const results = jobs.map((job): JobResult => {
        try {
          return { ok: true, value: one(job) };
        } catch (err) {
          const e = err as { message?: string; code?: string };
          return { ok: false, error: { message: String(e?.message ?? err), code: e?.code } };
        }
      });
      this.settled = balanceRows(this.balancesOf(jobs));
      this.mark(jobs);
      return results;
    });
  }

  /**
   * Runs the jobs in one transaction (group commit); a failed job's changes alone are undone. Their
   * log rows are committed to the staging table, and reach `logs` with `publishLogs`.
   */
  runBatch(jobs: readonly LedgerJob[]): JobResult[] {
    let results: JobResult[];
    try {
      results = this.groupedTx.immediate(jobs);
    } catch (err) {
      if (!(err instanceof JobFailed)) throw err;
      results = this.isolatedTx.immediate(jobs);
    }
    jobs.forEach((job, i) => {
      if (job.recordLog && results[i]?.ok) this.staged++;
    });
    return results;
  }

  /**
   * The balances of the users and tokens of the last batch, taken in its transaction: what its
   * commit left in the database.
   */
  get settledBalances(): BalanceRows {
    return this.settled;
  }

  /** Log rows this connection committed to the staging table and has not published. */
  get stagedLogs(): number {
    return this.staged;
  }

  /**
   * Moves every staged log row into `logs`, in the order they were settled, in one transaction;
   * returns how many. It also takes rows another connection or an earlier process left staged.
   */
  publishLogs(): number {
    const moved = this.publishTx.immediate();
    this.staged = 0;
    return moved;
  }

  /**
   * A grouped batch as one plan: the balances are read only when a settlement exceeds its reserve
   * (this connection holds the write lock, so they stay as read), then one UPDATE per user, token
   * and channel touched, users first, and the log rows. What the commit leaves is the locked
   * balances plus the plan's sums, or, with none locked, read after the updates.
   */
  private applyGrouped(jobs: readonly LedgerJob[]): JobResult[] {
    const planned = jobs.map(
      (job): PlannedSettle => ({
        held: job.held,
        finalQuota: job.finalQuota,
        channelId: Number(job.log[CHANNEL_ID_INDEX] ?? 0),
      }),
    );
    const locked = planned.some(needsRoom) ? this.balancesOf(jobs) : undefined;
    const plan = planSettlements(planned, locked);
    for (const u of plan.users) this.addUser.run(u.quota, u.used, u.requests, u.id);
    for (const t of plan.tokens) this.addToken.run(t.exhausted ? 1 : 0, t.remain, t.used, t.id);
    for (const c of plan.channels) this.addChannelUsed.run(c.used, c.id);
    const results = jobs.map((job, i): JobResult => {
      const a = plan.amounts[i]!;
      if (job.recordLog) this.insert(job.log, a.charged, a.shortfall);
      return { ok: true, value: { charged: a.charged, refunded: a.refunded, shortfall: a.shortfall } };
    });
    const rows = balanceRows(locked ?? this.balancesOf(jobs));
    if (locked) {
      for (const u of plan.users) addTo(rows.users, u.id, u.quota);
      for (const t of plan.tokens) addTo(rows.tokens, t.id, t.remain);
    }
    this.settled = rows;
    return results;
  }

  private balancesOf(jobs: readonly LedgerJob[]): LockedBalances {
    const users = new Map<number, number>();
    const tokens = new Map<number, { remain: number; enabled: boolean }>();
    for (const { held } of jobs) {
      if (!users.has(held.userId)) {
        const quota = this.userRoom.get(held.userId);
        if (quota !== undefined) users.set(held.userId, Number(quota));
      }
      if (!tokens.has(held.tokenId)) {
        const row = this.tokenState.get(held.tokenId) as { remain_quota: number; status: number } | undefined;
        if (row)
          tokens.set(held.tokenId, {
            remain: Number(row.remain_quota),
            enabled: row.status === this.enabledStatus,
          });
      }
    }
    return { users, tokens };
  }

  private mark(jobs: readonly LedgerJob[]): void {
    let highest = 0;
    for (const job of jobs)
      if (job.journalSeq !== undefined && job.journalSeq > highest) highest = job.journalSeq;
    if (highest > 0) this.markJournal.run(highest);
  }

  /** A job on its own statements (the isolated path). */
  private apply(job: LedgerJob): SettledAmounts {
    const held = job.held;
    const amounts = settlementAmounts(held.amount, job.finalQuota, () => this.room(held));
    this.move(held, amounts.change, amounts.charged);
    const channelId = Number(job.log[CHANNEL_ID_INDEX] ?? 0);
    if (amounts.charged > 0 && channelId > 0) this.addChannelUsed.run(amounts.charged, channelId);
    if (job.recordLog) this.insert(job.log, amounts.charged, amounts.shortfall);
    return { charged: amounts.charged, refunded: amounts.refunded, shortfall: amounts.shortfall };
  }

  private insert(row: LogRow, charged: number, shortfall: number): void {
    const values = this.logValues;
    for (let i = 0; i < values.length; i++) values[i] = row[i] ?? null;
    values[QUOTA_INDEX] = charged;
    if (shortfall > 0) values[METADATA_INDEX] = withShortfall(String(row[METADATA_INDEX] ?? ''), shortfall);
    this.insertLog.run(values);
  }

  /** What is left on the user and, for a limited token, on the token (this connection holds the write lock). */
  private room(held: HeldQuota): number {
    let room = Math.max(0, Number(this.userRoom.get(held.userId) ?? 0));
    if (!held.tokenUnlimited)
      room = Math.min(room, Math.max(0, Number(this.tokenRoom.get(held.tokenId) ?? 0)));
    return room;
  }

  /**
   * Applies `change` (positive = give back) to the user and the limited token, adds `charged` to
   * their used quota and counts the request. A limited token that an extra charge takes to zero
   * becomes exhausted.
   */
  private move(held: HeldQuota, change: number, charged: number): void {
    this.settleUser.run(change, charged, held.userId);
    const balanceChange = held.tokenUnlimited ? 0 : change;
    if (balanceChange === 0 && charged === 0) return;
    this.moveToken.run(balanceChange < 0 ? 1 : 0, balanceChange, balanceChange, charged, held.tokenId);
  }

  close(): void {
    this.sqlite.close();
  }
}

function balanceRows(balances: LockedBalances): BalanceRows {
  const tokens = new Map<number, number>();
  for (const [id, t] of balances.tokens) tokens.set(id, t.remain);
  return { users: new Map(balances.users), tokens };
}

/** Adds to a row that was read; a row that does not exist stays out. */
function addTo(rows: Map<number, number>, id: number, amount: number): void {
  const before = rows.get(id);
  if (before !== undefined) rows.set(id, before + amount);
}
