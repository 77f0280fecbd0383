import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  VerifiedAuthenticationResponse,
  VerifiedRegistrationResponse,
} from '@simplewebauthn/server';
import { ErrorCode, UserStatus } from '@switchyard/domain';
import type { PasskeyRow, UserRow } from '../db/tables.js';
import { ApiError } from '../http/api-error.js';
import type { Services } from '../services.js';

// Loaded on first use: a node whose users never touch passkeys keeps the package out of its memory.
const webauthn = () => import('@simplewebauthn/server');

const CHALLENGE_TTL_SECONDS = 5 * 60;
const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/** The relying party is the site at `ServerAddress`: its host name is the RP ID, its origin the expected origin. */
function relyingParty(s: Services): { rpID: string; origin: string; name: string } {
  const o = s.options.current;
  const url = new URL(o.ServerAddress);
  return { rpID: url.hostname, origin: url.origin, name: o.SystemName };
}

export function passkeysEnabled(s: Services): void {
  if (!s.options.current.PasskeyLoginEnabled) {
    throw new ApiError(400, ErrorCode.oauthDisabled, 'Passkeys are not turned on by the administrator');
  }
}

const refused = (why: string) =>
  new ApiError(400, ErrorCode.passkeyRefused, `The passkey was not accepted: ${why}`);

/** The challenge the browser signed, read from the response's client data (verified later). */
function signedChallenge(clientDataJSON: string): string {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    return typeof data.challenge === 'string' ? data.challenge : '';
  } catch {
    return '';
  }
}

/** Options for registering a new passkey for `user`; the challenge is kept five minutes. */
export async function registrationOptions(
  s: Services,
  user: UserRow,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  passkeysEnabled(s);
  const rp = relyingParty(s);
  const existing = await s.repos.passkeys.forUser(user.id);
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.rpID,
    userName: user.username,
    userDisplayName: user.display_name || user.username,
    userID: new TextEncoder().encode(`switchyard-user-${user.id}`),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id })),
    // Discoverable, so the login page can sign in without asking for a username first.
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await s.codes.set(`passkey-reg:${user.id}`, options.challenge, CHALLENGE_TTL_SECONDS);
  return options;
}

/** Verifies the browser's answer to `registrationOptions` (challenge used once) and stores the passkey. */
export async function finishRegistration(
  s: Services,
  user: UserRow,
  response: RegistrationResponseJSON,
  alias: string,
): Promise<PasskeyRow> {
  passkeysEnabled(s);
  const rp = relyingParty(s);
  const challenge = await s.codes.take(`passkey-reg:${user.id}`);
  if (!challenge) throw refused('the registration has expired; please start again');
  const { verifyRegistrationResponse } = await webauthn();
  let verified: VerifiedRegistrationResponse;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: false,
    });
  } catch (err) {
    throw refused(err instanceof Error ? err.message : String(err));
  }
  if (!verified.verified) throw refused('the registration could not be verified');
  const { credential } = verified.registrationInfo;
  if (await s.repos.passkeys.byCredentialId(credential.id))
    throw refused('this passkey is already registered');
  const now = s.clock.nowSeconds();
  const row = {
    user_id: user.id,
    credential_id: credential.id,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: (credential.transports ?? []).filter((t) => TRANSPORTS.has(t)).join(','),
    alias: alias.trim().slice(0, 64) || `Passkey ${new Date(now * 1000).toISOString().slice(0, 10)}`,
    created_time: now,
    last_used_time: 0,
  };
  const id = await s.repos.passkeys.insert(row);
  return { id, ...row };
}

/** Options for signing in with any passkey of this site; the challenge is kept five minutes, for one use. */
export async function authenticationOptions(s: Services): Promise<PublicKeyCredentialRequestOptionsJSON> {
  passkeysEnabled(s);
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(s).rpID,
    userVerification: 'preferred',
  });
  await s.codes.set(`passkey-login:${options.challenge}`, '1', CHALLENGE_TTL_SECONDS);
  return options;
}

/** The user a passkey assertion signs in, after its challenge, origin, signature and counter check out. */
export async function finishAuthentication(
  s: Services,
  response: AuthenticationResponseJSON,
): Promise<UserRow> {
  passkeysEnabled(s);
  const rp = relyingParty(s);
  const challenge = signedChallenge(response.response?.clientDataJSON ?? '');
  if (!challenge || !(await s.codes.take(`passkey-login:${challenge}`))) {
    throw refused('the sign-in has expired or was already used; please try again');
  }
  const passkey = await s.repos.passkeys.byCredentialId(response.id);
  if (!passkey) throw refused('this passkey is not registered here');
  const { verifyAuthenticationResponse } = await webauthn();
  let verified: VerifiedAuthenticationResponse;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: false,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
        counter: passkey.counter,
        transports: passkey.transports ? (passkey.transports.split(',') as AuthenticatorTransport[]) : [],
      },
    });
  } catch (err) {
    throw refused(err instanceof Error ? err.message : String(err));
  }
  if (!verified.verified) throw refused('the signature could not be verified');
  const user = await s.repos.users.byId(passkey.user_id);
  if (!user || user.status !== UserStatus.Enabled) {
    throw ApiError.forbidden('This account has been disabled', ErrorCode.userDisabled);
  }
  await s.repos.passkeys.used(passkey.id, verified.authenticationInfo.newCounter, s.clock.nowSeconds());
  return user;
}
