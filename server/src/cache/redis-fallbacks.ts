import type { ChannelHealth } from '../relay/routing/channel-health.js';
import type { KvStore } from './kv-store.js';
import type { RateDecision, RateLimiter } from './rate-limiter.js';
import type { RedisBreaker } from './redis-breaker.js';
import type { TokenBucket } from './token-bucket.js';

// The Redis-backed stores with this node's memory behind them: while Redis is away (the breaker is
// open) the limits are per node and short-lived values stay on the node that wrote them, which is
// better than refusing or stalling every call.

export class FallbackRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: RateLimiter,
    private readonly memory: RateLimiter,
    private readonly breaker: RedisBreaker,
  ) {}
  hit(key: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    return this.breaker.guarded(
      () => this.redis.hit(key, limit, windowSeconds),
      () => this.memory.hit(key, limit, windowSeconds),
    );
  }
  async close() {
    await this.memory.close();
    await this.redis.close();
  }
}

export class FallbackTokenBucket implements TokenBucket {
  constructor(
    private readonly redis: TokenBucket,
    private readonly memory: TokenBucket,
    private readonly breaker: RedisBreaker,
  ) {}
  take(key: string, ratePerSecond: number, burst: number): Promise<RateDecision> {
    return this.breaker.guarded(
      () => this.redis.take(key, ratePerSecond, burst),
      () => this.memory.take(key, ratePerSecond, burst),
    );
  }
  async close() {
    await this.memory.close();
    await this.redis.close();
  }
}

export class FallbackKvStore implements KvStore {
  constructor(
    private readonly redis: KvStore,
    private readonly memory: KvStore,
    private readonly breaker: RedisBreaker,
  ) {}
  get(key: string) {
    return this.breaker.guarded(
      async () => (await this.redis.get(key)) ?? (await this.memory.get(key)),
      () => this.memory.get(key),
    );
  }
  set(key: string, value: string, ttlSeconds: number) {
    return this.breaker.guarded(
      () => this.redis.set(key, value, ttlSeconds),
      () => this.memory.set(key, value, ttlSeconds),
    );
  }
  async delete(key: string) {
    await this.memory.delete(key);
    await this.breaker.guarded(
      () => this.redis.delete(key),
      () => {},
    );
  }
  take(key: string) {
    return this.breaker.guarded(
      async () => (await this.redis.take(key)) ?? (await this.memory.take(key)),
      () => this.memory.take(key),
    );
  }
  async close() {
    await this.memory.close();
    await this.redis.close();
  }
}

/**
 * Channel freezes: every node reads its own memory (`memory`, which `redis` keeps in step with the
 * others); a freeze is shared through Redis while it answers, and stays on this node while it is away.
 */
export class FallbackChannelHealth implements ChannelHealth {
  constructor(
    private readonly redis: ChannelHealth,
    private readonly memory: ChannelHealth,
    private readonly breaker: RedisBreaker,
  ) {}
  async freeze(channelId: number, model: string, seconds: number) {
    if (this.breaker.available) await this.redis.freeze(channelId, model, seconds);
    else await this.memory.freeze(channelId, model, seconds);
  }
  isFrozen(channelId: number, model: string, now: number) {
    return this.memory.isFrozen(channelId, model, now);
  }
  frozenAmong(channelIds: readonly number[], model: string, now: number) {
    return this.memory.frozenAmong(channelIds, model, now);
  }
  async close() {
    await this.redis.close();
    await this.memory.close();
  }
}
