import type { RateDecision, RateLimiter } from '../../cache/rate-limiter.js';
import type { TokenBucket } from '../../cache/token-bucket.js';

/**
 * Per-group API rate: `api_rate` requests per minute; below 60 a fixed one-minute counter, from 60
 * up a token bucket refilling api_rate/60 per second with ten seconds of burst. Keyed by the
 * token's effective group and the user (one-hub keys the user's group, whatever the token chose).
 */
export async function checkGroupRate(
  limiter: RateLimiter,
  bucket: TokenBucket,
  group: string,
  apiRate: number,
  userId: number,
): Promise<RateDecision> {
  if (apiRate <= 0) return { allowed: true, retryAfterSeconds: 0 };
  const key = `group:${group}:${userId}`;
  if (apiRate < 60) return limiter.hit(key, apiRate, 60);
  const perSecond = apiRate / 60;
  return bucket.take(key, perSecond, Math.max(1, Math.ceil(perSecond * 10)));
}
