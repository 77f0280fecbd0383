import { randomBytes } from 'node:crypto';
import { LogType, TokenStatus } from '@switchyard/domain';
import { CompiledQuery, type Insertable, sql, type Transaction } from 'kysely';
import { isConnectionLoss } from '../../db/connection-loss.js';
import type { Database } from '../../db/create-db.js';
import { preparedAs } from '../../db/pg-client.js';
import { storableText } from '../../db/storable-text.js';
import type { LogsTable, Tables } from '../../db/tables.js';
import { type Budget, QuotaLeases } from '../leases/quota-leases.js';
import type { ConsumeLog, LedgerStore, ReserveRefusal, ReserveRequest } from '../ledger/ledger.js';
import { settlementAmounts, withShortfall } from '../ledger/settlement.js';
import {
  givenBack,
  type LockedBalances,
  needsRoom,
  type PlannedSettle,
  planSettlements,
} from '../ledger/settlement-plan.js';
import type { HeldQuota, SettledAmounts } from '../sqlite-ledger/sqlite-ledger-core.js';
import { applyPlan, type GroupLogRow, GroupStatements } from './group-statements.js';
import { settledAmong } from './settled-marks.js';
import { SettlementQueue } from './settlement-queue.js';
import { isTransient, type WriteBatcher, WriteBatcherClosedError } from './write-batcher.js';

/** A settlement (`settle` set) or a release waiting for its group. */
interface QueuedSettle {
  held: HeldQuota;
  settle: { finalQuota: number; log: ConsumeLog; recordLog: boolean } | undefined;
  /** The quota lease `held.amount` came from (then `held.ref` is unset: no reserve row). */
  leaseId?: string | undefined;
  /** The journal number of a settlement that has no reserve row: `ledger_settled` records it. */
  mark?: number | undefined;
  /**
   * What the last run of its group that got past the claims computed: when a COMMIT's answer was
   * lost and the run after it finds the item made, this is what was charged.
   */
  answered?: SettledAmounts | undefined;
}

/**
 * Refs of reservations held in a local budget start with this. A reserve row's ref starts with the
 * boot id, base64url, which never contains `~` (an `L` prefix was mistaken for one in 1 boot of 64).
 */
const LOCAL_REF = '~';

// 500 rows x 19 columns stay far below the 65 535 parameters PostgreSQL and MySQL allow a statement
// and SQLite's 32 766.
const LOG_ROWS_PER_INSERT = 500;

/**
 * A settlement's log row. `quota` comes before the spread: V8 adds a key that follows a spread in
 * a literal through a slow runtime call (an override of a key the spread brought is fast).
 */
function logRow(log: ConsumeLog, charged: number, shortfall: number): GroupLogRow {
  return { quota: charged, ...log, metadata: withShortfall(log.metadata, shortfall) };
}

export interface ReserveKeeping {
  /** This node's stable name: a restart gives back the reserves a previous run of it held. */
  nodeId?: string;
  /**
   * Seconds a reserve lives unless its node renews it (every third of it). After that any node may
   * give it back: longer than a node may go without reaching the database. Default 120.
   */
  leaseSeconds?: number;
  nowSeconds?: () => number;
  /** Told of a renewal or a sweep that failed (it is tried again at the next round). */
  onError?: (message: string) => void;
  /**
   * Quota moved at a time into a lease this node reserves against in memory (quota-leases.ts). 0,
   * the default here, reserves every call in the database; main.ts turns leases on.
   */
  leaseSlice?: number;
  /** Seconds after which an unused lease is given back. Default `leaseSeconds`. */
  leaseIdleSeconds?: number;
}

/** What a settlement found of its reserve's row when it claimed it. */
enum Claim {
  /** The row was there: the reserve is still held. */
  Held,
  /** Given back by a sweep or a restart: the settlement charges its whole cost as an overrun. */
  Returned,
  /** No row: this settlement committed already (its COMMIT's answer was lost and it ran again). */
  Done,
}

/** A claimed item's reserve as its settlement must count it. */
function heldAs(held: HeldQuota, claim: Claim): HeldQuota {
  return claim === Claim.Returned ? { ...held, amount: 0 } : held;
}

const NOTHING: SettledAmounts = { charged: 0, refunded: 0, shortfall: 0 };

/** The live leases of a group, locked in id order as every node locks them. */
const PG_LOCK_LEASES = preparedAs(
  'sy_lock_leases',
  'select id from quota_leases where id = any($1::text[]) and returned = 0 order by id for update',
);
/** Tries of a reserve the engine ended as a deadlock or a lock wait timeout. */
const RESERVE_ATTEMPTS = 4;
/** Reserves given back per statement by a start-up or a sweep. */
const RETURN_BATCH = 500;
/** Rows of reserves given back are kept this long, for a settlement that may still come. */
const RETURNED_KEPT_SECONDS = 86_400;

/** Columns of `logs` that are indexed strings (191 characters on MySQL). */
const SHORT_LOG_COLUMNS = ['username', 'token_name', 'model_name', 'group', 'source_ip'] as const;

/** A log row every engine stores: text without NUL or lone surrogates, short columns cut to 191. */
function storableLog(log: ConsumeLog): ConsumeLog {
  const out: Record<string, unknown> = { ...log };
  for (const [key, value] of Object.entries(out))
    if (typeof value === 'string') out[key] = storableText(value);
  for (const key of SHORT_LOG_COLUMNS) {
    const value = out[key];
    if (typeof value === 'string' && value.length > 191) out[key] = value.slice(0, 191);
  }
  return out as ConsumeLog;
}

class Refusal extends Error {
  constructor(readonly reason: ReserveRefusal) {
    super(reason);
  }
}

/**
 * The ledger's SQL through Kysely, for PostgreSQL and MySQL (and SQLite without a file). Reserves
 * run directly, in as few round trips as the engine allows; settlements and releases go through
 * the group-commit writer. Every balance change is a relative, conditional UPDATE, so no
 * interleaving of requests, nodes or engines takes a user or a token below zero (one-hub lets
 * balances go negative).
 */
export interface WriterLevels {
  /** Transactions committed, and the ledger writes they held (their ratio is the batch size). */
  commits: number;
  committedJobs: number;
  failedJobs: number;
  /** Ledger writes submitted and not finished. */
  queued: number;
  /** Age of the oldest of them. */
  lagSeconds: number;
  /** The least time between two commits of this node now. */
  gapSeconds: number;
}

export class KyselyLedgerStore implements LedgerStore {
  private readonly queue: SettlementQueue<QueuedSettle, SettledAmounts>;
  readonly nodeId: string;
  private readonly bootId = randomBytes(6).toString('base64url');
  private sequence = 0;
  private readonly leaseSeconds: number;
  private readonly nowSeconds: () => number;
  private readonly onError: (message: string) => void;
  /** A `balancesChanged` check on its way, and whether another was asked for meanwhile. */
  private checking: Promise<void> | undefined;
  private checkAgain = false;
  private keeper: NodeJS.Timeout | undefined;
  private keeping: Promise<void> = Promise.resolve();
  private started = false;
  readonly leases: QuotaLeases;
  /** The budget of each reservation held locally, until its settlement or release. */
  private readonly leased = new Map<string, Budget>();
  /**
   * Journal numbers of settlements without a reserve row handed over and not answered, and of those
   * left for the next start's replay (the ledger closed, the database stayed away): `ledger_settled`
   * rows below the lowest are no longer needed.
   */
  private readonly openMarks = new Set<number>();
  private highestMark = 0;

  constructor(
    private readonly database: Database,
    private readonly writer: WriteBatcher,
    keeping: ReserveKeeping = {},
  ) {
    this.queue = new SettlementQueue(writer, {
      runGroup: (trx, items, again) => this.settleGroup(trx, items, again),
      runOne: (trx, item) => this.runOne(trx, item),
    });
    this.nodeId = keeping.nodeId ?? `node-${randomBytes(6).toString('hex')}`;
    this.leaseSeconds = keeping.leaseSeconds ?? 120;
    this.nowSeconds = keeping.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
    this.onError = keeping.onError ?? (() => {});
    this.leases = new QuotaLeases(
      database,
      this.nodeId,
      this.bootId,
      { slice: keeping.leaseSlice ?? 0, idleSeconds: keeping.leaseIdleSeconds ?? this.leaseSeconds },
      this.leaseSeconds,
      this.nowSeconds,
      this.onError,
    );
  }

  nextRef(): string {
    return `${this.bootId}.${(++this.sequence).toString(36)}`;
  }

  /** The group-commit writer's levels, for metrics: what it committed, holds and how far it lags. */
  writerLevels(): WriterLevels {
    const stats = this.writer.stats();
    return {
      commits: stats.commits,
      committedJobs: stats.committedJobs,
      failedJobs: stats.failedJobs,
      queued: this.writer.inFlight + this.writer.blocked,
      lagSeconds: this.writer.lagMs() / 1000,
      gapSeconds: this.writer.currentGapMs / 1000,
    };
  }

  reserveLocally(request: ReserveRequest): string | undefined {
    const budget = this.leases.take(request);
    if (!budget) return undefined;
    const ref = `${LOCAL_REF}${this.bootId}.${(++this.sequence).toString(36)}`;
    this.leased.set(ref, budget);
    return ref;
  }

  isLocalRef(ref: string): boolean {
    return ref.startsWith(LOCAL_REF);
  }

  /** Before a replay: a previous run's leases go back, so its journaled settlements charge the balances. */
  async recover(): Promise<void> {
    await this.returnLeases({ own: true });
  }

  /** The highest journal number of a committed settlement that had no reserve row. */
  async journalMark(): Promise<number> {
    const settled = await this.database.db
      .selectFrom('ledger_settled')
      .select((eb) => eb.fn.max('hi').as('hi'))
      .where('node_id', '=', this.nodeId)
      .executeTakeFirst();
    return Math.max(Number(settled?.hi ?? 0), await this.legacyMark());
  }

  /** Which of these journal numbers of settlements without a reserve row committed. */
  async committedAmong(seqs: readonly number[]): Promise<Set<number>> {
    const found = await settledAmong(this.database.db, this.nodeId, seqs);
    // A journal an older version left: its lease settlements kept only the highest number.
    const legacy = await this.legacyMark();
    for (const n of seqs) if (n <= legacy) found.add(n);
    return found;
  }

  /** `ledger_marks`, which versions before `ledger_settled` wrote. */
  private async legacyMark(): Promise<number> {
    const row = await this.database.db
      .selectFrom('ledger_marks')
      .select('seq')
      .where('node_id', '=', this.nodeId)
      .executeTakeFirst();
    return row ? Number(row.seq) : 0;
  }

  /**
   * Gives back every reserve a previous run of this node left (it crashed or was killed between a
   * reserve and its settlement), then renews this node's reserves and gives back other nodes'
   * expired ones every third of the lease.
   */
  async start(): Promise<void> {
    this.started = true;
    await this.returnReserves('own');
    await this.returnLeases({ own: true });
    this.leases.renewed(this.nowSeconds());
    this.stopKeeping();
    const every = Math.max(1000, (this.leaseSeconds * 1000) / 3);
    this.keeper = setInterval(() => {
      this.keeping = this.keep().catch((err: unknown) =>
        this.onError(`reserve upkeep failed: ${String(err)}`),
      );
    }, every);
    this.keeper.unref();
  }

  /**
   * Renews this node's reserves and leases, gives back its retired and idle leases and any node's
   * expired reserves and leases, stops using a lease another node gave back, and forgets
   * long-returned rows.
   */
  async keep(): Promise<void> {
    const now = this.nowSeconds();
    await this.database.db
      .updateTable('reserves')
      .set({ expires_at: now + this.leaseSeconds })
      .where('node_id', '=', this.nodeId)
      .where('returned', '=', 0)
      .execute();
    await this.database.db
      .updateTable('quota_leases')
      .set({ expires_at: now + this.leaseSeconds })
      .where('node_id', '=', this.nodeId)
      .where('returned', '=', 0)
      .execute();
    this.leases.renewed(now);
    await this.forgetSettledMarks();
    await this.forgetReturnedLeases();
    await this.returnLeases({ ids: this.leases.retiredIds() });
    await this.returnReserves('expired');
    await this.returnLeases({ expiredBefore: now });
    for (const table of ['reserves', 'quota_leases'] as const)
      await this.database.db
        .deleteFrom(table)
        .where('returned', '=', 1)
        .where('expires_at', '<', now - RETURNED_KEPT_SECONDS)
        .execute();
  }

  /** Deletes this node's `ledger_settled` rows that no settlement left open can be in. */
  private async forgetSettledMarks(): Promise<void> {
    let below = this.highestMark + 1;
    for (const n of this.openMarks) below = Math.min(below, n);
    await this.writer.submit(async (trx) => {
      await trx
        .deleteFrom('ledger_settled')
        .where('node_id', '=', this.nodeId)
        .where('hi', '<', below)
        .execute();
    });
  }

  /** Stops using this node's leases that were given back elsewhere (a balance written outright). */
  private async forgetReturnedLeases(): Promise<void> {
    const live = this.leases.liveIds();
    if (live.length === 0) return;
    const gone = await this.database.db
      .selectFrom('quota_leases')
      .select('id')
      .where('id', 'in', live)
      .where('returned', '=', 1)
      .execute();
    if (gone.length > 0) this.leases.forget(new Set(gone.map((r) => r.id)));
  }

  /**
   * A user or token changed (the change bus): its leases may have been given back by a balance
   * written outright, so this node checks at once rather than at its next upkeep. Checks that come
   * while one runs make one more check after it.
   */
  balancesChanged(): void {
    if (!this.leases.enabled) return;
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    this.checking = this.forgetReturnedLeases()
      .catch((err: unknown) => this.onError(`checking this node's quota leases failed: ${String(err)}`))
      .finally(() => {
        this.checking = undefined;
        if (this.checkAgain) {
          this.checkAgain = false;
          this.balancesChanged();
        }
      });
  }

  /** Gives back lease rows (see `QuotaLeases.giveBackRows`) through the writer, in batches. */
  async returnLeases(
    which: { own: true } | { expiredBefore: number } | { ids: readonly string[] },
  ): Promise<number> {
    let total = 0;
    for (;;) {
      let found = 0;
      await this.writer.submit(async (trx) => {
        found = await this.leases.giveBackRows(trx, which, RETURN_BATCH);
      });
      total += found;
      if (found < RETURN_BATCH) return total;
    }
  }

  /**
   * Gives back, in batches, the reserves of this node (`own`: at start-up and at a clean stop) or of
   * any node whose lease ran out (`expired`), and marks them returned. Runs through the writer, so a
   * lost connection is tried again and the batches of settlements lock rows in the same order.
   * Answers how many were given back.
   */
  async returnReserves(which: 'own' | 'expired'): Promise<number> {
    let total = 0;
    for (;;) {
      let found = 0;
      await this.writer.submit(async (trx) => {
        let query = trx
          .selectFrom('reserves')
          .select(['id', 'user_id', 'token_id', 'token_limited', 'amount'])
          .where('returned', '=', 0)
          .orderBy('id')
          .limit(RETURN_BATCH);
        query =
          which === 'own'
            ? query.where('node_id', '=', this.nodeId)
            : query.where('expires_at', '<', this.nowSeconds());
        if (this.database.dialect !== 'sqlite') query = query.forUpdate();
        const rows = await query.execute();
        found = rows.length;
        if (rows.length === 0) return;
        await applyPlan(trx, this.database, planSettlements(rows.map(givenBack)));
        await trx
          .updateTable('reserves')
          .set({ returned: 1 })
          .where(
            'id',
            'in',
            rows.map((r) => r.id),
          )
          .execute();
      });
      total += found;
      if (found < RETURN_BATCH) return total;
    }
  }

  private stopKeeping(): void {
    if (this.keeper) clearInterval(this.keeper);
    this.keeper = undefined;
  }

  /**
   * The user is locked before the token on every path, in the same order as settlement, so the
   * two never deadlock on PostgreSQL or MySQL. A reserve is on the path of every relay request and
   * its row locks are held until it commits, so round trips count twice: each one is paid by the
   * request and by every request waiting on the same user.
   */
  async reserve(held: HeldQuota): Promise<ReserveRefusal | null> {
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          if (this.database.dialect === 'postgres') return await this.reserveByFunction(held);
          // MySQL and SQLite: the balances and the reserve's row in one transaction.
          return await this.reserveInTransaction(held);
        } catch (err) {
          // MySQL may still end a reserve as a deadlock's victim (gap locks of the reserves' index);
          // nothing of it was kept.
          if (attempt >= RESERVE_ATTEMPTS || !isTransient(err)) throw err;
          await new Promise((r) => setTimeout(r, 2 * attempt));
        }
      }
    } catch (err) {
      // The answer may have been lost after the reserve committed (a dropped connection): its row
      // is then given back by a release, which finds nothing to do when the reserve never happened.
      if (held.ref !== undefined) this.release(held).catch(() => {});
      throw err;
    }
  }

  /** The reserve's row, written in the transaction that takes the balances. */
  private reserveRow(held: HeldQuota) {
    return {
      id: held.ref ?? this.nextRef(),
      node_id: this.nodeId,
      user_id: held.userId,
      token_id: held.tokenId,
      token_limited: held.tokenUnlimited ? 0 : 1,
      amount: held.amount,
      expires_at: this.nowSeconds() + this.leaseSeconds,
      returned: 0,
    };
  }

  /** One round trip: `hold_quota` (migration 0006) takes the balances and writes the row, or does nothing. */
  private async reserveByFunction(held: HeldQuota): Promise<ReserveRefusal | null> {
    const row = this.reserveRow(held);
    const result = await sql<{ refusal: string | null }>`
      select hold_quota(${row.id}, ${row.node_id}, ${row.expires_at}, ${held.userId}, ${held.tokenId},
        ${!held.tokenUnlimited}, ${held.amount}) as refusal`.execute(this.database.db);
    const refusal = result.rows[0]?.refusal ?? null;
    if (refusal === null || refusal === 'insufficient_user_quota' || refusal === 'insufficient_token_quota')
      return refusal;
    throw new Error(`reserve_quota answered ${refusal}`);
  }

  private async reserveInTransaction(held: HeldQuota): Promise<ReserveRefusal | null> {
    const amount = held.amount;
    try {
      await this.database.db.transaction().execute(async (trx) => {
        // The row first, then the balances: the order a settlement group locks them in (its reserve
        // rows, then balances), so the two do not deadlock on MySQL. A refusal rolls the row back.
        await trx.insertInto('reserves').values(this.reserveRow(held)).execute();
        const user = await trx
          .updateTable('users')
          .set((eb) => ({ quota: eb('quota', '-', amount) }))
          .where('id', '=', held.userId)
          .where('quota', '>=', amount)
          .executeTakeFirst();
        if (Number(user.numUpdatedRows) !== 1) throw new Refusal('insufficient_user_quota');
        if (!held.tokenUnlimited) {
          const token = await trx
            .updateTable('tokens')
            .set((eb) => ({ remain_quota: eb('remain_quota', '-', amount) }))
            .where('id', '=', held.tokenId)
            .where('remain_quota', '>=', amount)
            .executeTakeFirst();
          // Throwing rolls the user's deduction back with it.
          if (Number(token.numUpdatedRows) !== 1) throw new Refusal('insufficient_token_quota');
        }
      });
    } catch (err) {
      if (err instanceof Refusal) return err.reason;
      throw err;
    }
    return null;
  }

  settle(
    held: HeldQuota,
    finalQuota: number,
    log: ConsumeLog,
    recordLog: boolean,
    journalSeq?: number,
  ): Promise<SettledAmounts> {
    const item: QueuedSettle = { held, settle: { finalQuota, log, recordLog } };
    const local = held.ref?.startsWith(LOCAL_REF) ?? false;
    if (local) this.fromLease(item);
    const mark = (local || held.ref === undefined) && journalSeq !== undefined ? journalSeq : undefined;
    if (mark !== undefined) {
      item.mark = mark;
      this.openMarks.add(mark);
      if (mark > this.highestMark) this.highestMark = mark;
    }
    const settled = this.queue.add(item).catch((err: unknown) => this.refused(err, item));
    if (mark === undefined) return settled;
    return settled.then(
      (amounts) => {
        this.openMarks.delete(mark);
        return amounts;
      },
      (err: unknown) => {
        // Not made, and the journal keeps it for the next start: its row may be needed then.
        if (!(err instanceof WriteBatcherClosedError || isConnectionLoss(err))) this.openMarks.delete(mark);
        throw err;
      },
    );
  }

  /**
   * A settlement of a reservation held locally: an overrun is taken from the budget as far as it
   * goes, and what the lease will not be charged goes back to the budget now (the row still holds
   * it until the charge commits, so the budget never promises more than the row). Without its
   * budget (a replay after a restart, whose leases went back first) it charges the balances.
   */
  private fromLease(item: QueuedSettle): void {
    const ref = item.held.ref!;
    const budget = this.leased.get(ref);
    this.leased.delete(ref);
    const finalQuota = item.settle!.finalQuota;
    let covered = 0;
    if (budget) {
      covered = item.held.amount;
      if (finalQuota > covered) covered += this.leases.takeMore(budget, finalQuota - covered);
      this.leases.giveBack(budget, covered - Math.min(finalQuota, covered), true);
      item.leaseId = budget.id;
    }
    item.held = { ...item.held, amount: covered, ref: undefined };
  }

  /**
   * A settlement the database refused for good (not a lost connection, which the writer waits out,
   * nor a closed ledger): it runs again with its log row's text cleaned, and is kept in
   * `settlement_dead_letters` with the error, whether it was then charged, and an error line.
   */
  private async refused(err: unknown, item: QueuedSettle): Promise<SettledAmounts> {
    if (err instanceof WriteBatcherClosedError || isConnectionLoss(err)) throw err;
    const { held } = item;
    const { finalQuota, log } = item.settle!;
    let amounts: SettledAmounts | undefined;
    let again: unknown;
    try {
      amounts = await this.queue.add({ ...item, settle: { ...item.settle!, log: storableLog(log) } });
    } catch (e) {
      again = e;
    }
    const charged = amounts !== undefined;
    this.onError(
      `the database refused the settlement of user ${held.userId}, token ${held.tokenId} (${String(err)}); ` +
        `${charged ? 'charged with its text cleaned' : `NOT charged (${String(again)})`}; kept in settlement_dead_letters`,
    );
    const now = this.nowSeconds();
    await this.database.db
      .insertInto('settlement_dead_letters')
      .values({
        created_at: now,
        user_id: held.userId,
        token_id: held.tokenId,
        channel_id: log.channel_id ?? 0,
        reserved: held.amount,
        final_quota: finalQuota,
        charged: charged ? 1 : 0,
        error: storableText(String(err)),
        log: JSON.stringify(log),
      })
      .execute()
      .catch((e: unknown) =>
        this.onError(`could not keep a refused settlement: ${String(e)}; it was ${JSON.stringify(log)}`),
      );
    // A system row in the administrators' log (user 0: the user does not see the database's error).
    await this.database.db
      .insertInto('logs')
      .values({
        ...systemLogRow(now),
        content: storableText(
          `The database refused the settlement of a call of user ${held.userId} (token ${held.tokenId}, ` +
            `${finalQuota} quota): ${charged ? 'charged with its text cleaned' : 'NOT charged'}. ` +
            'Details: GET /api/log/dead_letters',
        ).slice(0, 4000),
        channel_id: log.channel_id ?? 0,
      })
      .execute()
      .catch(() => {});
    if (!amounts) throw err;
    return amounts;
  }

  async release(held: HeldQuota): Promise<void> {
    if (held.ref?.startsWith(LOCAL_REF)) {
      // Held in memory: it goes back to the budget, no database work at all.
      const budget = this.leased.get(held.ref);
      this.leased.delete(held.ref);
      if (budget) this.leases.giveBack(budget, held.amount, true);
      return;
    }
    await this.queue.add({ held, settle: undefined });
  }

  flush(): Promise<void> {
    return this.queue.flush();
  }

  /**
   * Drains the settlements, then gives back what this node still holds (a reserve whose answer was
   * lost), so a node that stops for good leaves nothing for the others to wait out.
   */
  async close(): Promise<void> {
    this.stopKeeping();
    await this.leases.stop();
    await this.keeping;
    await this.queue.flush();
    if (this.started) {
      await this.returnReserves('own').catch((err: unknown) =>
        this.onError(`returning this node's reserves failed: ${String(err)}`),
      );
      await this.returnLeases({ own: true }).catch((err: unknown) =>
        this.onError(`returning this node's quota leases failed: ${String(err)}`),
      );
    }
    await this.queue.close();
  }

  /**
   * A whole group of settlements and releases in a fixed number of statements: the balances are
   * read under lock only when one of them exceeds its reserve, then one UPDATE per user, token and
   * channel touched (users, then tokens, then channels, each by id: the order every node locks in,
   * so two nodes never deadlock on them), and the log rows in multi-row INSERTs.
   */
  private async settleGroup(
    trx: Transaction<Tables>,
    items: readonly QueuedSettle[],
    again: boolean,
  ): Promise<SettledAmounts[]> {
    const claims = await this.claim(trx, items);
    const made = again ? await this.madeBefore(trx, items) : new Set<number>();
    const leases = await this.lockLeases(trx, items);
    const live: QueuedSettle[] = [];
    const at: number[] = [];
    items.forEach((item, i) => {
      const claim = item.mark !== undefined && made.has(item.mark) ? Claim.Done : claims(item.held);
      if (claim === Claim.Done) return;
      if (item.leaseId !== undefined && !leases.has(item.leaseId))
        // The lease went back to the balances meanwhile: the whole cost is charged from them.
        live.push({ ...item, held: { ...item.held, amount: 0 }, leaseId: undefined });
      else live.push(claim === Claim.Returned ? { ...item, held: heldAs(item.held, claim) } : item);
      at.push(i);
    });
    const planned = live.map(
      (item): PlannedSettle => ({
        held: item.held,
        finalQuota: item.settle?.finalQuota,
        channelId: item.settle?.log.channel_id ?? 0,
        leaseId: item.leaseId,
      }),
    );
    const balances = planned.some(needsRoom) ? await this.lockBalances(trx, live) : undefined;
    const plan = planSettlements(planned, balances);
    const writes = this.statements();
    writes.groupWrites(
      plan,
      this.nodeId,
      live.flatMap((item) => (item.mark === undefined ? [] : [item.mark])),
    );
    const rows: GroupLogRow[] = [];
    live.forEach((item, i) => {
      const a = plan.amounts[i]!;
      if (item.settle?.recordLog) rows.push(logRow(item.settle.log, a.charged, a.shortfall));
    });
    writes.insertLogs(rows, LOG_ROWS_PER_INSERT);
    await writes.run(trx);
    // An item made by an earlier run whose answer was lost answers what that run computed.
    const answers: SettledAmounts[] = items.map((item) => item.answered ?? NOTHING);
    at.forEach((index, i) => {
      const a = plan.amounts[i]!;
      answers[index] = { charged: a.charged, refunded: a.refunded, shortfall: a.shortfall };
      items[index]!.answered = answers[index];
    });
    return answers;
  }

  /**
   * The items' journal numbers that a committed run of their group recorded: asked only when the
   * group ran before (its COMMIT's answer may have been lost), so a first run costs nothing.
   */
  private madeBefore(trx: Transaction<Tables>, items: readonly QueuedSettle[]): Promise<Set<number>> {
    return settledAmong(
      trx,
      this.nodeId,
      items.flatMap((i) => (i.mark === undefined ? [] : [i.mark])),
    );
  }

  /**
   * Deletes the rows of the items' reserves, in this transaction, and says what each item found:
   * the reserve held, given back meanwhile, or settled already. Items without a row count as held.
   */
  private async claim(
    trx: Transaction<Tables>,
    items: readonly QueuedSettle[],
  ): Promise<(held: HeldQuota) => Claim> {
    const refs = items.flatMap((i) => (i.held.ref === undefined ? [] : [i.held.ref]));
    if (refs.length === 0) return () => Claim.Held;
    let found: { id: string; returned: number }[];
    if (this.database.dialect === 'postgres') {
      found = await trx
        .deleteFrom('reserves')
        .where('id', 'in', refs)
        .returning(['id', 'returned'])
        .execute();
    } else {
      let query = trx.selectFrom('reserves').select(['id', 'returned']).where('id', 'in', refs);
      if (this.database.dialect === 'mysql') query = query.forUpdate();
      found = await query.execute();
      if (found.length > 0) await trx.deleteFrom('reserves').where('id', 'in', refs).execute();
    }
    const state = new Map(found.map((r) => [r.id, Number(r.returned) === 1 ? Claim.Returned : Claim.Held]));
    return (held) => (held.ref === undefined ? Claim.Held : (state.get(held.ref) ?? Claim.Done));
  }

  /** The live leases among the items' (not given back), locked until commit like the balances. */
  private async lockLeases(trx: Transaction<Tables>, items: readonly QueuedSettle[]): Promise<Set<string>> {
    const ids = [...new Set(items.flatMap((i) => (i.leaseId === undefined ? [] : [i.leaseId])))];
    if (ids.length === 0) return new Set();
    if (this.database.dialect === 'postgres') {
      // On every group's path: one text for any number of leases, prepared once per connection.
      const { rows } = await trx.executeQuery<{ id: string }>(CompiledQuery.raw(PG_LOCK_LEASES, [ids]));
      return new Set(rows.map((r) => r.id));
    }
    let query = trx
      .selectFrom('quota_leases')
      .select('id')
      .where('id', 'in', ids)
      .where('returned', '=', 0)
      .orderBy('id');
    if (this.database.dialect !== 'sqlite') query = query.forUpdate();
    return new Set((await query.execute()).map((r) => r.id));
  }

  /** The group's statements for this engine (`group-statements.ts`). */
  private statements(): GroupStatements {
    return new GroupStatements(this.database.dialect, this.database.quoteLiteral);
  }

  /**
   * The balances of every user and token of the group, locked until commit (FOR UPDATE) in the
   * order of the updates that follow, so the room an overrun is given is the room it takes. SQLite
   * needs no lock clause: its single connection is held by this transaction.
   */
  private async lockBalances(
    trx: Transaction<Tables>,
    items: readonly QueuedSettle[],
  ): Promise<LockedBalances> {
    const lock = this.database.dialect !== 'sqlite';
    const userIds = [...new Set(items.map((i) => i.held.userId))].sort((a, b) => a - b);
    const tokenIds = [...new Set(items.map((i) => i.held.tokenId))].sort((a, b) => a - b);
    let userQuery = trx.selectFrom('users').select(['id', 'quota']).where('id', 'in', userIds).orderBy('id');
    if (lock) userQuery = userQuery.forUpdate();
    const users = new Map((await userQuery.execute()).map((u) => [Number(u.id), Number(u.quota)]));
    let tokenQuery = trx
      .selectFrom('tokens')
      .select(['id', 'remain_quota', 'status'])
      .where('id', 'in', tokenIds)
      .orderBy('id');
    if (lock) tokenQuery = tokenQuery.forUpdate();
    const tokens = new Map(
      (await tokenQuery.execute()).map((t) => [
        Number(t.id),
        { remain: Number(t.remain_quota), enabled: Number(t.status) === TokenStatus.Enabled },
      ]),
    );
    return { users, tokens };
  }

  /** One settlement or release alone: the path a group's items take when the group failed. */
  private async runOne(trx: Transaction<Tables>, item: QueuedSettle): Promise<SettledAmounts> {
    // A leased settlement or one that must leave its journal mark takes the group's path, alone.
    if (item.leaseId !== undefined || item.mark !== undefined)
      return (await this.settleGroup(trx, [item], true))[0]!;
    const claim = (await this.claim(trx, [item]))(item.held);
    if (claim === Claim.Done) return item.answered ?? NOTHING;
    const held = heldAs(item.held, claim);
    const { settle } = item;
    if (settle)
      item.answered = await this.settleIn(trx, held, settle.finalQuota, settle.log, settle.recordLog);
    else {
      if (held.amount > 0) await this.move(trx, held, held.amount, 0, false);
      item.answered = { charged: 0, refunded: held.amount, shortfall: 0 };
    }
    return item.answered;
  }

  private async settleIn(
    trx: Transaction<Tables>,
    held: HeldQuota,
    finalQuota: number,
    log: ConsumeLog,
    recordLog: boolean,
  ): Promise<SettledAmounts> {
    const room = finalQuota > held.amount ? await this.room(trx, held) : 0;
    const amounts = settlementAmounts(held.amount, finalQuota, () => room);
    await this.move(trx, held, amounts.change, amounts.charged, true);
    if (amounts.charged > 0 && log.channel_id !== undefined && log.channel_id > 0) {
      await trx
        .updateTable('channels')
        .set((eb) => ({ used_quota: eb('used_quota', '+', amounts.charged) }))
        .where('id', '=', log.channel_id)
        .execute();
    }
    if (recordLog) {
      await trx
        .insertInto('logs')
        .values(logRow(log, amounts.charged, amounts.shortfall))
        .execute();
    }
    return { charged: amounts.charged, refunded: amounts.refunded, shortfall: amounts.shortfall };
  }

  /**
   * How much more than the reserve can be taken. The rows are locked until commit (FOR UPDATE) so
   * the amount read is the amount taken; SQLite needs no lock clause, its single connection is held
   * by this transaction.
   */
  private async room(trx: Transaction<Tables>, held: HeldQuota): Promise<number> {
    const lock = this.database.dialect !== 'sqlite';
    let userQuery = trx.selectFrom('users').select('quota').where('id', '=', held.userId);
    if (lock) userQuery = userQuery.forUpdate();
    const user = await userQuery.executeTakeFirst();
    let room = Math.max(0, user ? Number(user.quota) : 0);
    if (!held.tokenUnlimited) {
      let tokenQuery = trx.selectFrom('tokens').select('remain_quota').where('id', '=', held.tokenId);
      if (lock) tokenQuery = tokenQuery.forUpdate();
      const token = await tokenQuery.executeTakeFirst();
      room = Math.min(room, Math.max(0, token ? Number(token.remain_quota) : 0));
    }
    return room;
  }

  /**
   * Applies `change` (positive = give back) to the user and the limited token, and, when settling,
   * adds `charged` to their used_quota and counts the request. A limited token that ends at zero
   * because of an extra charge becomes exhausted.
   */
  private async move(
    trx: Transaction<Tables>,
    held: HeldQuota,
    change: number,
    charged: number,
    settling: boolean,
  ): Promise<void> {
    await trx
      .updateTable('users')
      .set((eb) =>
        settling
          ? {
              quota: eb('quota', '+', change),
              used_quota: eb('used_quota', '+', charged),
              request_count: eb('request_count', '+', 1),
            }
          : { quota: eb('quota', '+', change) },
      )
      .where('id', '=', held.userId)
      .execute();
    const limited = !held.tokenUnlimited;
    const moveBalance = limited && change !== 0;
    const addUsed = settling && charged > 0;
    if (!moveBalance && !addUsed) return;
    await trx
      .updateTable('tokens')
      .set((eb) => ({
        // `status` is assigned before `remain_quota`: MySQL evaluates SET left to right with the new
        // values, PostgreSQL and SQLite with the old ones; in this order all three read the old balance.
        ...(moveBalance && change < 0
          ? {
              status: eb
                .case()
                .when(
                  eb.and([
                    eb('status', '=', TokenStatus.Enabled),
                    eb(eb('remain_quota', '+', change), '<=', 0),
                  ]),
                )
                .then(TokenStatus.Exhausted)
                .else(eb.ref('status'))
                .end(),
            }
          : {}),
        ...(moveBalance ? { remain_quota: eb('remain_quota', '+', change) } : {}),
        ...(addUsed ? { used_quota: eb('used_quota', '+', charged) } : {}),
      }))
      .where('id', '=', held.tokenId)
      .execute();
  }
}

/** The columns of a log row of type System that no call fills. */
function systemLogRow(createdAt: number): Insertable<LogsTable> {
  return {
    user_id: 0,
    created_at: createdAt,
    type: LogType.System,
    content: '',
    username: '',
    token_id: 0,
    token_name: '',
    model_name: '',
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    channel_id: 0,
    request_time: 0,
    first_response_time: 0,
    is_stream: 0,
    source_ip: '',
    group: '',
    metadata: '{}',
  };
}
