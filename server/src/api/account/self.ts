import { ErrorCode, type UpdateSelfInput, updateSelfInput } from '@switchyard/domain';
import { hashAccessToken } from '../../auth/authenticate.js';
import { newAccessToken } from '../../auth/random-codes.js';
import { setSessionCookie } from '../../auth/session-cookie.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { UserPatch } from '../../db/tables.js';
import { ApiError } from '../../http/api-error.js';
import type { RouteContext } from '../../http/route.js';
import { presentSelf } from '../users/user-presenter.js';

type Ctx<B = unknown> = RouteContext<B, unknown, unknown>;

export async function getSelf({ caller }: Ctx) {
  return presentSelf(caller!.user);
}

export async function updateSelf({ s, caller, body, ip, req, reply }: Ctx<UpdateSelfInput>) {
  const user = caller!.user;
  const patch: UserPatch = {};
  if (body.display_name !== undefined) patch.display_name = body.display_name;
  if (body.username !== undefined && body.username !== user.username) {
    if (await s.repos.users.usernameTaken(body.username)) {
      throw ApiError.conflict('This username is already taken', ErrorCode.usernameTaken);
    }
    patch.username = body.username;
  }
  const changingPassword = body.password !== undefined && body.password !== '';
  if (changingPassword) patch.password_hash = await s.passwords.hash(body.password!);
  if (Object.keys(patch).length > 0) {
    try {
      await s.repos.users.update(user.id, patch);
    } catch (err) {
      if (isUniqueViolation(err))
        throw ApiError.conflict('This username is already taken', ErrorCode.usernameTaken);
      throw err;
    }
  }
  if (changingPassword) {
    // Other devices signed in with the old password are signed out; this one stays.
    await s.sessions.destroyAllForUser(user.id);
    if (caller!.sessionId) {
      const id = await s.sessions.create(user.id, { ip, userAgent: String(req.headers['user-agent'] ?? '') });
      setSessionCookie(s.config, req, reply, id);
    }
  }
  return presentSelf((await s.repos.users.byId(user.id))!);
}

export { updateSelfInput };

/** Issues a new management access token (the old one stops working) and shows it once. */
export async function generateAccessToken({ s, caller }: Ctx) {
  const token = newAccessToken();
  await s.repos.users.update(caller!.user.id, { access_token_hash: hashAccessToken(token) });
  return token;
}
