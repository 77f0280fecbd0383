import { randomBytes } from 'node:crypto';

/**
 * Request ids: a random per-process prefix and a counter, 24 hex characters like before. Unique
 * across nodes (64 random bits per process) without paying for random bytes on every request.
 */
export function requestIdSource(): () => string {
  const prefix = randomBytes(6).toString('hex');
  let counter = 0;
  return () => {
    counter = (counter + 1) % 0x1_0000_0000_0000;
    return prefix + counter.toString(16).padStart(12, '0');
  };
}
