import { Worker } from 'node:worker_threads';
import { TokenStatus } from '@switchyard/domain';
import { openSqliteFile } from '../../db/sqlite-file.js';
import type { ConsumeLog, LedgerStore, ReserveRefusal } from '../ledger/ledger.js';
import { CommittedBalanceCache } from './committed-balances.js';
import { type ReplyVisitor, RequestWriter, readReplies, type WireReplies } from './ledger-wire.js';
import { PendingCalls } from './pending-calls.js';
import { type CommittedBalances, QuotaHolds } from './quota-holds.js';
import type { HeldQuota, SettledAmounts } from './sqlite-ledger-core.js';
import type { LedgerWorkerData } from './sqlite-ledger-thread.js';

export interface SqliteWorkerLedgerOptions {
  busyTimeoutMs?: number;
  /**
   * How long settlements wait on this thread for company before they are posted together, to be
   * committed in one transaction as soon as the thread has them. Nobody waits for a settlement, and
   * each message wakes both threads, so fewer messages give a faster first byte. Default 10 ms.
   */
  intervalMs?: number;
  /** Settlements per transaction. Default 512. */
  maxBatch?: number;
  /** Settlements submitted and not yet committed before new reserves wait. Default 10 000. */
  capacity?: number;
  /**
   * Log rows are committed with their settlement to an unindexed staging table and published into
   * `logs` in bulk: once this many wait (default 2048), a second after the first (`publishIntervalMs`),
   * or at a flush, which the consume log's readers call first.
   */
  publishRows?: number;
  publishIntervalMs?: number;
  /**
   * A number that changes whenever this process writes the database through another connection
   * (the console's top-ups and edits): the balances kept in memory are then read again.
   */
  writesElsewhere?: () => number;
  /** Default `Date.now`. */
  nowMs?: () => number;
  /** A worker that died is replaced; this hears why. */
  onError?: (message: string) => void;
}

interface Pending {
  id: number;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  /**
   * A settlement, counted against the capacity until answered; its charge stays held until then.
   * `generation`: the balance cache's when it was written. Absent for a flush or close.
   */
  settling: { held: HeldQuota; charge: number; generation: number } | undefined;
}

export class LedgerWorkerError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'LedgerWorkerError';
  }
}

/**
 * The SQLite ledger store. A reserve is answered on this thread from the committed balances less
 * what is held in memory (quota-holds.ts): no write, no read once the balances are known, no trip
 * to another thread before the call goes upstream. A settlement charges the final cost in a worker
 * thread on its own connection, so commits never stall the event loop. Back-pressure: while
 * `capacity` settlements wait to be committed, new reserves wait, so requests slow down instead of
 * queueing without bound; nothing is dropped.
 */
export class SqliteWorkerLedger implements LedgerStore {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new PendingCalls<Pending>();
  private unsettled = 0;
  private readonly roomWaiters: (() => void)[] = [];
  private closed = false;
  /**
   * Requests not posted yet. A message costs as much as many, so settlements, which nobody waits
   * on, wait for company for `intervalMs` instead of taking one each.
   */
  private readonly outbox = new RequestWriter();
  private postSoon = false;
  private jobTimer: NodeJS.Timeout | undefined;
  /** Balances the message being read reported (kind, id, value), learnt once its answers are read. */
  private readonly reported: ('user' | 'token' | number)[] = [];
  /** The generation of the message's settlements: null when they differ. */
  private reportedFor: number | null | undefined;
  private readonly replies: ReplyVisitor = {
    balance: (kind, id, value) => {
      this.reported.push(kind, id, value);
    },
    resolve: (id, value) => {
      const waiter = this.pending.take(id);
      if (!waiter) return;
      this.answered(waiter);
      const held = waiter.settling?.held;
      // The thread charged from a reserve of 0; what the call held and did not cost went back when
      // it settled, and is the refund.
      waiter.resolve(
        held && value ? { ...value, refunded: Math.max(0, held.amount - value.charged) } : value,
      );
    },
    reject: (id, error) => {
      const waiter = this.pending.take(id);
      if (!waiter) return;
      this.answered(waiter);
      waiter.reject(new LedgerWorkerError(error.message, error.code));
    },
  };
  private readonly capacity: number;
  private readonly data: LedgerWorkerData;
  private readonly intervalMs: number;
  private readonly holds = new QuotaHolds();
  /** The committed balances; the read connection behind them is opened on the first reserve. */
  private committed: CommittedBalanceCache | undefined;
  private reader: (CommittedBalances & { close(): void }) | undefined;

  constructor(
    file: string,
    private readonly options: SqliteWorkerLedgerOptions = {},
  ) {
    this.capacity = options.capacity ?? 10_000;
    this.data = {
      file,
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      maxBatch: options.maxBatch ?? 512,
      publishRows: options.publishRows ?? 2048,
      publishIntervalMs: options.publishIntervalMs ?? 1000,
      status: { enabled: TokenStatus.Enabled, exhausted: TokenStatus.Exhausted },
    };
    this.intervalMs = options.intervalMs ?? 10;
  }

  /**
   * Answered at once from the committed balances less what this process holds. The balances are
   * kept in memory (committed-balances.ts); one that is not is read by id on this thread's own
   * connection, where WAL readers never wait for the worker's writes.
   */
  reserve(held: HeldQuota): Promise<ReserveRefusal | null> {
    if (this.closed) return Promise.reject(new LedgerWorkerError('The ledger is closed'));
    if (this.unsettled >= this.capacity) return this.reserveWhenRoom(held);
    return Promise.resolve(this.take(held));
  }

  private take(held: HeldQuota): ReserveRefusal | null {
    return this.holds.take(held, this.balances());
  }

  private balances(): CommittedBalanceCache {
    if (this.committed) return this.committed;
    const reader = openCommittedBalances(this.data.file);
    this.reader = reader;
    this.committed = new CommittedBalanceCache(reader.read, {
      writes: this.options.writesElsewhere ?? (() => 0),
      nowMs: this.options.nowMs ?? Date.now,
    });
    return this.committed;
  }

  /**
   * The call's hold becomes its charge, which stays held until the thread has committed it: a
   * reserve made meanwhile sees the money as gone. The thread charges the whole cost, as far as the
   * balances go, since nothing was taken from them at the reserve.
   */
  settle(
    held: HeldQuota,
    finalQuota: number,
    log: ConsumeLog,
    recordLog: boolean,
    journalSeq?: number,
  ): Promise<SettledAmounts> {
    if (this.closed) {
      this.holds.add(held, -held.amount);
      return Promise.reject(new LedgerWorkerError('The ledger is closed'));
    }
    this.holds.add(held, finalQuota - held.amount);
    const charged: HeldQuota = { ...held, amount: 0 };
    return this.call((id) => this.outbox.settle(id, charged, finalQuota, log, recordLog, journalSeq), false, {
      held,
      charge: finalQuota,
      generation: this.balances().generation,
    }) as Promise<SettledAmounts>;
  }

  /** Nothing was written at the reserve, so nothing is written now: the hold is dropped. */
  release(held: HeldQuota): Promise<void> {
    this.holds.add(held, -held.amount);
    return Promise.resolve();
  }

  /** The highest settlement-journal number committed (journal_marks, migration 0008). */
  async journalMark(): Promise<number> {
    const sqlite = openSqliteFile(this.data.file);
    try {
      const row = sqlite.prepare('SELECT seq FROM journal_marks WHERE id = 1').get() as
        | { seq: number }
        | undefined;
      return Number(row?.seq ?? 0);
    } finally {
      sqlite.close();
    }
  }

  async flush(): Promise<void> {
    if (this.closed && !this.worker && this.outbox.empty) return;
    // Settlements may still wait in the outbox while no thread runs (one died): they go too. With no
    // thread yet, one starts: it publishes log rows an earlier process left staged.
    await this.call((id) => this.outbox.flush(id), true, undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.reader?.close();
    this.reader = undefined;
    this.committed = undefined;
    if (!this.worker && this.outbox.empty) return;
    await this.call((id) => this.outbox.close(id), true, undefined, true);
    await this.worker?.terminate();
    this.worker = undefined;
  }

  private async reserveWhenRoom(held: HeldQuota): Promise<ReserveRefusal | null> {
    while (this.unsettled >= this.capacity) await new Promise<void>((wake) => this.roomWaiters.push(wake));
    if (this.closed) throw new LedgerWorkerError('The ledger is closed');
    return this.take(held);
  }

  /**
   * One message of the thread: a batch's balances, then its answers. The balances are learnt after
   * the answers, in the same turn, so no reserve sees a charge dropped and not yet in the balance.
   */
  private read(replies: WireReplies): void {
    this.reportedFor = undefined;
    readReplies(replies, this.replies);
    const generation = this.reportedFor;
    if (typeof generation === 'number' && this.committed) {
      const r = this.reported;
      for (let i = 0; i < r.length; i += 3) {
        this.committed.learn(generation, r[i] as 'user' | 'token', r[i + 1] as number, r[i + 2] as number);
      }
    }
    this.reported.length = 0;
  }

  /** Committed or failed, a settlement's charge is no longer this process's to hold. */
  private answered(waiter: Pending): void {
    if (!waiter.settling) return;
    const g = waiter.settling.generation;
    this.reportedFor = this.reportedFor === undefined || this.reportedFor === g ? g : null;
    this.holds.add(waiter.settling.held, -waiter.settling.charge);
    this.unsettled--;
    while (this.unsettled < this.capacity && this.roomWaiters.length > 0) this.roomWaiters.shift()?.();
  }

  /**
   * Writes the request into the outbox at once; `urgent` ones are posted after this turn.
   */
  private call(
    write: (id: number) => void,
    urgent: boolean,
    settling: Pending['settling'],
    closing = false,
  ): Promise<unknown> {
    if (this.closed && !closing) return Promise.reject(new LedgerWorkerError('The ledger is closed'));
    const id = this.nextId++;
    this.running();
    return new Promise((resolve, reject) => {
      write(id);
      if (settling) this.unsettled++;
      this.pending.add({ id, resolve, reject, settling });
      if (urgent) {
        if (!this.postSoon) {
          this.postSoon = true;
          setImmediate(() => this.post());
        }
      } else if (!this.postSoon && !this.jobTimer) {
        this.jobTimer = setTimeout(() => this.post(), this.intervalMs);
      }
    });
  }

  private post(): void {
    this.postSoon = false;
    if (this.jobTimer) clearTimeout(this.jobTimer);
    this.jobTimer = undefined;
    const worker = this.running();
    const batch = this.outbox.take();
    if (!batch) return;
    worker.postMessage(batch);
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.data);
    // The new thread knows no strings yet; a batch already written keeps its indexes.
    this.outbox.resend();
    worker.on('message', (replies: WireReplies) => this.read(replies));
    worker.on('error', (err) => this.lost(worker, `ledger worker failed: ${err.message}`));
    worker.on('exit', (code) => {
      if (!this.closed) this.lost(worker, `ledger worker exited with code ${code}`);
    });
    this.worker = worker;
    return worker;
  }

  /**
   * A dead worker answers nothing more: everything in flight fails (its outcome is unknown to this
   * side), and the next call starts a new worker.
   */
  private lost(worker: Worker, message: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.options.onError?.(message);
    const waiting = this.pending.takeAll();
    for (const w of waiting) {
      this.answered(w);
      w.reject(new LedgerWorkerError(message));
    }
  }
}

/**
 * The two balances a reserve checks, read by id in one statement: one read transaction, so the page
 * cache, which another connection's commit invalidates, is checked once.
 */
function openCommittedBalances(file: string): CommittedBalances & { close(): void } {
  const sqlite = openSqliteFile(file);
  const both = sqlite
    .prepare('SELECT (SELECT quota FROM users WHERE id = ?), (SELECT remain_quota FROM tokens WHERE id = ?)')
    .raw();
  const value = (v: unknown) => (v === undefined || v === null ? undefined : Number(v));
  return {
    read: (userId, tokenId) => {
      const row = both.get(userId, tokenId) as unknown[];
      return { user: value(row[0]), token: value(row[1]) };
    },
    close: () => sqlite.close(),
  };
}

/**
 * The thread's garbage is a batch's decoded messages, dead by the next batch; V8's default young
 * generation (sized for the main thread) only keeps more memory resident after load.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };

/**
 * The built server runs the compiled file beside this one. Tests run the TypeScript sources, where
 * the thread loads its entry through tsx (a dev dependency) first.
 */
function startWorker(data: LedgerWorkerData): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./sqlite-ledger-thread.js', import.meta.url), {
      workerData: data,
      resourceLimits: WORKER_LIMITS,
    });
  }
  const entry = new URL('./sqlite-ledger-thread.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((api) => api.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}))`;
  return new Worker(boot, { eval: true, workerData: data, resourceLimits: WORKER_LIMITS });
}
