import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { ConsumeLog } from './consume-log.js';

// Settlements on their way to the database, kept in an append-only file so that a process that dies
// (kill -9, a crash, the OOM killer) loses none: each is written when the ledger is handed it, all
// of one turn of the event loop in one write, and marked done when its transaction committed. At
// start-up the ones not marked done are settled again before anything is served; a settlement that
// committed but was not yet marked done is recognised by its reserve's row (PostgreSQL, MySQL) and
// charges once. The file is written to the operating system, not synced to the disk: a process
// crash loses nothing, a power loss can lose what the last seconds wrote (as it can lose the
// database's own last commits, depending on its sync settings).

export interface JournalEntry {
  /** Sequence number within the file. */
  n: number;
  ref: string | undefined;
  userId: number;
  tokenId: number;
  tokenUnlimited: boolean;
  amount: number;
  finalQuota: number;
  recordLog: boolean;
  log: ConsumeLog;
}

const FILE = 'settlements.journal';
/** The file is rewritten with only the settlements still open once it grows past this. */
const COMPACT_BYTES = 8 * 1024 * 1024;

export class SettlementJournal {
  private readonly file: string;
  private fd: number | undefined;
  private sequence = 0;
  /** Lines of the settlements not yet marked done, by sequence number. */
  private readonly open = new Map<number, string>();
  private buffer: string[] = [];
  private scheduled = false;
  private size = 0;

  constructor(
    dir: string,
    private readonly onError: (message: string) => void = () => {},
    private readonly compactBytes = COMPACT_BYTES,
  ) {
    this.file = path.join(dir, FILE);
  }

  /**
   * The settlements a previous run left open, in the order they were written. The file is kept
   * until `begin` (after they were settled again), so a crash during the replay loses none.
   */
  leftOpen(): JournalEntry[] {
    if (!existsSync(this.file)) return [];
    const entries = new Map<number, JournalEntry>();
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (line === '') continue;
      let record: { d?: number } & Partial<JournalEntry>;
      try {
        record = JSON.parse(line) as typeof record;
      } catch {
        // The last line of a process killed while writing it: its settlement had not been handed on.
        continue;
      }
      if (typeof record.d === 'number') entries.delete(record.d);
      else if (typeof record.n === 'number') entries.set(record.n, record as JournalEntry);
    }
    return [...entries.values()];
  }

  /**
   * Starts a fresh file, numbering after `after` (the highest number the last file or the store
   * knew); call once what `leftOpen` gave is settled.
   */
  begin(after = 0): void {
    this.sequence = Math.max(this.sequence, after);
    writeFileSync(this.file, '');
    this.fd = openSync(this.file, 'a');
    this.size = 0;
  }

  /** Records a settlement handed to the ledger; written at the end of this turn. Returns its number. */
  append(entry: Omit<JournalEntry, 'n'>): number {
    const n = ++this.sequence;
    const line = `${JSON.stringify({ n, ...entry })}\n`;
    this.open.set(n, line);
    this.push(line);
    return n;
  }

  /** The settlement committed (or was refused for good and kept elsewhere). */
  done(n: number): void {
    if (!this.open.delete(n)) return;
    this.push(`{"d":${n}}\n`);
  }

  /** Writes what is buffered now (also at the end of every turn that appended). */
  flush(): void {
    this.scheduled = false;
    if (this.fd === undefined || this.buffer.length === 0) return;
    const text = this.buffer.join('');
    this.buffer = [];
    try {
      this.size += writeSync(this.fd, text);
      if (this.size > this.compactBytes) this.compact();
    } catch (err) {
      this.onError(`the settlement journal could not be written: ${String(err)}`);
    }
  }

  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** How many settlements are open (handed to the ledger, not committed). */
  get pending(): number {
    return this.open.size;
  }

  private push(line: string): void {
    this.buffer.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      // After the callbacks of this turn's current task: one write for all its settlements.
      queueMicrotask(() => this.flush());
    }
  }

  /** Rewrites the file with the open settlements only, through a new file renamed over it. */
  private compact(): void {
    const next = `${this.file}.next`;
    const text = [...this.open.values()].join('');
    writeFileSync(next, text);
    renameSync(next, this.file);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = openSync(this.file, 'a');
    this.size = Buffer.byteLength(text);
  }
}
