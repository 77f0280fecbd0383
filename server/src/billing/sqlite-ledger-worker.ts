import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openSqliteFile } from '../db/sqlite-file.js';
import { ReplyWriter, RequestReader, type RequestVisitor, type WireRequests } from './ledger-wire.js';
import {
  type HeldQuota,
  type JobResult,
  type LedgerJob,
  SqliteLedgerCore,
  type TokenStatusCodes,
} from './sqlite-ledger-core.js';

// The ledger thread: owns one SQLite connection, answers reserves at once, group-commits
// settlements (one transaction every few milliseconds or every `maxBatch` jobs) with their log rows
// staged, and publishes the staged rows into `logs` in bulk (sqlite-ledger-core.ts).

export interface LedgerWorkerData {
  file: string;
  busyTimeoutMs: number;
  intervalMs: number;
  maxBatch: number;
  /** Staged log rows are published (moved into `logs`) once this many wait... */
  publishRows: number;
  /** ...or this long after the first of them was committed, or at a flush. */
  publishIntervalMs: number;
  status: TokenStatusCodes;
}

const COMMIT_ATTEMPTS = 3;

function failure(err: unknown): { message: string; code?: string } {
  const e = err as { message?: string; code?: string };
  return { message: String(e?.message ?? err), ...(e?.code ? { code: e.code } : {}) };
}

/** A refused reserve waits for the queue only when the queue holds money of its user or token. */
function mayGiveBack(queue: readonly { job: LedgerJob }[], held: HeldQuota): boolean {
  return queue.some((q) => q.job.held.userId === held.userId || q.job.held.tokenId === held.tokenId);
}

function serve(port: NonNullable<typeof parentPort>, data: LedgerWorkerData): void {
  const core = new SqliteLedgerCore(openSqliteFile(data.file, data.busyTimeoutMs), data.status);
  const reader = new RequestReader();
  const replies = new ReplyWriter();
  const queue: { id: number; job: LedgerJob }[] = [];
  let reserves: { id: number; held: HeldQuota }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let publishTimer: NodeJS.Timeout | undefined;
  let closing = false;
  /** The longest a settlement of this turn already waited on the main thread (ms). */
  let waited = 0;

  const send = (): void => {
    const out = replies.take();
    if (out) port.postMessage(out);
  };

  /**
   * Moves the staged log rows into `logs`. On failure (the write lock stayed busy) they stay staged,
   * committed, and the next attempt takes them; `strict` hands the failure to the caller instead.
   */
  const publish = (strict = false): void => {
    if (publishTimer) clearTimeout(publishTimer);
    publishTimer = undefined;
    try {
      core.publishLogs();
    } catch (err) {
      if (!closing) publishTimer = setTimeout(publish, data.publishIntervalMs);
      if (strict) throw err;
    }
  };

  const publishWhenDue = (): void => {
    if (core.stagedLogs >= data.publishRows) publish();
    else if (core.stagedLogs > 0) publishTimer ??= setTimeout(publish, data.publishIntervalMs);
  };

  const runQueued = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    while (queue.length > 0) {
      const batch = queue.splice(0, data.maxBatch);
      let results: JobResult[] | undefined;
      let lastError: unknown;
      // A failure here is the COMMIT itself (the busy timeout ran out): nothing was written, so the
      // whole batch may run again.
      for (let attempt = 1; attempt <= COMMIT_ATTEMPTS && !results; attempt++) {
        try {
          results = core.runBatch(batch.map((b) => b.job));
        } catch (err) {
          lastError = err;
        }
      }
      for (let i = 0; i < batch.length; i++) {
        const result = results?.[i];
        if (result) replies.job(batch[i]!.id, result);
        else replies.failed(batch[i]!.id, failure(lastError));
      }
      send();
    }
    publishWhenDue();
  };

  /**
   * Reserves in order, in one transaction. A reserve cannot fail on its own (two conditional
   * updates by id), so when the transaction fails (busy, disk) they all fail with it. Returns the
   * refused ones `again` asks to keep back, unanswered.
   */
  const reserveAll = (
    batch: readonly { id: number; held: HeldQuota }[],
    again: (held: HeldQuota) => boolean,
  ): { id: number; held: HeldQuota }[] => {
    let refusals: ReturnType<SqliteLedgerCore['reserveAll']>;
    try {
      refusals = core.reserveAll(batch.map((r) => r.held));
    } catch (err) {
      for (const r of batch) replies.failed(r.id, failure(err));
      return [];
    }
    const keptBack: { id: number; held: HeldQuota }[] = [];
    batch.forEach((r, i) => {
      const refusal = refusals[i] ?? null;
      if (refusal && again(r.held)) keptBack.push(r);
      else replies.answered(r.id, refusal);
    });
    return keptBack;
  };

  const runReserves = (): void => {
    if (reserves.length === 0) return;
    const batch = reserves;
    reserves = [];
    const refused = reserveAll(batch, (held) => mayGiveBack(queue, held));
    if (refused.length > 0) {
      // A settlement or release of the same user or token is still queued: commit the queue, so the
      // refusal stands only if the money is not there once everything before it has landed.
      runQueued();
      reserveAll(refused, () => false);
    }
    send();
  };

  const visitor: RequestVisitor = {
    reserve: (id, held) => {
      reserves.push({ id, held });
    },
    settle: (id, held, finalQuota, log, recordLog) => {
      queue.push({ id, job: { kind: 'settle', held, finalQuota, log, recordLog } });
    },
    release: (id, held) => {
      queue.push({ id, job: { kind: 'release', held } });
    },
    // Everything submitted before a flush is committed and in `logs` when it is answered.
    flush: (id) => {
      runReserves();
      runQueued();
      try {
        publish(true);
        replies.answered(id, null);
      } catch (err) {
        replies.failed(id, failure(err));
      }
    },
    close: (id) => {
      runReserves();
      runQueued();
      closing = true;
      publish();
      core.close();
      replies.answered(id, null);
    },
    waited: (ms) => {
      waited = Math.max(waited, ms);
    },
  };

  // Rows an earlier thread or process committed to the staging table and never published.
  publish();

  port.on('message', (first: WireRequests) => {
    // Everything the main thread posted meanwhile joins this turn: the busier the thread, the more
    // each transaction carries.
    waited = 0;
    reader.read(first, visitor);
    for (let next = receiveMessageOnPort(port); next && !closing; next = receiveMessageOnPort(port)) {
      reader.read(next.message as WireRequests, visitor);
    }
    runReserves();
    // One interval in all from the oldest settlement's submission, however it was split between
    // the threads; a timer already set is for older ones and fires first.
    if (waited >= data.intervalMs || queue.length >= data.maxBatch) runQueued();
    else if (queue.length > 0) timer ??= setTimeout(runQueued, data.intervalMs - waited);
    send();
    if (closing) port.close();
  });
}

if (parentPort) serve(parentPort, workerData as LedgerWorkerData);
