import type { Kysely, Transaction } from 'kysely';
import { isConnectionLoss } from '../../db/connection-loss.js';
import type { Tables } from '../../db/tables.js';

/**
 * A unit of work run inside a transaction. It may run more than once (its batch is rolled back and
 * it is run again alone), so it must compute everything from `trx` and keep no effects outside it
 * until its promise from `submit` resolves. It must use only `trx` (on SQLite the one connection is
 * held by the batch, so a query on the outer database would wait forever) and must let database
 * errors propagate: on PostgreSQL a swallowed error leaves the transaction aborted and the batch's
 * COMMIT silently rolls back.
 */
export type WriteJob = (trx: Transaction<Tables>) => Promise<void>;

export interface WriteBatcherOptions {
  /** How long the first job of an idle queue waits for company before its batch runs. Default 2 ms. */
  intervalMs?: number;
  /**
   * The least time from the start of one batch to the start of the next, unless `maxBatch` jobs are
   * waiting or a flush asks. A commit's fixed cost (its round trips, the engine's log flush) is paid
   * per batch, so under a moderate load a pause gathers the jobs several back-to-back batches would
   * have taken one by one. Default 0: back to back.
   */
  gapMs?: number;
  /** Jobs per transaction; a queue this long runs at once. Default 256. */
  maxBatch?: number;
  /** Jobs admitted and not yet finished; `submit` waits beyond this. Default 10 000. */
  capacity?: number;
  /** Tries of a job run alone when the engine reports a deadlock, serialisation failure or busy file. Default 3. */
  maxAttempts?: number;
  /**
   * How long a job whose connection was lost (a database restart, a failover, a killed session) is
   * tried again, with growing pauses, before it fails. Default 60 000 ms.
   */
  reconnectMs?: number;
}

/** The longest gap a node waits between two batches, however many nodes share the database. */
export const MAX_GAP_MS = 1000;

/**
 * A node's gap when `nodes` nodes share the database and the cluster as a whole should start a
 * batch at most every `clusterGapMs`: the database pays each commit's fixed cost, whichever node
 * sends it, so without this every node added would add as many commits a second as the first.
 */
export function nodeGapMs(clusterGapMs: number, nodes: number): number {
  return Math.min(clusterGapMs * Math.max(1, Math.floor(nodes)), Math.max(clusterGapMs, MAX_GAP_MS));
}

export interface WriteBatcherStats {
  /** Transactions begun, batched or alone. */
  transactions: number;
  /** Transactions committed. */
  commits: number;
  committedJobs: number;
  failedJobs: number;
  /** Runs tried again because their connection was lost. */
  reconnectRetries: number;
}

export class WriteBatcherClosedError extends Error {
  constructor() {
    super('The write batcher is closed');
    this.name = 'WriteBatcherClosedError';
  }
}

interface Entry {
  job: WriteJob;
  resolve: () => void;
  reject: (err: unknown) => void;
  /** Settles (never rejects) when the job has committed or failed for good. */
  done: Promise<void>;
  /** When it was submitted (ms, monotonic): how far the ledger lags is the age of the oldest. */
  at: number;
}

/** Errors that a retry of the same transaction can clear (engine lock conflicts, not bad data). */
export function isTransient(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  return (
    e.code === '40001' || // PostgreSQL serialization_failure
    e.code === '40P01' || // PostgreSQL deadlock_detected
    e.errno === 1213 || // MySQL ER_LOCK_DEADLOCK
    e.errno === 1205 || // MySQL ER_LOCK_WAIT_TIMEOUT
    e.code === 'SQLITE_BUSY' ||
    e.code === 'SQLITE_BUSY_SNAPSHOT' ||
    e.code === 'SQLITE_LOCKED'
  );
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The bounded group-commit writer. Jobs queue up and run together in one transaction
 * (every `intervalMs`, or at once when `maxBatch` are waiting), so a commit's fixed cost (an fsync
 * on SQLite, a round trip on the servers) is paid once per batch instead of once per request.
 * One batch runs at a time, which keeps jobs in submission order and stops two batches of the
 * same process from deadlocking each other.
 *
 * When a batch fails, the job that threw runs alone (its promise alone rejects if it fails again),
 * and the jobs before and after it run again as batches, so one bad job never loses its
 * neighbours. A failure at COMMIT blames nobody: every job is then run alone.
 *
 * Bounded: at most `capacity` jobs are admitted (queued or running); further `submit` calls wait,
 * in order, for room. Nothing is ever dropped.
 */
export class WriteBatcher {
  private readonly intervalMs: number;
  private gapMs: number;
  private readonly maxBatch: number;
  private readonly capacity: number;
  private readonly maxAttempts: number;
  private readonly reconnectMs: number;
  private readonly queue: Entry[] = [];
  /** Submitted while the batcher was full; admitted in order as room frees. */
  private readonly waiting: Entry[] = [];
  private readonly pending = new Set<Entry>();
  private admitted = 0;
  private running = false;
  /** A flush is waiting: batches run back to back, without the gap, until the queue is empty. */
  private hurry = false;
  /** When the last batch started (ms, monotonic). */
  private lastStart = Number.NEGATIVE_INFINITY;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly counters: WriteBatcherStats = {
    transactions: 0,
    commits: 0,
    committedJobs: 0,
    failedJobs: 0,
    reconnectRetries: 0,
  };

  constructor(
    private readonly db: Kysely<Tables>,
    options: WriteBatcherOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 2;
    this.gapMs = options.gapMs ?? 0;
    this.maxBatch = options.maxBatch ?? 256;
    this.capacity = options.capacity ?? 10_000;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.reconnectMs = options.reconnectMs ?? 60_000;
    if (!(this.intervalMs >= 0)) throw new RangeError('intervalMs must be >= 0');
    if (!(this.gapMs >= 0)) throw new RangeError('gapMs must be >= 0');
    if (!Number.isInteger(this.maxBatch) || this.maxBatch < 1) throw new RangeError('maxBatch must be >= 1');
    if (!Number.isInteger(this.capacity) || this.capacity < 1) throw new RangeError('capacity must be >= 1');
    if (!Number.isInteger(this.maxAttempts) || this.maxAttempts < 1)
      throw new RangeError('maxAttempts must be >= 1');
  }

  /** Resolves once the transaction holding `job` has committed; rejects if the job failed for good. */
  submit(job: WriteJob): Promise<void> {
    if (this.closed) return Promise.reject(new WriteBatcherClosedError());
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: Entry = {
      job,
      resolve,
      reject,
      done: promise.then(
        () => {},
        () => {},
      ),
      at: performance.now(),
    };
    this.pending.add(entry);
    if (this.admitted < this.capacity && this.waiting.length === 0) this.admit(entry);
    else this.waiting.push(entry);
    return promise;
  }

  /** Runs what is queued now, and resolves when every job submitted before this call has finished. */
  async flush(): Promise<void> {
    const snapshot = [...this.pending].map((e) => e.done);
    if (snapshot.length > 0) this.hurry = true;
    this.schedule(true);
    await Promise.all(snapshot);
  }

  /** Refuses new jobs, then drains everything already submitted (graceful shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  /** The least time between two batches' starts from now on (a batch waiting now keeps its time). */
  setGapMs(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('gapMs must be >= 0');
    this.gapMs = ms;
  }

  get currentGapMs(): number {
    return this.gapMs;
  }

  /** Jobs admitted (queued or in the running batch). */
  get inFlight(): number {
    return this.admitted;
  }

  /** Callers held back by a full batcher. */
  get blocked(): number {
    return this.waiting.length;
  }

  stats(): WriteBatcherStats {
    return { ...this.counters };
  }

  /** Milliseconds the oldest unfinished job has waited (0 when none): how far commits lag behind. */
  lagMs(): number {
    let oldest = Number.POSITIVE_INFINITY;
    // `pending` keeps insertion order, so its first entry is the oldest submitted and unfinished.
    for (const entry of this.pending) {
      oldest = entry.at;
      break;
    }
    return oldest === Number.POSITIVE_INFINITY ? 0 : performance.now() - oldest;
  }

  private admit(entry: Entry): void {
    this.admitted++;
    this.queue.push(entry);
    this.schedule(false);
  }

  private schedule(now: boolean): void {
    if (this.running) return;
    if (this.queue.length === 0) {
      this.hurry = false;
      return;
    }
    const wait = Math.max(this.intervalMs, this.gapLeft());
    if (now || this.urgent() || wait <= 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      void this.drain();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, wait);
  }

  /** A full batch waits, or a flush: the next batch runs without waiting out the gap. */
  private urgent(): boolean {
    return this.hurry || this.queue.length >= this.maxBatch;
  }

  /** Milliseconds until the gap since the last batch's start has passed (<= 0: it has). */
  private gapLeft(): number {
    return this.lastStart + this.gapMs - performance.now();
  }

  /**
   * The single runner (group commit): batches back to back while the gap has passed or the next
   * batch is urgent; otherwise `schedule` waits out the rest of the gap.
   */
  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      do {
        this.lastStart = performance.now();
        await this.runBatch(this.queue.splice(0, this.maxBatch));
      } while (this.queue.length > 0 && (this.urgent() || this.gapLeft() <= 0));
    } finally {
      this.running = false;
    }
    // What came meanwhile: at once when a flush asked, else after the gap.
    this.schedule(false);
  }

  private async runBatch(entries: Entry[]): Promise<void> {
    const first = entries[0];
    if (!first) return;
    if (entries.length === 1) return this.runAlone(first);
    let failedAt = -1;
    this.counters.transactions++;
    try {
      await this.db.transaction().execute(async (trx) => {
        for (let i = 0; i < entries.length; i++) {
          failedAt = i;
          await entries[i]!.job(trx);
        }
        failedAt = -1;
      });
    } catch {
      if (failedAt < 0) {
        for (const e of entries) await this.runAlone(e);
        return;
      }
      await this.runBatch(entries.slice(0, failedAt));
      await this.runAlone(entries[failedAt]!);
      await this.runBatch(entries.slice(failedAt + 1));
      return;
    }
    this.counters.commits++;
    for (const e of entries) this.finish(e, undefined, false);
  }

  private async runAlone(entry: Entry): Promise<void> {
    let lostSince = 0;
    for (let attempt = 1; ; attempt++) {
      this.counters.transactions++;
      try {
        await this.db.transaction().execute(entry.job);
      } catch (err) {
        if (attempt < this.maxAttempts && isTransient(err)) {
          await sleep(5 * attempt);
          continue;
        }
        // Nothing of a transaction whose connection died is kept (a COMMIT lost on the way is the
        // exception: the ledger's reserve rows make a settlement that ran twice charge once).
        if (isConnectionLoss(err)) {
          const now = Date.now();
          lostSince ||= now;
          if (now - lostSince < this.reconnectMs) {
            this.counters.reconnectRetries++;
            await sleep(Math.min(1000, 25 * 2 ** Math.min(attempt, 6)));
            continue;
          }
        }
        this.finish(entry, err, true);
        return;
      }
      this.counters.commits++;
      this.finish(entry, undefined, false);
      return;
    }
  }

  private finish(entry: Entry, err: unknown, failed: boolean): void {
    this.pending.delete(entry);
    this.admitted--;
    if (failed) {
      this.counters.failedJobs++;
      entry.reject(err);
    } else {
      this.counters.committedJobs++;
      entry.resolve();
    }
    while (this.admitted < this.capacity) {
      const next = this.waiting.shift();
      if (!next) break;
      this.admit(next);
    }
  }
}
