import { anthropicErrorFromObject } from '../anthropic/errors.js';
import { geminiErrorFromObject } from '../gemini/errors.js';
import { parseUpstreamError, type UpstreamError } from '../openai/errors.js';
import { isRecord, parseJson } from '../translate/json-reading.js';

// Vertex answers in Google's error shape (`{"error":{"code","message","status"}}`) for both model
// families when the platform refuses a call (auth, quota, unknown model); a Claude model that
// refuses the request itself answers in Anthropic's shape. Streams report errors in the family's
// own event format, which the Gemini and Anthropic meters already read.

export function parseVertexError(status: number, body: Buffer | string, contentType?: string): UpstreamError {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const parsed = parseJson(text.trim());
  // Both shapes nest an `error` object; Anthropic's alone says `type: "error"` beside it.
  const fields =
    isRecord(parsed) && parsed.type === 'error'
      ? anthropicErrorFromObject(parsed)
      : geminiErrorFromObject(parsed);
  if (fields) return { status, ...fields };
  return parseUpstreamError(status, body, contentType);
}
