import { isTextColumn, LOG_COLUMNS, type LogRow, type LogValues } from './consume-log-row.js';
import type { BalanceRows, HeldQuota, JobResult, SettledAmounts } from './sqlite-ledger-core.js';

// How the ledger's requests and answers cross the thread boundary, cheaply. Structured
// clone of objects writes and re-creates every key of every row. Here a batch is one flat array of
// numbers and strings, and a string that repeats (username, token name, model, ip, group) travels
// once and then as its index in a dictionary that both sides build in the same order.
//
// A flat array, not a transferred Float64Array: a typed array needs a backing store per message,
// which costs more than a batch of a few rows as a plain array costs altogether.

/** One flat run of records: a kind, then that kind's values. */
export type WireBatch = (number | string | null)[];
export type WireRequests = WireBatch;
export type WireReplies = WireBatch;

// Request kinds.
const SETTLE = 1;
const FLUSH = 2;
const CLOSE = 3;
/** Starts the dictionary over with the `count` strings that follow. */
const DEFINE = 4;

/**
 * The log columns sent with a settlement, all but `quota` (the ledger writes it), in the order
 * `RequestWriter.settle` writes them. Pooled text goes by dictionary index, the rest inline.
 */
const SENT_COLUMNS = LOG_COLUMNS.map((column, index) => ({
  index,
  text: isTextColumn(column),
  pooled: ['username', 'token_name', 'model_name', 'source_ip', 'group'].includes(column),
})).filter((c) => LOG_COLUMNS[c.index] !== 'quota');

export interface RequestVisitor {
  /** `journalSeq`: the settlement's number in the settlement journal (0 for none). */
  settle(
    id: number,
    held: HeldQuota,
    finalQuota: number,
    log: LogRow,
    recordLog: boolean,
    journalSeq: number,
  ): void;
  flush(id: number): void;
  close(id: number): void;
}

export interface RequestWriterOptions {
  /** Dictionary entries before it starts over (it keeps memory bounded). Default 8192. */
  dictionaryLimit?: number;
}

/** The main thread's side: collects requests and hands them over as one message. */
export class RequestWriter {
  private batch: WireBatch = [];
  private readonly dictionary = new Map<string, number>();
  /** Dictionary size when the batch began: its first-seen strings are defined inside it. */
  private known = 0;
  private resendPending = false;
  private readonly dictionaryLimit: number;

  constructor(options: RequestWriterOptions = {}) {
    this.dictionaryLimit = options.dictionaryLimit ?? 8192;
  }

  get empty(): boolean {
    return this.batch.length === 0;
  }

  settle(
    id: number,
    held: HeldQuota,
    finalQuota: number,
    log: LogValues,
    recordLog: boolean,
    journalSeq = 0,
  ): void {
    this.begin();
    // Column by column in SENT_COLUMNS order: a named property load is much cheaper per row than a
    // load by a column name out of a list.
    this.batch.push(
      SETTLE,
      id,
      held.userId,
      held.tokenId,
      held.tokenUnlimited ? 1 : 0,
      held.amount,
      finalQuota,
      recordLog ? 1 : 0,
      journalSeq,
      number(log.user_id),
      number(log.created_at),
      number(log.type),
      text(log.content),
      this.pooled(log.username),
      number(log.token_id),
      this.pooled(log.token_name),
      this.pooled(log.model_name),
      number(log.prompt_tokens),
      number(log.completion_tokens),
      number(log.channel_id),
      number(log.request_time),
      number(log.first_response_time),
      number(log.is_stream),
      this.pooled(log.source_ip),
      this.pooled(log.group),
      text(log.metadata),
    );
  }

  flush(id: number): void {
    this.begin();
    this.batch.push(FLUSH, id);
  }

  close(id: number): void {
    this.begin();
    this.batch.push(CLOSE, id);
  }

  /** The batch written since the last take; undefined when nothing was written. */
  take(): WireRequests | undefined {
    if (this.batch.length === 0) return undefined;
    const batch = this.batch;
    this.batch = [];
    if (this.resendPending) {
      this.resendPending = false;
      const known = [...this.dictionary.keys()].slice(0, this.known);
      batch.unshift(DEFINE, known.length, ...known);
    }
    return batch;
  }

  /**
   * A new thread starts with an empty dictionary: the next batch defines what earlier batches did,
   * so indexes already written into it stay valid.
   */
  resend(): void {
    this.resendPending = true;
  }

  /** A full dictionary starts over, but only between batches: a batch's indexes are all of one era. */
  private begin(): void {
    if (this.batch.length > 0) return;
    if (this.dictionary.size >= this.dictionaryLimit) {
      this.dictionary.clear();
      this.batch.push(DEFINE, 0);
    }
    this.known = this.dictionary.size;
  }

  /** An index the reader knows, or the string itself the first time (the reader then learns it). */
  private pooled(value: LogValues[string]): number | string | null {
    if (value === null) return null;
    const s = value === undefined ? '' : String(value);
    const index = this.dictionary.get(s);
    if (index !== undefined) return index;
    this.dictionary.set(s, this.dictionary.size);
    return s;
  }
}

/** A missing number takes the column's default (0); better-sqlite3 binds no booleans. */
function number(value: LogValues[string]): number | null {
  if (value === undefined) return 0;
  if (value === null || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return Number(value);
}

function text(value: LogValues[string]): string | null {
  if (value === null) return null;
  return value === undefined ? '' : String(value);
}

/** The thread's side: keeps the dictionary and replays each batch in order. */
export class RequestReader {
  private dictionary: string[] = [];

  read(batch: WireRequests, visit: RequestVisitor): void {
    let i = 0;
    while (i < batch.length) {
      const kind = batch[i] as number;
      switch (kind) {
        case SETTLE: {
          const id = batch[i + 1] as number;
          const held = this.held(batch, i + 2);
          const finalQuota = batch[i + 6] as number;
          const recordLog = batch[i + 7] === 1;
          const journalSeq = batch[i + 8] as number;
          i += 9;
          const row: LogRow = new Array(LOG_COLUMNS.length).fill(0);
          for (const c of SENT_COLUMNS) {
            const v = batch[i++] ?? null;
            if (!c.pooled || v === null) row[c.index] = v;
            else if (typeof v === 'string') {
              this.dictionary.push(v);
              row[c.index] = v;
            } else row[c.index] = this.dictionary[v] ?? '';
          }
          visit.settle(id, held, finalQuota, row, recordLog, journalSeq);
          break;
        }
        case FLUSH:
          visit.flush(batch[i + 1] as number);
          i += 2;
          break;
        case CLOSE:
          visit.close(batch[i + 1] as number);
          i += 2;
          break;
        case DEFINE: {
          const count = batch[i + 1] as number;
          this.dictionary = batch.slice(i + 2, i + 2 + count) as string[];
          i += 2 + count;
          break;
        }
        default:
          throw new Error(`Unknown ledger request kind ${kind}`);
      }
    }
  }

  private held(batch: WireRequests, at: number): HeldQuota {
    return {
      userId: batch[at] as number,
      tokenId: batch[at + 1] as number,
      tokenUnlimited: batch[at + 2] === 1,
      amount: batch[at + 3] as number,
    };
  }
}

// Answer outcomes.
const DONE = 0;
const SETTLED = 1;
const FAILED = 2;
/** A user's or a token's balance as a batch's commit left it: the id, then the balance. */
const USER_BALANCE = 3;
const TOKEN_BALANCE = 4;
/** Each answer: id, outcome, then three values (the amounts, or a failure's message and code). */
const STRIDE = 5;

export interface ReplyVisitor {
  /** A settlement's amounts, or null for a flush or close. */
  resolve(id: number, value: SettledAmounts | null): void;
  reject(id: number, error: { message: string; code?: string }): void;
  /** Comes before the answers of the batch whose commit left it. */
  balance(kind: 'user' | 'token', id: number, value: number): void;
}

/** The thread's side of the answers. */
export class ReplyWriter {
  private batch: WireReplies = [];

  /** A flush's or close's answer. */
  done(id: number): void {
    this.batch.push(id, DONE, 0, 0, 0);
  }

  job(id: number, result: JobResult): void {
    if (result.ok)
      this.batch.push(id, SETTLED, result.value.charged, result.value.refunded, result.value.shortfall);
    else this.failed(id, result.error);
  }

  balances(rows: BalanceRows): void {
    for (const [id, value] of rows.users) this.batch.push(id, USER_BALANCE, value, 0, 0);
    for (const [id, value] of rows.tokens) this.batch.push(id, TOKEN_BALANCE, value, 0, 0);
  }

  failed(id: number, error: { message: string; code?: string }): void {
    this.batch.push(id, FAILED, error.message, error.code ?? null, 0);
  }

  take(): WireReplies | undefined {
    if (this.batch.length === 0) return undefined;
    const batch = this.batch;
    this.batch = [];
    return batch;
  }
}

/** The main thread's side of the answers. */
export function readReplies(batch: WireReplies, visit: ReplyVisitor): void {
  for (let i = 0; i < batch.length; i += STRIDE) {
    const id = batch[i] as number;
    switch (batch[i + 1]) {
      case DONE:
        visit.resolve(id, null);
        break;
      case USER_BALANCE:
        visit.balance('user', id, batch[i + 2] as number);
        break;
      case TOKEN_BALANCE:
        visit.balance('token', id, batch[i + 2] as number);
        break;
      case SETTLED:
        visit.resolve(id, {
          charged: batch[i + 2] as number,
          refunded: batch[i + 3] as number,
          shortfall: batch[i + 4] as number,
        });
        break;
      default: {
        const code = batch[i + 3];
        visit.reject(id, { message: String(batch[i + 2]), ...(typeof code === 'string' ? { code } : {}) });
      }
    }
  }
}
