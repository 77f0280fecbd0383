import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteFile } from '../db/sqlite-file.js';
import {
  type HeldQuota,
  type JobResult,
  type LedgerJob,
  SqliteLedgerCore,
  type TokenStatusCodes,
} from './sqlite-ledger-core.js';

// The ledger thread: owns one SQLite connection, answers reserves at once and group-commits
// settlements (one transaction every few milliseconds or every `maxBatch` jobs).

export interface LedgerWorkerData {
  file: string;
  busyTimeoutMs: number;
  intervalMs: number;
  maxBatch: number;
  status: TokenStatusCodes;
}

/** Requests travel in batches: everything one turn of the main thread's event loop asked. */
export type LedgerRequest =
  | { t: 'reserve'; id: number; held: HeldQuota }
  | { t: 'job'; id: number; job: LedgerJob }
  | { t: 'flush'; id: number }
  | { t: 'close'; id: number };

export type LedgerReply = { id: number; result: JobResult | { ok: true; value: unknown } };

/** Several replies travel in one message: a batch's results are posted together. */
export type LedgerMessage = LedgerReply[];

const COMMIT_ATTEMPTS = 3;

function failure(err: unknown): JobResult {
  const e = err as { message?: string; code?: string };
  return { ok: false, error: { message: String(e?.message ?? err), ...(e?.code ? { code: e.code } : {}) } };
}

function serve(port: NonNullable<typeof parentPort>, data: LedgerWorkerData): void {
  const core = new SqliteLedgerCore(openSqliteFile(data.file, data.busyTimeoutMs), data.status);
  const queue: { id: number; job: LedgerJob }[] = [];
  let timer: NodeJS.Timeout | undefined;

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
      const replies: LedgerMessage = batch.map((b, i) => ({
        id: b.id,
        result: results?.[i] ?? failure(lastError),
      }));
      port.postMessage(replies);
    }
  };

  let closing = false;
  const handle = (m: LedgerRequest, replies: LedgerMessage): void => {
    switch (m.t) {
      case 'reserve': {
        let result: LedgerReply['result'];
        try {
          result = { ok: true, value: core.reserve(m.held) };
        } catch (err) {
          result = failure(err);
        }
        replies.push({ id: m.id, result });
        return;
      }
      case 'job':
        queue.push({ id: m.id, job: m.job });
        if (queue.length >= data.maxBatch) runQueued();
        else timer ??= setTimeout(runQueued, data.intervalMs);
        return;
      case 'flush':
        runQueued();
        replies.push({ id: m.id, result: { ok: true, value: null } });
        return;
      case 'close':
        runQueued();
        core.close();
        replies.push({ id: m.id, result: { ok: true, value: null } });
        closing = true;
        return;
    }
  };
  port.on('message', (batch: LedgerRequest[]) => {
    const replies: LedgerMessage = [];
    for (const m of batch) handle(m, replies);
    if (replies.length > 0) port.postMessage(replies);
    if (closing) port.close();
  });
}

if (parentPort) serve(parentPort, workerData as LedgerWorkerData);
