import type { Readable } from 'node:stream';

// The request every outbound builder returns, whatever the wire protocol, and the error that says a
// channel's own settings make it unusable (the channel's fault, not the client's).

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  /** `scheme://host[:port]`, the undici pool key. */
  origin: string;
  /** Path and query. */
  path: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer | Readable | undefined;
  /** The body differs from the client's bytes. */
  rewritten: boolean;
  /** The request streams (`stream: true`). */
  stream: boolean;
  /** The client itself asked for `stream_options.include_usage`. */
  clientWantsUsage: boolean;
  /** We turned `include_usage` on: the usage-only chunk must not reach the client. */
  dropUsageChunk: boolean;
}

/** A channel whose key, address or settings cannot make a request: the channel's fault. */
export class ChannelConfigError extends Error {}

/**
 * The request as one object literal (a spread would add its keys one runtime call at a time). The
 * usage flags stay off for every protocol but OpenAI's, whose streams report usage only when asked.
 */
export function upstreamRequest(
  method: UpstreamRequest['method'],
  origin: string,
  path: string,
  headers: Record<string, string>,
  body: UpstreamRequest['body'],
  rewritten: boolean,
  stream: boolean,
  clientWantsUsage = false,
  dropUsageChunk = false,
): UpstreamRequest {
  return {
    method,
    origin,
    path,
    url: `${origin}${path}`,
    headers,
    body,
    rewritten,
    stream,
    clientWantsUsage,
    dropUsageChunk,
  };
}
