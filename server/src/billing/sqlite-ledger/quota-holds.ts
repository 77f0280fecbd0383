import type { HeldQuota, ReserveRefusal } from './sqlite-ledger-core.js';

// Quota held in memory by the SQLite store (a SQLite file serves one node, so this process
// sees every call that spends from it). A call in progress holds its reserve; a settlement sent to
// the ledger thread holds its charge until the thread has committed it. A reserve is granted only
// when the balance in the database, less what is held, covers it: the database is written once per
// call, at settlement, and a process that stops takes its holds with it instead of leaving reserves
// deducted from balances that no settlement will ever give back.

/** A user's and a token's balances as committed in the database; undefined for a row that does not exist. */
export interface CommittedBalances {
  read(userId: number, tokenId: number): { user: number | undefined; token: number | undefined };
}

export class QuotaHolds {
  private readonly users = new Map<number, number>();
  private readonly tokens = new Map<number, number>();

  /**
   * Holds `held.amount` on the user and, unless unlimited, the token when both can cover it, and
   * changes nothing otherwise. A missing row covers nothing.
   */
  take(held: HeldQuota, committed: CommittedBalances): ReserveRefusal | null {
    if (held.amount <= 0) return null;
    const balance = committed.read(held.userId, held.tokenId);
    if ((balance.user ?? 0) - this.ofUser(held.userId) < held.amount) return 'insufficient_user_quota';
    if (!held.tokenUnlimited && (balance.token ?? 0) - this.ofToken(held.tokenId) < held.amount) {
      return 'insufficient_token_quota';
    }
    this.add(held, held.amount);
    return null;
  }

  /** Adds `amount` (negative to give back) to what the user and the limited token have held. */
  add(held: HeldQuota, amount: number): void {
    if (amount === 0) return;
    change(this.users, held.userId, amount);
    if (!held.tokenUnlimited) change(this.tokens, held.tokenId, amount);
  }

  ofUser(id: number): number {
    return this.users.get(id) ?? 0;
  }

  ofToken(id: number): number {
    return this.tokens.get(id) ?? 0;
  }

  /** Users and tokens with something held: 0 once every call has settled and been committed. */
  get size(): number {
    return this.users.size + this.tokens.size;
  }
}

/** An entry that drops to zero is removed, so the maps hold only what is in flight. */
function change(map: Map<number, number>, id: number, amount: number): void {
  const next = (map.get(id) ?? 0) + amount;
  if (next === 0) map.delete(id);
  else map.set(id, next);
}
