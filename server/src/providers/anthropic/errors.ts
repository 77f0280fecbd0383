import {
  parseUpstreamError,
  truncateMessage,
  type UpstreamError,
  type UpstreamErrorFields,
} from '../openai/errors.js';
import { asString, isRecord, parseJson } from '../translate/json-reading.js';
import type { AnthropicErrorBody } from './message-types.js';

// Anthropic answers failures with `{"type":"error","error":{"type":"...","message":"..."}}`, in a
// non-2xx reply and as the `error` event of a stream. The type names the failure class
// (`authentication_error`, `rate_limit_error`, `overloaded_error`, ...); there is no separate code.

/** The error fields of an Anthropic error body or stream event, or null when it is not one. */
export function anthropicErrorFromObject(body: unknown): UpstreamErrorFields | null {
  if (!isRecord(body)) return null;
  const e = body.error;
  if (!isRecord(e) || (body.type !== undefined && body.type !== 'error')) return null;
  const message = asString(e.message);
  const type = asString(e.type);
  if (message === undefined && type === undefined) return null;
  return {
    message: truncateMessage(message ?? type ?? 'upstream error'),
    type: type ?? 'api_error',
    code: null,
    param: null,
  };
}

/**
 * Reads a non-2xx reply of an Anthropic upstream. Bodies in another shape (a proxy's HTML page, an
 * OpenAI-style body from a compatible relay) are read by the generic parser.
 */
export function parseAnthropicError(
  status: number,
  body: Buffer | string,
  contentType?: string,
): UpstreamError {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const fields = anthropicErrorFromObject(parseJson(text.trim()));
  if (fields) return { status, ...fields };
  return parseUpstreamError(status, body, contentType);
}

const TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const ANTHROPIC_TYPES: ReadonlySet<string> = new Set([...Object.values(TYPE_BY_STATUS)]);

/** The Anthropic error type a client expects for an HTTP status. */
export function anthropicErrorType(status: number): string {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/**
 * An error in Anthropic's shape for a client of the Anthropic API, whatever protocol the upstream
 * spoke: a type that already is an Anthropic one is kept, any other is derived from the status.
 */
export function anthropicErrorBody(error: {
  status: number;
  message: string;
  type?: string;
}): AnthropicErrorBody {
  const type = error.type && ANTHROPIC_TYPES.has(error.type) ? error.type : anthropicErrorType(error.status);
  return { type: 'error', error: { type, message: error.message } };
}
