import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { SESSION_COOKIE } from './authenticate.js';

export function setSessionCookie(
  config: Config,
  req: FastifyRequest,
  reply: FastifyReply,
  sessionId: string,
) {
  const secure = config.secureCookies === 'auto' ? req.protocol === 'https' : config.secureCookies === 'true';
  reply.setCookie(SESSION_COOKIE, sessionId, {
    signed: true,
    httpOnly: true,
    // Lax, not Strict: OAuth providers redirect back cross-site and the callback must see the session to bind.
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: config.sessionTtlSeconds,
  });
}

export function clearSessionCookie(reply: FastifyReply) {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}
