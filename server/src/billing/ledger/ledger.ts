import { isConnectionLoss } from '../../db/connection-loss.js';
import { WriteBatcherClosedError } from '../kysely-ledger/write-batcher.js';
import type { HeldQuota, ReserveRefusal, SettledAmounts } from '../sqlite-ledger/sqlite-ledger-core.js';
import type { ConsumeLog } from './consume-log.js';
import type { JournalEntry, SettlementJournal } from './settlement-journal.js';

// Reserve, settle and release of quota: reserve before sending, settle exactly once on every path,
// never take a balance below zero. The ledger keeps the rules that do not depend on the engine (a
// reservation settles once; only issued reservations settle); a store does the SQL:
// `KyselyLedgerStore` (PostgreSQL, MySQL) or `SqliteWorkerLedger` (SQLite, in a thread of its own).

export type { ReserveRefusal } from '../sqlite-ledger/sqlite-ledger-core.js';
export type { ConsumeLog } from './consume-log.js';

export interface ReserveRequest {
  userId: number;
  tokenId: number;
  /** An unlimited token's `remain_quota` is neither checked nor changed. */
  tokenUnlimited: boolean;
  /** Quota to hold back, from `reserveAmount` (quota-math.ts). */
  amount: number;
}

/** Held quota. Only the object `reserve` returned can be settled or released, once. */
export interface Reservation {
  readonly userId: number;
  readonly tokenId: number;
  readonly tokenUnlimited: boolean;
  readonly amount: number;
  /** The record of the reserve in the database, when the store keeps one. */
  readonly ref?: string | undefined;
}

export type ReserveOutcome = { ok: true; reservation: Reservation } | { ok: false; reason: ReserveRefusal };

export interface SettleOptions {
  /** False when option `LogConsumeEnabled` is off: balances and counters change, no log row is written. */
  recordLog?: boolean;
}

export interface Settlement {
  outcome: 'settled' | 'released';
  reserved: number;
  /** What the call cost (`finalQuota` of settle; 0 for a release). */
  finalQuota: number;
  /** What was taken in the end: reserved + extra, or less after a refund. Equals the log's quota. */
  charged: number;
  /** Returned to the balance because the reserve exceeded the cost. */
  refunded: number;
  /** Cost the balance could not cover (recorded in the log detail as `shortfall`). */
  shortfall: number;
}

/** Where the ledger's SQL runs. Every balance change is a relative, conditional UPDATE. */
export interface LedgerStore {
  /**
   * A name for the next reserve's record, when the store keeps one (`held.ref`): made before the
   * reserve is sent so that a reserve whose answer was lost can still be found and given back.
   */
  nextRef?(): string;
  /**
   * Holds `request.amount` from a budget this node keeps in memory (a quota lease), with no I/O,
   * and answers the reservation's ref; undefined when the store must reserve in the database.
   */
  reserveLocally?(request: ReserveRequest): string | undefined;
  /** True for a ref `reserveLocally` made: no row tells whether its settlement committed. */
  isLocalRef?(ref: string): boolean;
  /** Before a replay: gives back what a previous run held in memory-backed budgets (quota leases). */
  recover?(): Promise<void>;
  /** Holds `held.amount` (> 0) from the user and, unless unlimited, the token: both or neither. */
  reserve(held: HeldQuota): Promise<ReserveRefusal | null>;
  /**
   * Charges `finalQuota` and writes the consume log in the same transaction: an overrun is taken as
   * far as the balances go and the rest is the shortfall; used quota of user, token and channel and
   * the user's request count grow with the charge.
   */
  settle(
    held: HeldQuota,
    finalQuota: number,
    log: ConsumeLog,
    recordLog: boolean,
    journalSeq?: number,
  ): Promise<SettledAmounts>;
  /**
   * The highest settlement-journal number whose settlement is committed, when the store keeps one
   * with its commits (SQLite, whose reserves leave no row to tell). Journaled settlements up to it
   * are not made again.
   */
  journalMark?(): Promise<number>;
  /**
   * Which of these journal numbers, of settlements without a reserve row, committed: for a store
   * that records them exactly (PostgreSQL, MySQL). Without it, those up to `journalMark` did.
   */
  committedAmong?(seqs: readonly number[]): Promise<Set<number>>;
  /** Gives the whole reserve back. */
  release(held: HeldQuota): Promise<void>;
  /** Resolves when everything submitted before the call is committed, its log rows in `logs`. */
  flush(): Promise<void>;
  /** Before the first reserve: gives back what this node held when it last stopped, keeps its reserves alive. */
  start?(): Promise<void>;
  /** Refuses new work and drains what was submitted (graceful shutdown). */
  close(): Promise<void>;
}

function assertQuota(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer`);
}

/**
 * A reservation as a ledger issues it. Its issuer and its first outcome ride on the object itself,
 * in private fields nothing else can forge or read: kept in a WeakSet and a WeakMap instead, every
 * call added two ephemeron entries, which the garbage collector traces on each young-generation pass.
 */
class IssuedReservation implements Reservation {
  readonly #issuer: Ledger;
  /** The first settle or release; later calls get the same answer. */
  #outcome: Promise<Settlement> | undefined;

  constructor(
    issuer: Ledger,
    readonly userId: number,
    readonly tokenId: number,
    readonly tokenUnlimited: boolean,
    readonly amount: number,
    readonly ref: string | undefined,
  ) {
    this.#issuer = issuer;
    Object.freeze(this);
  }

  static issuedBy(r: Reservation, ledger: Ledger): r is IssuedReservation {
    return #issuer in r && r.#issuer === ledger;
  }

  static outcomeOf(r: IssuedReservation): Promise<Settlement> | undefined {
    return r.#outcome;
  }

  static decide(r: IssuedReservation, outcome: Promise<Settlement>): void {
    r.#outcome = outcome;
  }
}

/** A failure that leaves a settlement to be made again from the journal at the next start. */
function retriable(err: unknown): boolean {
  return (
    err instanceof WriteBatcherClosedError ||
    isConnectionLoss(err) ||
    (err instanceof Error && /ledger is closed|ledger worker/i.test(err.message))
  );
}

/**
 * A journaled settlement as the store settles it again: with its reserve's row when it had one (the
 * row tells whether it committed already), else from a reserve of 0, as a store that holds its
 * reserves in memory (SQLite) charges after a restart.
 */
function replayed(entry: JournalEntry): HeldQuota {
  return {
    userId: entry.userId,
    tokenId: entry.tokenId,
    tokenUnlimited: entry.tokenUnlimited,
    amount: entry.ref !== undefined ? entry.amount : 0,
    ref: entry.ref,
  };
}

export class Ledger {
  /**
   * `journal`: settlements are recorded there when handed over and marked done when committed, so
   * a process that dies loses none (settlement-journal.ts); `replay` settles what it left open.
   */
  constructor(
    private readonly store: LedgerStore,
    private readonly journal?: SettlementJournal,
  ) {}

  /**
   * Settles again what a previous run of this node recorded and never saw committed, then starts a
   * fresh journal. Before `start` and before anything is served. Answers how many were run again.
   */
  async replay(onError: (message: string) => void = () => {}): Promise<number> {
    const journal = this.journal;
    if (!journal) return 0;
    const left = journal.leftOpen();
    await this.store.recover?.();
    const mark = (await this.store.journalMark?.()) ?? 0;
    // A settlement with a reserve row is made again whatever the store recorded: the row tells if
    // it committed.
    const hasRow = (e: JournalEntry) => e.ref !== undefined && !(this.store.isLocalRef?.(e.ref) ?? false);
    const committed = await this.store.committedAmong?.(left.filter((e) => !hasRow(e)).map((e) => e.n));
    const open = left.filter((e) => hasRow(e) || (committed ? !committed.has(e.n) : e.n > mark));
    let settled = 0;
    for (const entry of open) {
      try {
        await this.store.settle(replayed(entry), entry.finalQuota, entry.log, entry.recordLog, entry.n);
        settled++;
      } catch (err) {
        onError(`a journaled settlement could not be made again: ${String(err)}: ${JSON.stringify(entry)}`);
        if (retriable(err)) throw err;
      }
    }
    // Numbers go on from the old file's: a commit's mark never points into the new one by mistake.
    journal.begin(left.reduce((highest, e) => Math.max(highest, e.n), mark));
    return settled;
  }

  /**
   * Holds `amount` from the user and (unless unlimited) the token, both or neither. The answer is
   * needed before the request goes upstream, so it does not wait for a batch.
   */
  async reserve(request: ReserveRequest): Promise<ReserveOutcome> {
    assertQuota('amount', request.amount);
    const local = request.amount > 0 ? this.store.reserveLocally?.(request) : undefined;
    if (local !== undefined)
      return {
        ok: true,
        reservation: new IssuedReservation(
          this,
          request.userId,
          request.tokenId,
          request.tokenUnlimited,
          request.amount,
          local,
        ),
      };
    const reservation = new IssuedReservation(
      this,
      request.userId,
      request.tokenId,
      request.tokenUnlimited,
      request.amount,
      request.amount > 0 ? this.store.nextRef?.() : undefined,
    );
    if (reservation.amount > 0) {
      const refusal = await this.store.reserve(reservation);
      if (refusal) return { ok: false, reason: refusal };
    }
    return { ok: true, reservation };
  }

  /** Writes the settlements handed over so far to the journal now, not at the end of the task. */
  flushJournal(): void {
    this.journal?.flush();
  }

  /**
   * Charges the final cost and writes the consume log in the same transaction: delta = final -
   * reserved is refunded when negative; when positive it is taken as far as the user's and the
   * limited token's balances go, and the rest is reported as the shortfall, so no balance ever goes
   * negative. Runs once per reservation: a second settle or release returns the first one's result
   * without touching the database.
   */
  settle(
    reservation: Reservation,
    finalQuota: number,
    log: ConsumeLog,
    options: SettleOptions = {},
  ): Promise<Settlement> {
    return this.once(
      reservation,
      () => assertQuota('finalQuota', finalQuota),
      // The log row is handed over here and not kept while the store answers.
      () => {
        const recordLog = options.recordLog ?? true;
        const journal = this.journal;
        const n = journal?.append({
          ref: reservation.ref,
          userId: reservation.userId,
          tokenId: reservation.tokenId,
          tokenUnlimited: reservation.tokenUnlimited,
          amount: reservation.amount,
          finalQuota,
          recordLog,
          log,
        });
        const settled = this.store.settle(reservation, finalQuota, log, recordLog, n);
        return settled.then(
          (done): Settlement => {
            if (n !== undefined) journal!.done(n);
            return { outcome: 'settled', reserved: reservation.amount, finalQuota, ...done };
          },
          (err: unknown) => {
            // Refused for good: the store kept it where an administrator sees it. Not made at all
            // (the ledger closed, the database stayed away): the next start makes it again.
            if (n !== undefined && !retriable(err)) journal!.done(n);
            throw err;
          },
        );
      },
    );
  }

  /** Gives the whole reserve back (the upstream failed before the first byte): no charge, no log. */
  release(reservation: Reservation): Promise<Settlement> {
    return this.once(
      reservation,
      () => {},
      async () => {
        if (reservation.amount > 0) await this.store.release(reservation);
        return {
          outcome: 'released',
          reserved: reservation.amount,
          finalQuota: 0,
          charged: 0,
          refunded: reservation.amount,
          shortfall: 0,
        };
      },
    );
  }

  /** Resolves when every settlement and release started before the call is committed, and logged. */
  flush(): Promise<void> {
    return this.store.flush();
  }

  /** Before serving: see `LedgerStore.start`. */
  async start(): Promise<void> {
    await this.store.start?.();
  }

  async close(): Promise<void> {
    await this.store.close();
    this.journal?.close();
  }

  private once(
    reservation: Reservation,
    validate: () => void,
    start: () => Promise<Settlement>,
  ): Promise<Settlement> {
    if (!IssuedReservation.issuedBy(reservation, this)) {
      return Promise.reject(new Error('Not a reservation issued by this ledger'));
    }
    const previous = IssuedReservation.outcomeOf(reservation);
    if (previous) return previous;
    try {
      validate();
    } catch (err) {
      // Bad arguments: nothing happened, so the reservation may still be settled properly.
      return Promise.reject(err);
    }
    let result: Promise<Settlement>;
    try {
      result = start();
    } catch (err) {
      result = Promise.reject(err);
    }
    IssuedReservation.decide(reservation, result);
    return result;
  }
}
