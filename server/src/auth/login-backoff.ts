import type { KvStore } from '../cache/kv-store.js';

// Per-account back-off after failed sign-ins, on top of the per-IP limit: an attacker spreading
// guesses over many addresses still gets a few per account per hour. Counts live in the shared
// code store (Redis, or the database without it), so every node sees the same ones. An unknown
// name is counted like an account, so the answers tell nothing about which accounts exist.

/** Failures allowed before any wait. */
const FREE_FAILURES = 5;
const FIRST_WAIT_SECONDS = 30;
const MAX_WAIT_SECONDS = 15 * 60;
/** A quiet hour forgets the failures. */
const MEMORY_SECONDS = 60 * 60;

interface Record_ {
  failures: number;
  /** Unix seconds before which no attempt is checked. */
  until: number;
}

export class LoginBackoff {
  constructor(
    private readonly kv: KvStore,
    private readonly nowSeconds: () => number,
  ) {}

  /** Seconds the account must still wait; 0 when an attempt may be checked now. */
  async waitSeconds(account: string): Promise<number> {
    const r = await this.read(account);
    return r ? Math.max(0, r.until - this.nowSeconds()) : 0;
  }

  /** Counts a failure; returns the wait it starts (0 while within the free failures). */
  async failed(account: string): Promise<number> {
    const failures = ((await this.read(account))?.failures ?? 0) + 1;
    const over = failures - FREE_FAILURES;
    const wait = over <= 0 ? 0 : Math.min(MAX_WAIT_SECONDS, FIRST_WAIT_SECONDS * 2 ** (over - 1));
    const record: Record_ = { failures, until: this.nowSeconds() + wait };
    await this.kv.set(keyOf(account), JSON.stringify(record), MEMORY_SECONDS + wait);
    return wait;
  }

  async succeeded(account: string): Promise<void> {
    await this.kv.delete(keyOf(account));
  }

  private async read(account: string): Promise<Record_ | undefined> {
    const raw = await this.kv.get(keyOf(account));
    if (!raw) return undefined;
    try {
      const r = JSON.parse(raw) as Record_;
      return Number.isFinite(r.failures) && Number.isFinite(r.until) ? r : undefined;
    } catch {
      return undefined;
    }
  }
}

const keyOf = (account: string) => `login-backoff:${account}`;
