import { anthropicErrorBody } from '../providers/anthropic/errors.js';
import { geminiErrorBody } from '../providers/gemini/errors.js';
import { namedEvent } from '../providers/translate/sse-framing.js';
import type { RelayError } from './relay-error.js';

/** The API shape a client called the gateway in; errors answer in the same shape. */
export type InboundDialect = 'openai' | 'anthropic' | 'gemini' | 'responses';

/**
 * A gateway error in the body shape the client's SDK reads: OpenAI's `{error:{message,type,param,
 * code}}` (chat and Responses), Anthropic's `{type:"error",error:{type,message}}`, Google's
 * `{error:{code,message,status}}`.
 */
export function errorBodyFor(dialect: InboundDialect, err: RelayError, requestId: string): unknown {
  switch (dialect) {
    case 'anthropic':
      // Anthropic's error types follow the status one to one; SDKs pick their error class by both.
      return { ...anthropicErrorBody({ status: err.status, message: err.message }), request_id: requestId };
    case 'gemini':
      return geminiErrorBody({ status: err.status, message: `${err.message} (request id: ${requestId})` });
    default:
      return err.body(requestId);
  }
}

const BROKEN = 'The upstream stream ended unexpectedly';

/** What ends a passthrough stream that the upstream broke off, in the client's framing. */
export function brokenStreamEvent(dialect: InboundDialect): Buffer {
  switch (dialect) {
    case 'anthropic':
      return Buffer.from(namedEvent('error', anthropicErrorBody({ status: 502, message: BROKEN })));
    case 'gemini':
      return Buffer.from(
        `data: ${JSON.stringify(geminiErrorBody({ status: 502, message: BROKEN }))}\r\n\r\n`,
      );
    case 'responses':
      return Buffer.from(
        namedEvent('error', { type: 'error', code: 'upstream_stream_broken', message: BROKEN, param: null }),
      );
    default:
      return Buffer.from(
        `data: ${JSON.stringify({ error: { message: BROKEN, type: 'upstream_error', code: 'upstream_stream_broken', param: null } })}\n\ndata: [DONE]\n\n`,
      );
  }
}
