import { ErrorCode } from '@switchyard/domain';
import type { FastifyError, FastifyInstance } from 'fastify';
import { isConnectionLoss } from '../db/connection-loss.js';
import { OptionValidationError } from '../options/option-store.js';
import { ApiError } from './api-error.js';

interface Envelope {
  success: false;
  message: string;
  code: string;
  errors?: unknown;
}

/** Maps every failure to an honest status and the envelope; internals never reach the client. */
export function toEnvelope(err: unknown): { status: number; body: Envelope } {
  if (err instanceof ApiError) {
    return {
      status: err.status,
      body: {
        success: false,
        message: err.message,
        code: err.code,
        ...(err.details ? { errors: err.details } : {}),
      },
    };
  }
  if (err instanceof OptionValidationError) {
    return {
      status: err.kind === 'precondition' ? 409 : 400,
      body: {
        success: false,
        message: err.message,
        code: err.kind === 'precondition' ? ErrorCode.optionPrecondition : ErrorCode.optionInvalid,
        errors: err.problems.map((p) => ({ path: p.key, message: p.message })),
      },
    };
  }
  const fe = err as FastifyError;
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        status: 400,
        body: { success: false, message: 'Request body is too large', code: ErrorCode.payloadTooLarge },
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 415,
        body: {
          success: false,
          message: 'Unsupported content type; send application/json',
          code: ErrorCode.unsupportedMediaType,
        },
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        status: 400,
        body: { success: false, message: 'Request body is empty', code: ErrorCode.invalidJson },
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return {
        status: 400,
        body: { success: false, message: 'Invalid Content-Length', code: ErrorCode.invalidRequest },
      };
  }
  if (fe.statusCode === 400 && (fe.name === 'SyntaxError' || /JSON/i.test(fe.message))) {
    return {
      status: 400,
      body: { success: false, message: `Malformed JSON: ${fe.message}`, code: ErrorCode.invalidJson },
    };
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return {
      status: fe.statusCode,
      body: { success: false, message: fe.message, code: ErrorCode.invalidRequest },
    };
  }
  if (isConnectionLoss(err)) {
    // The database went away under the request (a restart, a failover): nothing of it was kept, and
    // the same request may succeed on a new connection.
    return {
      status: 503,
      body: {
        success: false,
        message: 'The database connection was lost; please retry',
        code: ErrorCode.unavailable,
      },
    };
  }
  return {
    status: 500,
    body: { success: false, message: 'Internal server error', code: ErrorCode.internal },
  };
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => {
    const { status, body } = toEnvelope(err);
    if (status >= 500) req.log.error({ err }, 'request failed');
    else req.log.debug({ code: body.code, status }, body.message);
    return reply.status(status).send(body);
  });
}
