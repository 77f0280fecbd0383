import { ErrorCode } from '@switchyard/domain';
import type { RedisBreaker } from '../cache/redis-breaker.js';
import { ApiError } from '../http/api-error.js';
import type { SessionInfo, SessionMeta, SessionStore } from './session-store.js';

/**
 * Sessions in Redis, with the database behind them while Redis is away: sign-ins then make their
 * sessions in the database, and a cookie is looked up there too. A cookie found in neither while
 * Redis is away may be a Redis session: that answers a clear 503, not a sign-out or a 500.
 */
export class FallbackSessionStore implements SessionStore {
  constructor(
    private readonly redis: SessionStore,
    private readonly db: SessionStore,
    private readonly breaker: RedisBreaker,
  ) {}

  create(userId: number, meta: SessionMeta): Promise<string> {
    return this.breaker.guarded(
      () => this.redis.create(userId, meta),
      () => this.db.create(userId, meta),
    );
  }

  async get(sessionId: string): Promise<SessionInfo | undefined> {
    let redisAnswered = true;
    const fromRedis = await this.breaker.guarded(
      () => this.redis.get(sessionId),
      () => {
        redisAnswered = false;
        return undefined;
      },
    );
    if (fromRedis) return fromRedis;
    // Sessions made while Redis was away live in the database.
    const fromDb = await this.db.get(sessionId);
    if (fromDb || redisAnswered) return fromDb;
    throw new ApiError(
      503,
      ErrorCode.unavailable,
      'Sessions are unavailable for a moment; please try again shortly',
    );
  }

  async destroy(sessionId: string): Promise<void> {
    await this.db.destroy(sessionId);
    await this.breaker.guarded(
      () => this.redis.destroy(sessionId),
      () => {},
    );
  }

  async destroyAllForUser(userId: number): Promise<void> {
    await this.db.destroyAllForUser(userId);
    await this.breaker.guarded(
      () => this.redis.destroyAllForUser(userId),
      () => {},
    );
  }

  async close(): Promise<void> {
    await this.db.close();
    await this.redis.close();
  }
}
