import {
  parseUpstreamError,
  truncateMessage,
  type UpstreamError,
  type UpstreamErrorFields,
} from '../openai/errors.js';
import { asString, isRecord, parseJson } from '../translate/json-reading.js';

// Bedrock answers failures with `{"message":"..."}` (sometimes `Message`) and names the exception
// in the `x-amzn-errortype` header (`ThrottlingException:http://internal.amazon.com/coral/...`).
// Inside a stream the same exceptions arrive as event-stream frames with `:message-type:
// exception` and `:exception-type` (camelCase there: `throttlingException`).

/** HTTP status of each Bedrock runtime exception (the status a non-stream call would answer). */
const STATUS_BY_EXCEPTION: Readonly<Record<string, number>> = {
  validationexception: 400,
  accessdeniedexception: 403,
  resourcenotfoundexception: 404,
  modeltimeoutexception: 408,
  modelerrorexception: 424,
  modelstreamerrorexception: 424,
  modelnotreadyexception: 429,
  throttlingexception: 429,
  servicequotaexceededexception: 429,
  internalserverexception: 500,
  serviceunavailableexception: 503,
};

/** The exception's name with its namespace and URL suffix removed (`ThrottlingException`). */
export function bedrockExceptionName(raw: string | undefined): string | null {
  if (!raw) return null;
  const name = raw.split(':')[0]?.split('#').pop()?.trim();
  return name ? name : null;
}

/** The status to report for an exception named in a stream frame; 500 for one not in the list. */
export function bedrockExceptionStatus(name: string): number {
  return STATUS_BY_EXCEPTION[name.toLowerCase()] ?? 500;
}

/** The error fields of an exception frame's payload (or a reply body) with the exception's name. */
export function bedrockErrorFields(name: string | null, body: unknown): UpstreamErrorFields | null {
  const message = isRecord(body) ? (asString(body.message) ?? asString(body.Message)) : undefined;
  if (message === undefined && name === null) return null;
  return {
    message: truncateMessage(message ?? name ?? 'Bedrock error'),
    type: name ?? 'upstream_error',
    code: name,
    param: null,
  };
}

/**
 * Reads a non-2xx reply of Bedrock. `errorType` is the `x-amzn-errortype` header. Replies that are
 * not Bedrock's (a proxy's HTML page) go to the generic parser.
 */
export function parseBedrockError(
  status: number,
  body: Buffer | string,
  errorType?: string,
  contentType?: string,
): UpstreamError {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const parsed = parseJson(text.trim());
  const name =
    bedrockExceptionName(errorType) ??
    (isRecord(parsed) ? bedrockExceptionName(asString(parsed.__type)) : null);
  if (
    isRecord(parsed) &&
    (asString(parsed.message) !== undefined || asString(parsed.Message) !== undefined)
  ) {
    const fields = bedrockErrorFields(name, parsed);
    if (fields) return { status, ...fields };
  }
  const generic = parseUpstreamError(status, body, contentType);
  return name ? { ...generic, type: name, code: name } : generic;
}
