import type { Redis } from 'ioredis';
import type { RateDecision } from './rate-limiter.js';
import type { TokenBucket } from './token-bucket.js';

// Refill, take and store in one script so concurrent nodes cannot both spend the last token. Time
// comes from the Redis server so nodes with skewed clocks agree.
const TAKE = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + (now - at) / 1000 * rate)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {allowed, tostring(tokens)}
`;

export class RedisTokenBucket implements TokenBucket {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'sy:tb:',
  ) {}

  async take(key: string, ratePerSecond: number, burst: number): Promise<RateDecision> {
    const [allowed, tokens] = (await this.redis.eval(
      TAKE,
      1,
      this.prefix + key,
      String(ratePerSecond),
      String(burst),
    )) as [number, string];
    if (allowed === 1) return { allowed: true, retryAfterSeconds: 0 };
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - Number(tokens)) / ratePerSecond)),
    };
  }

  async close() {}
}
