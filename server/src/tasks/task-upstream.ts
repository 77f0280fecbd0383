import type { Dispatcher } from 'undici';
import type { ChannelAccess } from '../relay/channels/channel-transports.js';
import { describeTransportFailure } from '../relay/transport/transport.js';
import type { Services } from '../services.js';

// The task relays' calls to their upstreams (submit, fetch, image): small JSON exchanges, through
// the outbound agent so a channel's proxy, its private CA and the address policy apply.

/** A submit or fetch answer larger than this is refused: these are small JSON documents. */
const MAX_JSON_BYTES = 4 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 60_000;

export interface TaskUpstreamCall {
  method: 'GET' | 'POST';
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs?: number;
}

export interface TaskUpstreamReply {
  status: number;
  /** The parsed body; undefined when it was not JSON. */
  json: unknown;
  text: string;
}

/** The upstream could not be reached or answered something unreadable. */
export class TaskUpstreamError extends Error {
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'TaskUpstreamError';
  }
}

export function dispatcherFor(s: Services, channel: ChannelAccess): Dispatcher {
  return s.relay.upstream.for(channel.connection);
}

/** `base` + `path`, with exactly one slash between them. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export async function callTaskUpstream(
  s: Services,
  channel: ChannelAccess,
  call: TaskUpstreamCall,
): Promise<TaskUpstreamReply> {
  let url: URL;
  try {
    url = new URL(call.url);
  } catch {
    throw new TaskUpstreamError(`the channel's base URL is not a URL: ${call.url}`);
  }
  const timeout = call.timeoutMs ?? channel.connection?.timeouts?.firstByteMs ?? DEFAULT_TIMEOUT_MS;
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  try {
    const res = await dispatcherFor(s, channel).request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: call.method,
      headers: {
        accept: 'application/json',
        'accept-encoding': 'identity',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...call.headers,
      },
      ...(body !== undefined ? { body } : {}),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_JSON_BYTES) {
        res.body.destroy();
        throw new TaskUpstreamError(`the upstream's answer is larger than ${MAX_JSON_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, json, text };
  } catch (err) {
    if (err instanceof TaskUpstreamError) throw err;
    const what = describeTransportFailure(err);
    throw new TaskUpstreamError(what.message, what.timedOut);
  }
}

/** A short description of an answer that was not the expected one, for logs and fail reasons. */
export function describeReply(reply: TaskUpstreamReply): string {
  const text = reply.text.length > 300 ? `${reply.text.slice(0, 300)}...` : reply.text;
  return `upstream answered ${reply.status}: ${text}`;
}
