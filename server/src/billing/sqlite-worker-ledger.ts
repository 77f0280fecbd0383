import { Worker } from 'node:worker_threads';
import { TokenStatus } from '@switchyard/domain';
import { openSqliteFile } from '../db/sqlite-file.js';
import type { ConsumeLog, LedgerStore, ReserveRefusal } from './ledger.js';
import { type ReplyVisitor, RequestWriter, readReplies, type WireReplies } from './ledger-wire.js';
import { PendingCalls } from './pending-calls.js';
import { type HeldQuota, type SettledAmounts, SqliteLedgerCore } from './sqlite-ledger-core.js';
import type { LedgerWorkerData } from './sqlite-ledger-worker.js';

export interface SqliteWorkerLedgerOptions {
  busyTimeoutMs?: number;
  /** How long the first settlement of an idle queue waits for company. Default 2 ms. */
  intervalMs?: number;
  /**
   * How long settlements wait on this thread when no reserve message is going to the worker to take
   * them along (few requests, or each one alone). Default 10 ms, at least `intervalMs`.
   */
  quietIntervalMs?: number;
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
   * Whether a reserve made while no other request holds quota runs on this thread (default true for
   * a file). Off, every reserve goes through the worker.
   */
  inlineWhenQuiet?: boolean;
  /** A worker that died is replaced; this hears why. */
  onError?: (message: string) => void;
}

/**
 * `job`: a settlement or release, counted against the capacity until answered. `reserve`: counted
 * in `reservesPosted` until answered. `control`: flush and close.
 */
type CallKind = 'reserve' | 'job' | 'control';

interface Pending {
  id: number;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  kind: CallKind;
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
 * The SQLite ledger store: the SQL runs in a worker thread on its own connection, so commits never
 * stall the event loop. Back-pressure: while `capacity` settlements wait to be committed, new
 * reserves wait, so requests slow down instead of queueing without bound; nothing is dropped.
 */
export class SqliteWorkerLedger implements LedgerStore {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new PendingCalls<Pending>();
  private unsettled = 0;
  /** Of those, the ones still in the outbox: the rest are with the worker, which may be writing them. */
  private jobsQueued = 0;
  private readonly roomWaiters: (() => void)[] = [];
  private closed = false;
  /**
   * Requests not posted yet. A message costs as much as many, so a turn's requests go together;
   * settlements and releases, which nobody waits on, wait for the next reserve's message or the
   * group-commit interval instead of taking one of their own.
   */
  private readonly outbox = new RequestWriter();
  private postSoon = false;
  private jobTimer: NodeJS.Timeout | undefined;
  /** When the oldest settlement or release in the outbox was written (performance.now()). */
  private jobsSince: number | undefined;
  private readonly replies: ReplyVisitor = {
    resolve: (id, value) => {
      const waiter = this.pending.take(id);
      if (!waiter) return;
      // A reserve's value is its refusal, or null when the quota is held.
      this.answered(waiter, value === null);
      waiter.resolve(value);
    },
    reject: (id, error) => {
      const waiter = this.pending.take(id);
      if (!waiter) return;
      this.answered(waiter, false);
      waiter.reject(new LedgerWorkerError(error.message, error.code));
    },
  };
  private readonly capacity: number;
  private readonly data: LedgerWorkerData;
  private readonly quietIntervalMs: number;
  /** Reserves taken and not yet settled or released: the requests in progress. */
  private openHolds = 0;
  /** Reserves posted to the worker and not answered yet. */
  private reservesPosted = 0;
  /** This thread's own connection for quiet reserves; opened on the first one. */
  private inline: SqliteLedgerCore | undefined;
  private readonly inlineWhenQuiet: boolean;

  constructor(
    file: string,
    private readonly options: SqliteWorkerLedgerOptions = {},
  ) {
    this.capacity = options.capacity ?? 10_000;
    this.data = {
      file,
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      intervalMs: options.intervalMs ?? 2,
      maxBatch: options.maxBatch ?? 512,
      publishRows: options.publishRows ?? 2048,
      publishIntervalMs: options.publishIntervalMs ?? 1000,
      status: { enabled: TokenStatus.Enabled, exhausted: TokenStatus.Exhausted },
    };
    this.inlineWhenQuiet = (options.inlineWhenQuiet ?? true) && file !== ':memory:';
    this.quietIntervalMs = Math.max(options.quietIntervalMs ?? 10, this.data.intervalMs);
  }

  /**
   * Through the worker, unless the request is the only one in progress: then the trip to the thread
   * and back (two wake-ups, ~90 us at one connection on the bench machine) is most of what the
   * reserve costs, and a ~30 us transaction on this thread is the faster answer. Under load there
   * are always other requests, so the worker keeps the main thread free.
   */
  reserve(held: HeldQuota): Promise<ReserveRefusal | null> {
    if (held.amount > 0) this.openHolds++;
    if (
      this.openHolds === 1 &&
      this.reservesPosted === 0 &&
      // Settlements with the worker mean its write transaction is likely open: trying would only
      // fail busy (and a thrown SqliteError costs more than the trip to the thread).
      this.unsettled === this.jobsQueued &&
      this.unsettled < this.capacity &&
      this.inlineWhenQuiet &&
      !this.closed
    ) {
      if (this.reserveInline(held)) return Promise.resolve(null);
    }
    // With room, the call's own promise is the answer: no async frame around it.
    if (this.unsettled < this.capacity) {
      return this.call(
        (id) => this.outbox.reserve(id, held),
        true,
        'reserve',
      ) as Promise<ReserveRefusal | null>;
    }
    return this.reserveWhenRoom(held);
  }

  /**
   * True when the hold was taken here. Anything else goes to the worker: a refusal (the worker
   * commits the queued settlements of the same user or token first, and only then refuses), or a
   * write lock the worker holds (busy timeout 0: this thread never waits for it).
   */
  private reserveInline(held: HeldQuota): boolean {
    try {
      this.inline ??= openInlineCore(this.data);
      return this.inline.reserve(held) === null;
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_BUSY') return false;
      throw err;
    }
  }

  settle(held: HeldQuota, finalQuota: number, log: ConsumeLog, recordLog: boolean): Promise<SettledAmounts> {
    if (held.amount > 0) this.openHolds--;
    return this.call(
      (id) => this.outbox.settle(id, held, finalQuota, log, recordLog),
      false,
      'job',
    ) as Promise<SettledAmounts>;
  }

  async release(held: HeldQuota): Promise<void> {
    if (held.amount > 0) this.openHolds--;
    // Posted at once: a release is rare (a failed call), and the caller's error answer waits for it.
    await this.call((id) => this.outbox.release(id, held), true, 'job');
  }

  async flush(): Promise<void> {
    if (this.closed && !this.worker && this.outbox.empty) return;
    // Settlements may still wait in the outbox while no thread runs (one died): they go too. With no
    // thread yet, one starts: it publishes log rows an earlier process left staged.
    await this.call((id) => this.outbox.flush(id), true);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.inline?.close();
    this.inline = undefined;
    if (!this.worker && this.outbox.empty) return;
    await this.call((id) => this.outbox.close(id), true, 'control', true);
    await this.worker?.terminate();
    this.worker = undefined;
  }

  private async reserveWhenRoom(held: HeldQuota): Promise<ReserveRefusal | null> {
    while (this.unsettled >= this.capacity) await new Promise<void>((wake) => this.roomWaiters.push(wake));
    return (await this.call((id) => this.outbox.reserve(id, held), true, 'reserve')) as ReserveRefusal | null;
  }

  /** `holds`: the answer left quota held (a reserve that was not refused and did not fail). */
  private answered(waiter: Pending, holds: boolean): void {
    if (waiter.kind === 'reserve') {
      this.reservesPosted--;
      if (!holds) this.openHolds--;
      return;
    }
    if (waiter.kind !== 'job') return;
    this.unsettled--;
    while (this.unsettled < this.capacity && this.roomWaiters.length > 0) this.roomWaiters.shift()?.();
  }

  /**
   * Writes the request into the outbox at once; `urgent` ones are posted after this turn.
   */
  private call(
    write: (id: number) => void,
    urgent: boolean,
    kind: CallKind = 'control',
    closing = false,
  ): Promise<unknown> {
    if (this.closed && !closing) return Promise.reject(new LedgerWorkerError('The ledger is closed'));
    const id = this.nextId++;
    this.running();
    return new Promise((resolve, reject) => {
      write(id);
      if (kind === 'job') {
        this.unsettled++;
        this.jobsQueued++;
        this.jobsSince ??= performance.now();
      } else if (kind === 'reserve') {
        this.reservesPosted++;
      }
      this.pending.add({ id, resolve, reject, kind });
      if (urgent) {
        if (!this.postSoon) {
          this.postSoon = true;
          setImmediate(() => this.post());
        }
      } else if (!this.postSoon && !this.jobTimer) {
        // Under load the settlements leave sooner, with the next reserve's message. Alone, each
        // message wakes both threads (measured at one connection: ~50 us more time to first byte
        // with 2 ms than with 10 ms); nobody waits for a settlement, so they wait for company.
        this.jobTimer = setTimeout(() => this.post(), this.quietIntervalMs);
      }
    });
  }

  /** The thread learns how long the settlements waited here, so together they wait one interval. */
  private post(): void {
    this.postSoon = false;
    if (this.jobTimer) clearTimeout(this.jobTimer);
    this.jobTimer = undefined;
    const worker = this.running();
    const waited = this.jobsSince === undefined ? undefined : performance.now() - this.jobsSince;
    const batch = this.outbox.take(waited);
    if (!batch) return;
    this.jobsSince = undefined;
    this.jobsQueued = 0;
    worker.postMessage(batch);
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.data);
    // The new thread knows no strings yet; a batch already written keeps its indexes.
    this.outbox.resend();
    worker.on('message', (replies: WireReplies) => readReplies(replies, this.replies));
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
    this.jobsQueued = 0;
    for (const w of waiting) {
      this.answered(w, false);
      w.reject(new LedgerWorkerError(message));
    }
  }
}

/**
 * Never waits for the worker's write lock (busy timeout 0), and never checkpoints: a checkpoint of
 * the WAL on this thread would stall every request for milliseconds; the worker's connection does it.
 */
function openInlineCore(data: LedgerWorkerData): SqliteLedgerCore {
  const sqlite = openSqliteFile(data.file, 0);
  sqlite.pragma('wal_autocheckpoint = 0');
  return new SqliteLedgerCore(sqlite, data.status);
}

/**
 * The thread's garbage is a batch's decoded messages, dead by the next batch; with V8's default young
 * generation (sized for the main thread) it let ~20 MiB more stay resident after load, measured with
 * the benchmark's 1000 slow streams (252 -> 232 MiB RSS, throughput unchanged).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };

/**
 * The built server runs the compiled file beside this one. Tests run the TypeScript sources, where
 * the thread loads its entry through tsx (a dev dependency) first.
 */
function startWorker(data: LedgerWorkerData): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./sqlite-ledger-worker.js', import.meta.url), {
      workerData: data,
      resourceLimits: WORKER_LIMITS,
    });
  }
  const entry = new URL('./sqlite-ledger-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((api) => api.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}))`;
  return new Worker(boot, { eval: true, workerData: data, resourceLimits: WORKER_LIMITS });
}
