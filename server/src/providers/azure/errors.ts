import { parseUpstreamError, truncateMessage, type UpstreamError } from '../openai/errors.js';
import { asNumber, asRecord, asString, isRecord, parseJson } from '../translate/json-reading.js';

// Azure OpenAI errors come in OpenAI's `{"error":{...}}` shape, with Azure's codes
// (`DeploymentNotFound`, `content_filter`, a status as a string code "429"), except for replies of
// the gateway in front of the resource (a wrong key, a wrong endpoint), which answer
// `{"statusCode":401,"message":"..."}`. A content-filter refusal names the rule in
// `innererror.code` (`ResponsibleAIPolicyViolation`): that is the more useful code for a log.

export function parseAzureError(status: number, body: Buffer | string, contentType?: string): UpstreamError {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const parsed = parseJson(text.trim());
  if (isRecord(parsed) && !('error' in parsed) && asNumber(parsed.statusCode) !== undefined) {
    const message = asString(parsed.message);
    if (message)
      return {
        status,
        message: truncateMessage(message),
        type: 'azure_error',
        code: String(parsed.statusCode),
        param: null,
      };
  }
  const generic = parseUpstreamError(status, body, contentType);
  const error = asRecord(asRecord(parsed)?.error);
  const inner = asString(asRecord(error?.innererror)?.code);
  if (error && asString(error.code) === 'content_filter') {
    return { ...generic, type: 'content_filter', code: inner ?? 'content_filter' };
  }
  return generic;
}
