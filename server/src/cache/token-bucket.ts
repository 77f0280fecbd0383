import type { RateDecision } from './rate-limiter.js';

/** Token buckets: `ratePerSecond` refill up to `burst`; each call takes one token. */
export interface TokenBucket {
  take(key: string, ratePerSecond: number, burst: number): Promise<RateDecision>;
  close(): Promise<void>;
}

export class MemoryTokenBucket implements TokenBucket {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => {
      // A bucket idle long enough to be full again carries no state worth keeping.
      const t = this.now();
      for (const [k, b] of this.buckets) if (t - b.at > 600_000) this.buckets.delete(k);
    }, 60_000);
    this.sweeper.unref();
  }

  async take(key: string, ratePerSecond: number, burst: number): Promise<RateDecision> {
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: burst, at: t };
    b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 1000) * ratePerSecond);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / ratePerSecond)) };
  }

  async close() {
    clearInterval(this.sweeper);
  }
}
