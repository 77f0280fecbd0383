import type { FastifyRequest } from 'fastify';

/** Query parameters that carry credentials (Gemini clients send their API key as `?key=`). */
const SECRET_PARAMS = /([?&](?:key|api[-_]?key)=)[^&#]*/gi;

/** The URL as it may appear in a log line: credential parameters masked. */
export function maskSecretParams(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[Redacted]');
}

/** Fastify's request log fields, with the URL's credential parameters masked. */
export function requestLogFields(req: FastifyRequest) {
  return {
    method: req.method,
    url: maskSecretParams(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
