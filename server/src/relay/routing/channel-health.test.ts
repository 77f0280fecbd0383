import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { type ChannelHealth, MemoryChannelHealth, RedisChannelHealth } from './channel-health.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl && process.env.REQUIRE_ALL_SUITES === '1')
  throw new Error('TEST_REDIS_URL is required by REQUIRE_ALL_SUITES=1');
if (!redisUrl) console.log('redis channel health suite skipped: TEST_REDIS_URL is not set');
const redis = redisUrl ? new Redis(redisUrl) : undefined;
const prefix = `sy-test:${Date.now()}:${Math.random().toString(36).slice(2)}:freeze:`;

afterAll(async () => {
  if (redis) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Both implementations run on the real clock here, so they are held to the same contract.
const implementations: { name: string; make: () => ChannelHealth; skip: boolean }[] = [
  { name: 'memory', make: () => new MemoryChannelHealth(), skip: false },
  { name: 'redis', make: () => new RedisChannelHealth(redis!, prefix), skip: !redis },
];

for (const impl of implementations) {
  describe.skipIf(impl.skip)(`${impl.name} channel health`, () => {
    it('freezes a (channel, model) pair until the time runs out', async () => {
      const h = impl.make();
      await h.freeze(7, 'gpt-4o', 0.4);
      expect(await h.isFrozen(7, 'gpt-4o', Date.now())).toBe(true);
      expect(await h.isFrozen(7, 'o3', Date.now())).toBe(false);
      expect(await h.isFrozen(8, 'gpt-4o', Date.now())).toBe(false);
      await sleep(500);
      expect(await h.isFrozen(7, 'gpt-4o', Date.now())).toBe(false);
      await h.close();
    });

    it('reports the frozen ones among many channels at once', async () => {
      const h = impl.make();
      await h.freeze(1, 'm', 30);
      await h.freeze(3, 'm', 30);
      await h.freeze(2, 'other', 30);
      await h.freeze(4, 'm', 10);
      const frozen = await h.frozenAmong([1, 2, 3, 4, 5], 'm', Date.now());
      expect([...frozen.keys()].sort()).toEqual([1, 3, 4]);
      // The shorter freeze ends first.
      expect(frozen.get(4)!).toBeLessThan(frozen.get(1)!);
      expect((await h.frozenAmong([], 'm', Date.now())).size).toBe(0);
      await h.close();
    });

    it('does nothing for a zero cooldown (RetryCooldownSeconds = 0)', async () => {
      const h = impl.make();
      await h.freeze(5, 'm', 0);
      expect(await h.isFrozen(5, 'm', Date.now())).toBe(false);
      await h.close();
    });
  });
}

describe('memory channel health on a fake clock', () => {
  it('expires exactly at the end of the interval and keeps the longer of two freezes', async () => {
    let clock = 1_000_000;
    const h = new MemoryChannelHealth(() => clock);
    await h.freeze(1, 'm', 5);
    expect(await h.isFrozen(1, 'm', clock + 4_999)).toBe(true);
    expect(await h.isFrozen(1, 'm', clock + 5_000)).toBe(false);
    await h.freeze(2, 'm', 60);
    clock += 1_000;
    await h.freeze(2, 'm', 5);
    expect(await h.isFrozen(2, 'm', clock + 30_000)).toBe(true);
    await h.close();
  });
});

describe.skipIf(!redis)('redis channel health across nodes', () => {
  it('lets one node see a freeze set by another, with a TTL on the key', async () => {
    const other = new Redis(redisUrl!);
    const a = new RedisChannelHealth(redis!, prefix);
    const b = new RedisChannelHealth(other, prefix);
    await a.freeze(42, 'gpt-4o', 10);
    expect(await b.isFrozen(42, 'gpt-4o', Date.now())).toBe(true);
    const ttl = await other.pttl(`${prefix}42:gpt-4o`);
    expect(ttl).toBeGreaterThan(9_000);
    expect(ttl).toBeLessThanOrEqual(10_000);
    await other.quit();
  });
});

describe('redis channel health without a reachable server', () => {
  it('fails open and reports when Redis is unreachable', async () => {
    const broken = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    const errors: unknown[] = [];
    const h = new RedisChannelHealth(broken, prefix, (e) => errors.push(e));
    await h.freeze(1, 'm', 5);
    expect(await h.isFrozen(1, 'm', Date.now())).toBe(false);
    expect((await h.frozenAmong([1, 2], 'm', Date.now())).size).toBe(0);
    expect(errors).toHaveLength(3);
    broken.disconnect();
  });
});
