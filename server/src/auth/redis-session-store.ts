import type { Redis } from 'ioredis';
import { hashSessionId, newSessionId, type SessionMeta, type SessionStore } from './session-store.js';

/** Sessions in Redis for multi-node deployments; a per-user set lets a ban end every session at once. */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly ttlSeconds: number,
    private readonly nowSeconds: () => number,
    private readonly prefix = 'sy:sess:',
  ) {}

  async create(userId: number, meta: SessionMeta) {
    const id = newSessionId();
    const hash = hashSessionId(id);
    const now = this.nowSeconds();
    const value = JSON.stringify({
      userId,
      createdAt: now,
      ip: meta.ip,
      userAgent: meta.userAgent.slice(0, 190),
    });
    await this.redis
      .multi()
      .set(this.prefix + hash, value, 'EX', this.ttlSeconds)
      .sadd(`${this.prefix}user:${userId}`, hash)
      .expire(`${this.prefix}user:${userId}`, this.ttlSeconds)
      .exec();
    return id;
  }

  async get(sessionId: string) {
    const key = this.prefix + hashSessionId(sessionId);
    const raw = await this.redis.get(key);
    if (!raw) return undefined;
    const ttl = await this.redis.ttl(key);
    // Sliding expiry: renew when less than the TTL minus an hour remains.
    if (ttl > 0 && ttl < this.ttlSeconds - 3600) await this.redis.expire(key, this.ttlSeconds);
    const { userId } = JSON.parse(raw) as { userId: number };
    return { userId, expiresAt: this.nowSeconds() + Math.max(ttl, 0) };
  }

  async destroy(sessionId: string) {
    const hash = hashSessionId(sessionId);
    const raw = await this.redis.getdel(this.prefix + hash);
    if (raw) {
      const { userId } = JSON.parse(raw) as { userId: number };
      await this.redis.srem(`${this.prefix}user:${userId}`, hash);
    }
  }

  async destroyAllForUser(userId: number) {
    const setKey = `${this.prefix}user:${userId}`;
    const hashes = await this.redis.smembers(setKey);
    await this.redis.del(setKey, ...hashes.map((h) => this.prefix + h));
  }

  async close() {}
}
