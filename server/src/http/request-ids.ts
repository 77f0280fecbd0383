import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

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

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * The id of a request: the client's `x-request-id` when it looks like one, else the next of
 * `next`. A client-supplied id is kept only when it looks like one, so logs cannot be forged with it.
 */
export function requestIdOf(headers: IncomingHttpHeaders, next: () => string): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : next();
}
