import type { Dispatcher } from 'undici';
import { parseUpstreamError, truncateMessage } from './errors.js';

// Small GET calls a management screen makes to an upstream (model lists, balances), as opposed to
// the relay's streaming forward path: bounded in time and size, and failing with a readable message.

export const UPSTREAM_CALL_TIMEOUT_MS = 20_000;
/** OpenRouter's model list is about 1 MB; ten times that is not a model list. */
export const UPSTREAM_CALL_MAX_BYTES = 10 * 1024 * 1024;

/** An upstream call that did not give the expected answer; `status` 0 when it was never answered. */
export class UpstreamCallError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface UpstreamGet {
  /** Absolute http(s) URL. */
  url: string;
  headers: Record<string, string>;
  timeoutMs?: number;
}

/** GETs a JSON document. Throws UpstreamCallError on a transport failure, a non-2xx status or a non-JSON body. */
export async function getUpstreamJson(dispatcher: Dispatcher, req: UpstreamGet): Promise<unknown> {
  const url = new URL(req.url);
  const timeout = req.timeoutMs ?? UPSTREAM_CALL_TIMEOUT_MS;
  let status: number;
  let body: Buffer;
  try {
    const res = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { accept: 'application/json', 'accept-encoding': 'identity', ...req.headers },
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    status = res.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const c = chunk as Buffer;
      size += c.length;
      if (size > UPSTREAM_CALL_MAX_BYTES) {
        res.body.destroy();
        throw new UpstreamCallError(
          status,
          `the upstream answer is larger than ${UPSTREAM_CALL_MAX_BYTES} bytes`,
        );
      }
      chunks.push(c);
    }
    body = Buffer.concat(chunks);
  } catch (err) {
    if (err instanceof UpstreamCallError) throw err;
    throw new UpstreamCallError(0, `cannot reach ${url.origin}: ${truncateMessage((err as Error).message)}`);
  }
  if (status < 200 || status >= 300) {
    const e = parseUpstreamError(status, body);
    throw new UpstreamCallError(status, `the upstream answered ${status}: ${e.message}`);
  }
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new UpstreamCallError(status, 'the upstream answer is not JSON');
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
