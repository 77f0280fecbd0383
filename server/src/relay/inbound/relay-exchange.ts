import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';

// What the relay reads of a client's request and writes to its reply. Fastify's request and reply
// are one such pair; the hot path (hot-relay.ts) makes its own, lighter one.

export interface RelayRequest {
  readonly headers: IncomingHttpHeaders;
  /** The body bytes, or a stream for a multipart upload. */
  readonly body: unknown;
  readonly ip: string;
  readonly log: FastifyBaseLogger;
  /** Parsed query string (Gemini keys may come as `?key=`). */
  readonly query?: unknown;
}

export interface RelayReply {
  readonly raw: ServerResponse;
  readonly request: { readonly id: string };
  /** From now on the relay writes `raw` itself. */
  hijack(): unknown;
  /** Headers set before the relay wrote anything (CORS, request id, retry-after). */
  getHeaders(): Record<string, number | string | string[] | undefined>;
  header(name: string, value: string): unknown;
}

/**
 * CORS of the relay: browser clients (web apps with their own API keys) call it from any origin,
 * so any origin may read its answers, but never with the browser's cookies.
 */
const RELAY_CORS: [string, string][] = [['access-control-allow-origin', '*']];

export function relayCorsHeaders(): [string, string][] {
  return RELAY_CORS;
}
