import type SQLite from 'better-sqlite3';
import { settlementAmounts, withShortfall } from './settlement.js';

// The ledger's SQL on one SQLite connection, with statements prepared once. It runs inside the
// ledger worker thread (design §4 "Speed": main-thread commits stalled the event loop), but is
// plain synchronous code so it can be tested and reasoned about without the thread. It imports
// nothing from the workspace packages, so the thread starts from source in tests as well.

/** The token status codes the ledger writes (TokenStatus of the domain, passed in by the caller). */
export interface TokenStatusCodes {
  enabled: number;
  exhausted: number;
}

export type ReserveRefusal = 'insufficient_user_quota' | 'insufficient_token_quota';

export interface HeldQuota {
  userId: number;
  tokenId: number;
  tokenUnlimited: boolean;
  amount: number;
}

/** A consume log row without `id` and `quota` (the ledger writes the amount it charged). */
export type LogValues = Record<string, string | number | boolean | null | undefined>;

export type LedgerJob =
  | { kind: 'settle'; held: HeldQuota; finalQuota: number; log: LogValues; recordLog: boolean }
  | { kind: 'release'; held: HeldQuota };

export interface SettledAmounts {
  charged: number;
  refunded: number;
  shortfall: number;
}

export type JobResult =
  | { ok: true; value: SettledAmounts }
  | { ok: false; error: { message: string; code?: string } };

/** Columns of a consume log row, in insert order (`group` is quoted: it is a keyword). */
const LOG_COLUMNS = [
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_id',
  'token_name',
  'model_name',
  'quota',
  'prompt_tokens',
  'completion_tokens',
  'channel_id',
  'request_time',
  'first_response_time',
  'is_stream',
  'source_ip',
  'group',
  'metadata',
] as const;

const TEXT_COLUMNS: ReadonlySet<string> = new Set([
  'content',
  'username',
  'token_name',
  'model_name',
  'source_ip',
  'group',
  'metadata',
]);

/** better-sqlite3 binds no booleans; a missing value takes the column's default. */
function columnValue(column: string, value: LogValues[string]): string | number | null {
  if (value === undefined) return TEXT_COLUMNS.has(column) ? '' : 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

class Refusal extends Error {
  constructor(readonly reason: ReserveRefusal) {
    super(reason);
  }
}

export class SqliteLedgerCore {
  private readonly takeUser: SQLite.Statement;
  private readonly takeToken: SQLite.Statement;
  private readonly userRoom: SQLite.Statement;
  private readonly tokenRoom: SQLite.Statement;
  private readonly moveUser: SQLite.Statement;
  private readonly settleUser: SQLite.Statement;
  private readonly moveToken: SQLite.Statement;
  private readonly addChannelUsed: SQLite.Statement;
  private readonly insertLog: SQLite.Statement;
  private readonly reserveTx: SQLite.Transaction<(held: HeldQuota) => void>;
  private readonly batchTx: SQLite.Transaction<(jobs: readonly LedgerJob[]) => JobResult[]>;

  constructor(
    private readonly sqlite: SQLite.Database,
    status: TokenStatusCodes,
  ) {
    this.takeUser = sqlite.prepare('UPDATE users SET quota = quota - ? WHERE id = ? AND quota >= ?');
    this.takeToken = sqlite.prepare(
      'UPDATE tokens SET remain_quota = remain_quota - ? WHERE id = ? AND remain_quota >= ?',
    );
    this.userRoom = sqlite.prepare('SELECT quota FROM users WHERE id = ?').pluck();
    this.tokenRoom = sqlite.prepare('SELECT remain_quota FROM tokens WHERE id = ?').pluck();
    this.moveUser = sqlite.prepare('UPDATE users SET quota = quota + ? WHERE id = ?');
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
    this.addChannelUsed = sqlite.prepare('UPDATE channels SET used_quota = used_quota + ? WHERE id = ?');
    this.insertLog = sqlite.prepare(
      `INSERT INTO logs (${LOG_COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES (${LOG_COLUMNS.map(() => '?').join(', ')})`,
    );

    this.reserveTx = sqlite.transaction((held: HeldQuota) => {
      if (this.takeUser.run(held.amount, held.userId, held.amount).changes !== 1) {
        throw new Refusal('insufficient_user_quota');
      }
      if (held.tokenUnlimited) return;
      // Throwing rolls the user's deduction back with it.
      if (this.takeToken.run(held.amount, held.tokenId, held.amount).changes !== 1) {
        throw new Refusal('insufficient_token_quota');
      }
    });

    // Each job runs in its own savepoint (a nested transaction), so a failing job is undone alone
    // and its neighbours still commit in the one outer transaction.
    const one = sqlite.transaction((job: LedgerJob) => this.apply(job));
    this.batchTx = sqlite.transaction((jobs: readonly LedgerJob[]) =>
      jobs.map((job): JobResult => {
        try {
          return { ok: true, value: one(job) };
        } catch (err) {
          const e = err as { message?: string; code?: string };
          return { ok: false, error: { message: String(e?.message ?? err), code: e?.code } };
        }
      }),
    );
  }

  /** Holds `amount` from the user and (unless unlimited) the token, both or neither. */
  reserve(held: HeldQuota): ReserveRefusal | null {
    if (held.amount <= 0) return null;
    try {
      this.reserveTx.immediate(held);
      return null;
    } catch (err) {
      if (err instanceof Refusal) return err.reason;
      throw err;
    }
  }

  /** Runs the jobs in one transaction (group commit); a failed job's changes alone are undone. */
  runBatch(jobs: readonly LedgerJob[]): JobResult[] {
    return this.batchTx.immediate(jobs);
  }

  private apply(job: LedgerJob): SettledAmounts {
    const held = job.held;
    if (job.kind === 'release') {
      this.move(held, held.amount, 0, false);
      return { charged: 0, refunded: held.amount, shortfall: 0 };
    }
    const amounts = settlementAmounts(held.amount, job.finalQuota, () => this.room(held));
    this.move(held, amounts.change, amounts.charged, true);
    const channelId = Number(job.log.channel_id ?? 0);
    if (amounts.charged > 0 && channelId > 0) this.addChannelUsed.run(amounts.charged, channelId);
    if (job.recordLog) {
      const row: LogValues = {
        ...job.log,
        quota: amounts.charged,
        metadata: withShortfall(String(job.log.metadata ?? ''), amounts.shortfall),
      };
      this.insertLog.run(LOG_COLUMNS.map((c) => columnValue(c, row[c])));
    }
    return { charged: amounts.charged, refunded: amounts.refunded, shortfall: amounts.shortfall };
  }

  /** What is left on the user and, for a limited token, on the token (this connection holds the write lock). */
  private room(held: HeldQuota): number {
    let room = Math.max(0, Number(this.userRoom.get(held.userId) ?? 0));
    if (!held.tokenUnlimited)
      room = Math.min(room, Math.max(0, Number(this.tokenRoom.get(held.tokenId) ?? 0)));
    return room;
  }

  /**
   * Applies `change` (positive = give back) to the user and the limited token and, when settling,
   * adds `charged` to their used quota and counts the request. A limited token that an extra charge
   * takes to zero becomes exhausted.
   */
  private move(held: HeldQuota, change: number, charged: number, settling: boolean): void {
    if (settling) this.settleUser.run(change, charged, held.userId);
    else this.moveUser.run(change, held.userId);
    const limited = !held.tokenUnlimited;
    const balanceChange = limited ? change : 0;
    const used = settling ? charged : 0;
    if (balanceChange === 0 && used === 0) return;
    this.moveToken.run(balanceChange < 0 ? 1 : 0, balanceChange, balanceChange, used, held.tokenId);
  }

  close(): void {
    this.sqlite.close();
  }
}
