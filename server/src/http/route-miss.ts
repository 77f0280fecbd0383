import { ErrorCode } from '@switchyard/domain';
import type { FastifyReply } from 'fastify';

/** Which API a path belongs to, for the shape of an answer no route gave. */
export type ApiFamily = 'api' | 'relay' | 'other';

export function apiFamilyOf(path: string): ApiFamily {
  if (path === '/api' || path.startsWith('/api/')) return 'api';
  if (path === '/v1' || path.startsWith('/v1/')) return 'relay';
  return 'other';
}

/**
 * Answers a request no route took (an unknown path, or a URL the router cannot decode) in the
 * shape its caller reads: the envelope under /api, an OpenAI error under /v1, plain text elsewhere.
 */
export function answerRouteMiss(
  reply: FastifyReply,
  family: ApiFamily,
  status: number,
  message: string,
): FastifyReply {
  if (family === 'api') {
    return reply.status(status).send({
      success: false,
      message,
      code: status === 404 ? ErrorCode.notFound : ErrorCode.invalidRequest,
    });
  }
  if (family === 'relay') {
    return reply.status(status).send({
      error: { message, type: 'invalid_request_error', param: null, code: null },
    });
  }
  return reply.status(status).type('text/plain').send(message);
}
