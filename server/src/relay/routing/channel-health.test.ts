import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { type ChannelHealth, MemoryChannelHealth, RedisChannelHealth } from './channel-health.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl && process.env.REQUIRE_ALL_SUITES === '1')
  throw new Error('TEST_REDIS_URL is required by REQUIRE_ALL_SUITES=1');
if (!redisUrl) console.log('redis channel health suite skipped: TEST_REDIS_URL is not set');
const redis = redisUrl ? new Redis(redisUrl) : undefined;
/** Subscriber connections the tests opened, closed at the end. */
const subscribers: Redis[] = [];
function redisHealth(connection: Redis, local: ChannelHealth = new MemoryChannelHealth()) {
  const subscriber = new Redis(redisUrl!);
  subscribers.push(subscriber);
  return new RedisChannelHealth(connection, subscriber, local, prefix);
}
async function until(check: () => Promise<boolean>, ms = 2000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await sleep(10);
  }
  return check();
}
const prefix = `sy-test:${Date.now()}:${Math.random().toString(36).slice(2)}:freeze:`;

afterAll(async () => {
  if (redis) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
  for (const s of subscribers) s.disconnect();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Both implementations run on the real clock here, so they are held to the same contract.
const implementations: { name: string; make: () => ChannelHealth; skip: boolean }[] = [
  { name: 'memory', make: () => new MemoryChannelHealth(), skip: false },
  { name: 'redis', make: () => redisHealth(redis!), skip: !redis },
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
  it('lets one node see a freeze set by another, with a TTL on the key, and reads its own memory per call', async () => {
    const other = new Redis(redisUrl!);
    const a = redisHealth(redis!);
    const bMemory = new MemoryChannelHealth();
    const b = redisHealth(other, bMemory);
    await sleep(100); // both subscribed
    await a.freeze(42, 'gpt-4o', 10);
    await a.freeze(43, 'model:with:colons', 10);
    expect(await until(() => b.isFrozen(42, 'gpt-4o', Date.now()))).toBe(true);
    // It arrived in b's memory: the selector's reads need no round trip.
    expect(await bMemory.isFrozen(42, 'gpt-4o', Date.now())).toBe(true);
    expect(await until(() => bMemory.isFrozen(43, 'model:with:colons', Date.now()))).toBe(true);
    expect(await b.isFrozen(42, 'o3', Date.now())).toBe(false);
    const ttl = await other.pttl(`${prefix}42:gpt-4o`);
    expect(ttl).toBeGreaterThan(9_000);
    expect(ttl).toBeLessThanOrEqual(10_000);
    await a.close();
    await b.close();
    await other.quit();
  });

  it('gives a node that starts later the freezes still running, with what is left of them', async () => {
    const a = redisHealth(redis!);
    await a.freeze(50, 'late', 0.6);
    await a.freeze(51, 'late', 30);
    await sleep(300);
    const lateMemory = new MemoryChannelHealth();
    const late = redisHealth(redis!, lateMemory);
    await late.load();
    const frozen = await late.frozenAmong([50, 51, 52], 'late', Date.now());
    expect([...frozen.keys()].sort()).toEqual([50, 51]);
    // 50's key had about 300 ms left: it ends long before 51's.
    expect(frozen.get(50)!).toBeLessThan(Date.now() + 600);
    await sleep(400);
    expect(await late.isFrozen(50, 'late', Date.now())).toBe(false);
    expect(await late.isFrozen(51, 'late', Date.now())).toBe(true);
    await a.close();
    await late.close();
  });
});

describe('redis channel health without a reachable server', () => {
  it('keeps the freeze on this node and reports when Redis is unreachable', async () => {
    const broken = () =>
      new Redis('redis://127.0.0.1:1', {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        retryStrategy: () => null,
      });
    const connection = broken();
    const subscriber = broken();
    const errors: unknown[] = [];
    const h = new RedisChannelHealth(connection, subscriber, new MemoryChannelHealth(), prefix, (e) =>
      errors.push(e),
    );
    await h.freeze(1, 'm', 5);
    expect(await h.isFrozen(1, 'm', Date.now())).toBe(true);
    expect([...(await h.frozenAmong([1, 2], 'm', Date.now())).keys()]).toEqual([1]);
    // The subscription, the first load and the freeze's write each failed and said so.
    expect(errors).toHaveLength(3);
    await h.close();
    connection.disconnect();
    subscriber.disconnect();
  });
});
