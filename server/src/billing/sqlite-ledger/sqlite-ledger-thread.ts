import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openSqliteFile } from '../../db/sqlite-file.js';
import { ReplyWriter, RequestReader, type RequestVisitor, type WireRequests } from './ledger-wire.js';
import {
  type JobResult,
  type LedgerJob,
  SqliteLedgerCore,
  type TokenStatusCodes,
} from './sqlite-ledger-core.js';

// The ledger thread: owns one SQLite connection, group-commits the settlements of each message it
// receives (one transaction per `maxBatch` jobs) with their log rows staged, and publishes the staged
// rows into `logs` in bulk (sqlite-ledger-core.ts). Reserves never come here: the main thread holds
// quota in memory (sqlite-ledger-client.ts).

export interface LedgerWorkerData {
  file: string;
  busyTimeoutMs: number;
  maxBatch: number;
  /** Staged log rows are published (moved into `logs`) once this many wait... */
  publishRows: number;
  /** ...or this long after the first of them was committed, or at a flush. */
  publishIntervalMs: number;
  status: TokenStatusCodes;
}

const COMMIT_ATTEMPTS = 3;
/** The longest a batch whose commit failed waits before it runs again. */
const COMMIT_RETRY_MS = 1000;

function failure(err: unknown): { message: string; code?: string } {
  const e = err as { message?: string; code?: string };
  return { message: String(e?.message ?? err), ...(e?.code ? { code: e.code } : {}) };
}

/**
 * The thread's page cache, in KiB (SQLite's default is 2000). About half the default keeps the
 * thread's memory and the process's RSS lower under a long load at about the same CPU per request.
 */
const PAGE_CACHE_KIB = 1024;

function serve(port: NonNullable<typeof parentPort>, data: LedgerWorkerData): void {
  const connection = openSqliteFile(data.file, data.busyTimeoutMs);
  connection.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  const core = new SqliteLedgerCore(connection, data.status);
  const reader = new RequestReader();
  const replies = new ReplyWriter();
  const queue: { id: number; job: LedgerJob }[] = [];
  let publishTimer: NodeJS.Timeout | undefined;
  let closing = false;

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

  let retryTimer: NodeJS.Timeout | undefined;
  const runQueued = (): void => {
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = undefined;
    while (queue.length > 0) {
      const batch = queue.slice(0, data.maxBatch);
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
      if (!results && !closing) {
        // Nothing was written (the write lock stayed busy, the disk was full): the batch stays first
        // in line and runs again later, its callers waiting, instead of being answered as lost.
        retryTimer = setTimeout(
          () => {
            runQueued();
            send();
          },
          Math.min(COMMIT_RETRY_MS, data.busyTimeoutMs),
        );
        break;
      }
      queue.splice(0, batch.length);
      // Before the answers: the main thread holds each charge until its answer, so the balance that
      // includes it must be there first.
      if (results) replies.balances(core.settledBalances);
      for (let i = 0; i < batch.length; i++) {
        const result = results?.[i];
        if (result) replies.job(batch[i]!.id, result);
        else replies.failed(batch[i]!.id, failure(lastError));
      }
      send();
    }
    publishWhenDue();
  };

  const visitor: RequestVisitor = {
    settle: (id, held, finalQuota, log, recordLog, journalSeq) => {
      queue.push({ id, job: { held, finalQuota, log, recordLog, journalSeq } });
    },
    // Everything submitted before a flush is committed and in `logs` when it is answered.
    flush: (id) => {
      runQueued();
      if (queue.length > 0) {
        replies.failed(id, { message: 'settlements are waiting for the database to take their commit' });
        return;
      }
      try {
        publish(true);
        replies.done(id);
      } catch (err) {
        replies.failed(id, failure(err));
      }
    },
    close: (id) => {
      // Closing: a batch that still cannot commit is answered as failed (its journal lines stay open
      // and the next start makes it again).
      closing = true;
      runQueued();
      publish();
      core.close();
      replies.done(id);
    },
  };

  // Rows an earlier thread or process committed to the staging table and never published.
  publish();

  port.on('message', (first: WireRequests) => {
    // Everything the main thread posted meanwhile joins this turn: the busier the thread, the more
    // each transaction carries.
    reader.read(first, visitor);
    for (let next = receiveMessageOnPort(port); next && !closing; next = receiveMessageOnPort(port)) {
      reader.read(next.message as WireRequests, visitor);
    }
    // The settlements waited for company on the main thread already: they commit now.
    runQueued();
    send();
    if (closing) port.close();
  });
}

if (parentPort) serve(parentPort, workerData as LedgerWorkerData);
