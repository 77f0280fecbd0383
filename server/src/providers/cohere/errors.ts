import { parseUpstreamError, truncateMessage, type UpstreamError } from '../openai/errors.js';
import { asString, isRecord, parseJson } from '../translate/json-reading.js';

// Cohere answers failures with `{"id":"...","message":"..."}` (v2) or `{"message":"..."}` (v1);
// the class of failure is only in the HTTP status.

const TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'payment_required',
  404: 'not_found_error',
  422: 'unprocessable_entity',
  429: 'rate_limit_error',
  498: 'invalid_token',
  499: 'client_closed_request',
  500: 'server_error',
  503: 'service_unavailable',
};

export function parseCohereError(status: number, body: Buffer | string, contentType?: string): UpstreamError {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const parsed = parseJson(text.trim());
  const message = isRecord(parsed) && !('error' in parsed) ? asString(parsed.message) : undefined;
  if (message) {
    return {
      status,
      message: truncateMessage(message),
      type: TYPE_BY_STATUS[status] ?? 'upstream_error',
      code: null,
      param: null,
    };
  }
  return parseUpstreamError(status, body, contentType);
}
