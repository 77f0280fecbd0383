import type { Redis } from 'ioredis';
import type { KvStore } from './kv-store.js';

export class RedisKvStore implements KvStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'sy:kv:',
  ) {}

  async get(key: string) {
    return (await this.redis.get(this.prefix + key)) ?? undefined;
  }
  async set(key: string, value: string, ttlSeconds: number) {
    await this.redis.set(this.prefix + key, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
  }
  async delete(key: string) {
    await this.redis.del(this.prefix + key);
  }
  async take(key: string) {
    return (await this.redis.getdel(this.prefix + key)) ?? undefined;
  }
  async close() {}
}
