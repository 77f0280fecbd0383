import { createHash } from 'node:crypto';
import { ErrorCode, UserStatus } from '@switchyard/domain';
import type { FastifyRequest } from 'fastify';
import type { UserRow } from '../db/tables.js';
import { ApiError } from '../http/api-error.js';
import type { Services } from '../services.js';

export const SESSION_COOKIE = 'sy_session';

export interface Caller {
  user: UserRow;
  via: 'session' | 'access_token';
  sessionId?: string;
}

/** Access tokens are stored as a plain SHA-256: they are 128-bit random, so no stretching is needed. */
export function hashAccessToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Who is calling: a session cookie, else `Authorization: <access token>` (a "Bearer " prefix is
 * optional). The user row is read on every request, so bans and role changes apply
 * at once. Returns null when no credential was sent; throws when one was sent but is not valid.
 */
export async function authenticate(s: Services, req: FastifyRequest): Promise<Caller | null> {
  const cookie = req.cookies[SESSION_COOKIE];
  if (cookie) {
    const unsigned = req.unsignCookie(cookie);
    const sessionId = unsigned.valid ? unsigned.value : null;
    const session = sessionId ? await s.sessions.get(sessionId) : undefined;
    if (sessionId && session) {
      const user = await s.repos.users.byId(session.userId);
      if (!user) {
        await s.sessions.destroy(sessionId);
      } else if (user.status !== UserStatus.Enabled) {
        await s.sessions.destroyAllForUser(user.id);
        throw ApiError.unauthorized('This account has been disabled', ErrorCode.userDisabled);
      } else {
        return { user, via: 'session', sessionId };
      }
    }
    // A stale or forged cookie is treated like no cookie; an access token may still follow.
  }
  const header = req.headers.authorization;
  if (header) {
    const token = header.replace(/^Bearer\s+/i, '').trim();
    if (token && !token.startsWith('sk-')) {
      const user = await s.repos.users.byAccessTokenHash(hashAccessToken(token));
      if (!user) throw ApiError.unauthorized('Invalid access token', ErrorCode.invalidAccessToken);
      if (user.status !== UserStatus.Enabled) {
        throw ApiError.unauthorized('This account has been disabled', ErrorCode.userDisabled);
      }
      return { user, via: 'access_token' };
    }
  }
  return null;
}
