import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { ErrorCode } from '@switchyard/domain';
import { z } from 'zod';
import {
  authenticationOptions,
  finishAuthentication,
  finishRegistration,
  passkeysEnabled,
  registrationOptions,
} from '../../auth/passkeys.js';
import type { PasskeyRow } from '../../db/tables.js';
import { ApiError } from '../../http/api-error.js';
import type { RouteContext } from '../../http/route.js';
import { hasOtherWayIn, startSession } from '../../oauth/account-link.js';

// The browser's WebAuthn JSON is checked by @simplewebauthn/server; here only its outline.
const credentialJson = z.looseObject({
  id: z.string().min(1).max(1024),
  rawId: z.string().min(1).max(1024),
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: z.string().max(16_384) }),
});

export const passkeyRegistrationBody = z.object({
  response: credentialJson,
  alias: z.string().trim().max(64).optional(),
});
export const passkeyLoginBody = credentialJson;
export const passkeyRenameBody = z.object({ alias: z.string().trim().min(1).max(64) });

function present(p: PasskeyRow) {
  return { id: p.id, alias: p.alias, created_time: p.created_time, last_used_time: p.last_used_time };
}

export async function beginPasskeyRegistration({ s, caller }: RouteContext<unknown, unknown, unknown>) {
  return registrationOptions(s, caller!.user);
}

export async function finishPasskeyRegistration({
  s,
  caller,
  body,
}: RouteContext<z.infer<typeof passkeyRegistrationBody>, unknown, unknown>) {
  const row = await finishRegistration(
    s,
    caller!.user,
    body.response as unknown as RegistrationResponseJSON,
    body.alias ?? '',
  );
  return present(row);
}

export async function beginPasskeyLogin({ s }: RouteContext<unknown, unknown, unknown>) {
  return authenticationOptions(s);
}

export async function finishPasskeyLogin(
  ctx: RouteContext<z.infer<typeof passkeyLoginBody>, unknown, unknown>,
) {
  const user = await finishAuthentication(ctx.s, ctx.body as unknown as AuthenticationResponseJSON);
  return startSession(ctx, user);
}

export async function listPasskeys({ s, caller }: RouteContext<unknown, unknown, unknown>) {
  return (await s.repos.passkeys.forUser(caller!.user.id)).map(present);
}

export async function renamePasskey({
  s,
  caller,
  params,
  body,
}: RouteContext<z.infer<typeof passkeyRenameBody>, unknown, { id: number }>) {
  passkeysEnabled(s);
  if (!(await s.repos.passkeys.rename(params.id, caller!.user.id, body.alias)))
    throw ApiError.notFound('No such passkey');
  return null;
}

/** Deletes one of the caller's passkeys, unless it is the account's last way in. */
export async function deletePasskey({ s, caller, params }: RouteContext<unknown, unknown, { id: number }>) {
  const user = caller!.user;
  const mine = await s.repos.passkeys.forUser(user.id);
  if (!mine.some((p) => p.id === params.id)) throw ApiError.notFound('No such passkey');
  if (mine.length === 1 && !hasOtherWayIn(user)) {
    throw new ApiError(
      400,
      ErrorCode.lastSignInMethod,
      'This is your only way to sign in: set a password or bind another account first',
    );
  }
  await s.repos.passkeys.delete(params.id, user.id);
  return null;
}
