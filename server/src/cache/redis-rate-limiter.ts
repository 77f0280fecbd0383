import type { Redis } from 'ioredis';
import type { RateDecision, RateLimiter } from './rate-limiter.js';

// INCR and the first EXPIRE must be one step, or a crash between them leaves a key that never expires.
const HIT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}
`;

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'sy:rl:',
  ) {}

  async hit(key: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    const [count, pttl] = (await this.redis.eval(
      HIT,
      1,
      this.prefix + key,
      String(windowSeconds * 1000),
    )) as [number, number];
    if (count <= limit) return { allowed: true, retryAfterSeconds: 0 };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(pttl / 1000)) };
  }

  async close() {}
}
