import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryKvStore } from './kv-store.js';
import { MemoryRateLimiter } from './rate-limiter.js';
import { RedisKvStore } from './redis-kv-store.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl && process.env.REQUIRE_ALL_SUITES === '1')
  throw new Error('TEST_REDIS_URL is required by REQUIRE_ALL_SUITES=1');
if (!redisUrl) console.log('redis cache suite skipped: TEST_REDIS_URL is not set');
const redis = redisUrl ? new Redis(redisUrl) : undefined;
const prefix = `sy-test:${Date.now()}:${Math.random().toString(36).slice(2)}:`;

afterAll(async () => {
  if (redis) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
});

const implementations = [
  { name: 'memory', kv: () => new MemoryKvStore(), limiter: () => new MemoryRateLimiter(), skip: false },
  {
    name: 'redis',
    kv: () => new RedisKvStore(redis!, `${prefix}kv:`),
    limiter: () => new RedisRateLimiter(redis!, `${prefix}rl:`),
    skip: !redis,
  },
];

for (const impl of implementations) {
  describe.skipIf(impl.skip)(`${impl.name} key-value store and rate limiter`, () => {
    it('stores with expiry and takes a value only once, even when raced', async () => {
      const kv = impl.kv();
      await kv.set('code', '123456', 60);
      expect(await kv.get('code')).toBe('123456');
      const takes = await Promise.all([kv.take('code'), kv.take('code'), kv.take('code')]);
      expect(takes.filter((v) => v === '123456')).toHaveLength(1);
      expect(await kv.get('code')).toBeUndefined();
      await kv.set('short', 'x', 1);
      await new Promise((r) => setTimeout(r, 1100));
      expect(await kv.get('short')).toBeUndefined();
      await kv.close();
    });

    it('allows exactly the limit per window, per key, under concurrency', async () => {
      const limiter = impl.limiter();
      const decisions = await Promise.all(Array.from({ length: 25 }, () => limiter.hit('ip-a', 20, 60)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
      const denied = decisions.find((d) => !d.allowed)!;
      expect(denied.retryAfterSeconds).toBeGreaterThan(0);
      expect(denied.retryAfterSeconds).toBeLessThanOrEqual(60);
      expect((await limiter.hit('ip-b', 20, 60)).allowed).toBe(true);
      await limiter.close();
    });

    it('opens a new window once the old one has passed', async () => {
      const limiter = impl.limiter();
      expect((await limiter.hit('w', 1, 1)).allowed).toBe(true);
      expect((await limiter.hit('w', 1, 1)).allowed).toBe(false);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await limiter.hit('w', 1, 1)).allowed).toBe(true);
      await limiter.close();
    });
  });
}
