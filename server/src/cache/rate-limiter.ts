export interface RateDecision {
  allowed: boolean;
  /** Seconds until the window has room again (0 when allowed). */
  retryAfterSeconds: number;
}

/** Fixed-window counters: at most `limit` hits per `windowSeconds` for a key. */
export interface RateLimiter {
  hit(key: string, limit: number, windowSeconds: number): Promise<RateDecision>;
  close(): Promise<void>;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => {
      const t = this.now();
      for (const [k, w] of this.windows) if (w.resetAt <= t) this.windows.delete(k);
    }, 60_000);
    this.sweeper.unref();
  }

  async hit(key: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= t) {
      w = { count: 0, resetAt: t + windowSeconds * 1000 };
      this.windows.set(key, w);
    }
    w.count++;
    if (w.count <= limit) return { allowed: true, retryAfterSeconds: 0 };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((w.resetAt - t) / 1000)) };
  }

  async close() {
    clearInterval(this.sweeper);
  }
}
