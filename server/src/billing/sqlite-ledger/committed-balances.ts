import type { CommittedBalances } from './quota-holds.js';

// The balances a reserve checks, as committed in the database, kept in memory so that a reserve
// reads nothing: a read is a read transaction (two lock calls, and page reads after every commit of
// another connection), too dear for every call. Kept exact by:
// - the ledger thread, which reports with each batch's answers the balances its commit left;
// - this process's writes through its other connection (the console: top-ups, quota and token
//   edits), which clear everything, and after which the thread's reports of batches written before
//   are not believed (they may have been committed before the write);
// - a time to live, after which an entry is read again, for writes from outside this process.

/** Reads both balances from the database; undefined for a row that does not exist. */
export type BalanceReader = CommittedBalances['read'];

interface Entry {
  value: number;
  until: number;
}

export interface CommittedBalanceCacheOptions {
  /** A number that changes whenever this process writes the database through another connection. */
  writes: () => number;
  nowMs: () => number;
  /** Default 1000 ms. */
  ttlMs?: number;
  /** Entries of each kind before the cache starts over. Default 100 000. */
  maxEntries?: number;
}

export class CommittedBalanceCache implements CommittedBalances {
  private readonly users = new Map<number, Entry>();
  private readonly tokens = new Map<number, Entry>();
  private writesSeen: number;
  private current = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly reader: BalanceReader,
    private readonly options: CommittedBalanceCacheOptions,
  ) {
    this.writesSeen = options.writes();
    this.ttlMs = options.ttlMs ?? 1000;
    this.maxEntries = options.maxEntries ?? 100_000;
  }

  /**
   * Changes whenever a write through the other connection is seen. A report of the thread is
   * believed only for settlements written in the generation it arrives in.
   */
  get generation(): number {
    this.forgetIfWritten();
    return this.current;
  }

  read(userId: number, tokenId: number): { user: number | undefined; token: number | undefined } {
    this.forgetIfWritten();
    const now = this.options.nowMs();
    const user = this.users.get(userId);
    const token = this.tokens.get(tokenId);
    if (user && token && user.until > now && token.until > now)
      return { user: user.value, token: token.value };
    const read = this.reader(userId, tokenId);
    if (read.user !== undefined) this.set(this.users, userId, read.user, now);
    if (read.token !== undefined) this.set(this.tokens, tokenId, read.token, now);
    return read;
  }

  /** What a batch's commit left, reported by the thread, for settlements written in `generation`. */
  learn(generation: number, kind: 'user' | 'token', id: number, value: number): void {
    if (generation !== this.generation) return;
    this.set(kind === 'user' ? this.users : this.tokens, id, value, this.options.nowMs());
  }

  private forgetIfWritten(): void {
    const writes = this.options.writes();
    if (writes === this.writesSeen) return;
    this.writesSeen = writes;
    this.current++;
    this.users.clear();
    this.tokens.clear();
  }

  private set(map: Map<number, Entry>, id: number, value: number, now: number): void {
    const entry = map.get(id);
    if (entry) {
      entry.value = value;
      entry.until = now + this.ttlMs;
      return;
    }
    if (map.size >= this.maxEntries) map.clear();
    map.set(id, { value, until: now + this.ttlMs });
  }
}
