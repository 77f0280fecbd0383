import type { KvStore } from '../cache/kv-store.js';
import type { AuthCodesQueries } from '../db/queries/auth-codes.js';

const SWEEP_MS = 10 * 60_000;

/**
 * One-time codes (verification, reset, OAuth state) kept in the database when there is no Redis,
 * so every node sharing the database sees them and a restart keeps them. `take` is single-use even
 * when two requests race: only the one whose delete removes the row gets the value.
 */
export class DbCodeStore implements KvStore {
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly rows: AuthCodesQueries,
    private readonly nowSeconds: () => number,
  ) {
    this.sweeper = setInterval(() => {
      this.rows.deleteExpired(this.nowSeconds()).catch(() => {});
    }, SWEEP_MS);
    this.sweeper.unref();
  }

  async get(key: string) {
    return this.rows.live(key, this.nowSeconds());
  }
  async set(key: string, value: string, ttlSeconds: number) {
    await this.rows.put(key, value, this.nowSeconds() + ttlSeconds);
  }
  async delete(key: string) {
    await this.rows.delete(key);
  }
  async take(key: string) {
    const value = await this.rows.live(key, this.nowSeconds());
    if (value === undefined) return undefined;
    return (await this.rows.deleteIfHolds(key, value)) ? value : undefined;
  }
  async close() {
    clearInterval(this.sweeper);
  }
}
