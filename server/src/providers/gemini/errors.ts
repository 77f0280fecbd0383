import {
  parseUpstreamError,
  truncateMessage,
  type UpstreamError,
  type UpstreamErrorFields,
} from '../openai/errors.js';
import { asArray, asNumber, asString, isRecord, parseJson } from '../translate/json-reading.js';
import type { GeminiErrorBody } from './content-types.js';

// Google APIs answer failures with `{"error":{"code":400,"message":"...","status":"INVALID_ARGUMENT",
// "details":[...]}}`; an `ErrorInfo` detail may name the precise reason (`API_KEY_INVALID`). A
// streamGenerateContent that fails mid-way sends the same object as a data event. The status goes
// into `type` (the failure class) and the ErrorInfo reason, when given, into `code`.

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

function reasonOf(details: unknown): string | null {
  for (const d of asArray(details)) {
    if (isRecord(d) && d['@type'] === ERROR_INFO) {
      const reason = asString(d.reason);
      if (reason) return reason;
    }
  }
  return null;
}

/** The error fields of a Google error body (or a one-element array of it), or null. */
export function geminiErrorFromObject(body: unknown): UpstreamErrorFields | null {
  if (Array.isArray(body)) return body.length > 0 ? geminiErrorFromObject(body[0]) : null;
  if (!isRecord(body) || !isRecord(body.error)) return null;
  const e = body.error;
  const message = asString(e.message);
  const status = asString(e.status);
  const code = asNumber(e.code);
  if (message === undefined && status === undefined && code === undefined) return null;
  return {
    message: truncateMessage(message ?? status ?? 'upstream error'),
    type: status ?? 'upstream_error',
    code: reasonOf(e.details) ?? status ?? (code !== undefined ? String(code) : null),
    param: null,
  };
}

/** Reads a non-2xx reply of a Gemini upstream; other shapes go to the generic parser. */
export function parseGeminiError(status: number, body: Buffer | string, contentType?: string): UpstreamError {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const fields = geminiErrorFromObject(parseJson(text.trim()));
  if (fields) return { status, ...fields };
  return parseUpstreamError(status, body, contentType);
}

const STATUS_BY_HTTP: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const GOOGLE_STATUSES: ReadonlySet<string> = new Set([
  ...Object.values(STATUS_BY_HTTP),
  'FAILED_PRECONDITION',
  'OUT_OF_RANGE',
  'ALREADY_EXISTS',
  'DATA_LOSS',
  'UNKNOWN',
]);

/** The Google RPC status name a client expects for an HTTP status. */
export function geminiStatusName(status: number): string {
  return STATUS_BY_HTTP[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

/** An error in Google's shape for a client of the Gemini API, whatever protocol the upstream spoke. */
export function geminiErrorBody(error: { status: number; message: string; type?: string }): GeminiErrorBody {
  const status = error.type && GOOGLE_STATUSES.has(error.type) ? error.type : geminiStatusName(error.status);
  return { error: { code: error.status, message: error.message, status } };
}
