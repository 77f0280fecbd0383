import type { Redis } from 'ioredis';

/**
 * Short freezes of a (channel, model) pair after a failure, for the retry interval. Every request
 * skips a frozen pair; with Redis, every node does. `now` and expiry are unix milliseconds.
 */
export interface ChannelHealth {
  /** Freezes the pair for `seconds` from now; 0 or less does nothing (RetryCooldownSeconds = 0). */
  freeze(channelId: number, model: string, seconds: number): Promise<void>;
  isFrozen(channelId: number, model: string, now: number): Promise<boolean>;
  /**
   * The frozen ones among `channelIds` with the unix ms their freeze ends, in one round trip: what
   * the selector asks per request (the end orders the freezes when every channel is frozen).
   */
  frozenAmong(
    channelIds: readonly number[],
    model: string,
    now: number,
  ): Promise<ReadonlyMap<number, number>>;
  close(): Promise<void>;
}

const SWEEP_MS = 60_000;
/** The answer while nothing is frozen, shared: no allocation per request. */
const NONE_FROZEN: ReadonlyMap<number, number> = new Map();

export class MemoryChannelHealth implements ChannelHealth {
  private readonly frozenUntil = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly nowMs: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  async freeze(channelId: number, model: string, seconds: number): Promise<void> {
    if (!(seconds > 0)) return;
    const key = pairKey(channelId, model);
    const until = this.nowMs() + seconds * 1000;
    // A shorter freeze arriving later must not cut an earlier, longer one short.
    if ((this.frozenUntil.get(key) ?? 0) < until) this.frozenUntil.set(key, until);
  }

  async isFrozen(channelId: number, model: string, now: number): Promise<boolean> {
    return this.check(pairKey(channelId, model), now);
  }

  async frozenAmong(
    channelIds: readonly number[],
    model: string,
    now: number,
  ): Promise<ReadonlyMap<number, number>> {
    if (this.frozenUntil.size === 0) return NONE_FROZEN;
    const out = new Map<number, number>();
    for (const id of channelIds) {
      const key = pairKey(id, model);
      if (this.check(key, now)) out.set(id, this.frozenUntil.get(key)!);
    }
    return out;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.frozenUntil.clear();
  }

  private check(key: string, now: number): boolean {
    const until = this.frozenUntil.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.frozenUntil.delete(key);
    return false;
  }

  private sweep(): void {
    const now = this.nowMs();
    for (const [key, until] of this.frozenUntil) if (until <= now) this.frozenUntil.delete(key);
  }
}

/**
 * Freezes as Redis keys with a TTL, so all nodes skip the same pairs. Expiry follows the Redis
 * server's clock (the `now` argument is not used), which keeps nodes with skewed clocks in
 * agreement. A freeze is a hint: if Redis fails, the error is reported and the channel counts as
 * not frozen, so an outage of the cache never stops routing.
 */
export class RedisChannelHealth implements ChannelHealth {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'sy:freeze:',
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  async freeze(channelId: number, model: string, seconds: number): Promise<void> {
    if (!(seconds > 0)) return;
    const key = this.prefix + pairKey(channelId, model);
    const ttlMs = Math.max(1, Math.ceil(seconds * 1000));
    try {
      // PX with GT would keep the longer of two freezes but needs Redis 7; a plain SET is close enough.
      // The value is the end by this node's clock: it only orders freezes, Redis expires them.
      await this.redis.set(key, String(Date.now() + ttlMs), 'PX', ttlMs);
    } catch (err) {
      this.onError(err);
    }
  }

  async isFrozen(channelId: number, model: string, _now: number): Promise<boolean> {
    try {
      return (await this.redis.exists(this.prefix + pairKey(channelId, model))) === 1;
    } catch (err) {
      this.onError(err);
      return false;
    }
  }

  async frozenAmong(
    channelIds: readonly number[],
    model: string,
    _now: number,
  ): Promise<ReadonlyMap<number, number>> {
    const out = new Map<number, number>();
    if (channelIds.length === 0) return out;
    try {
      const values = await this.redis.mget(channelIds.map((id) => this.prefix + pairKey(id, model)));
      values.forEach((v, i) => {
        const id = channelIds[i];
        if (v !== null && id !== undefined) out.set(id, Number(v) || 0);
      });
    } catch (err) {
      this.onError(err);
    }
    return out;
  }

  // The connection belongs to the composition root, which closes it.
  async close(): Promise<void> {}
}

function pairKey(channelId: number, model: string): string {
  return `${channelId}:${model}`;
}
