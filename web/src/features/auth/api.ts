import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import type { SessionUser } from '../../app/session-context';
import { apiGet, apiPost, request } from '../../lib/api-client';
import { readText, StorageKey } from '../../lib/storage';

// Signing in, signing up and the account links; every call carries the invite code the visitor
// arrived with (local storage `aff`), so whichever way an account is made, the inviter is credited.

/** A Turnstile token when the site asks for one; absent otherwise. */
type Turnstile = string | undefined;

export function signInWithPassword(values: { username: string; password: string }) {
  return apiPost<SessionUser>('/api/user/login', values);
}

export function signUp(
  values: { username: string; password: string; email?: string; verification_code?: string },
  turnstile: Turnstile,
) {
  return apiPost(
    '/api/user/register',
    {
      username: values.username,
      password: values.password,
      email: values.email || undefined,
      verification_code: values.verification_code || undefined,
      aff_code: readText(StorageKey.aff) || undefined,
    },
    { query: { turnstile: turnstile || undefined } },
  );
}

/** Mails a verification code (sign-up, binding an email). */
export function sendVerificationCode(email: string, turnstile: Turnstile) {
  return apiGet('/api/verification', { query: { email, turnstile: turnstile || undefined } });
}

export function sendResetMail(email: string, turnstile: Turnstile) {
  return apiGet('/api/reset_password', { query: { email, turnstile: turnstile || undefined } });
}

/** Answers the new password the server chose. */
export function resetPassword(email: string, token: string) {
  return apiPost<string>('/api/user/reset', { email, token });
}

/**
 * The provider's redirect back: signs in (the session user) or, for a signed-in user, binds the
 * account (envelope message `bind`, no data).
 */
export async function finishOAuth(
  provider: string,
  params: { code: string; state: string | null; iss: string | null },
): Promise<{ bound: boolean; user: SessionUser | undefined }> {
  const answer = await request<SessionUser>('GET', `/api/oauth/${provider}`, {
    query: { ...params, aff: readText(StorageKey.aff) },
  });
  return { bound: answer.message === 'bind', user: answer.data };
}

export function wechatSignIn(code: string) {
  return apiGet<SessionUser>('/api/oauth/wechat', { query: { code, aff: readText(StorageKey.aff) } });
}

export function wechatBind(code: string) {
  return apiGet<null>('/api/oauth/wechat/bind', { query: { code } });
}

/** A failed state fetch shows the server's message (the api client does) and aborts. */
export function fetchOAuthState(): Promise<string> {
  return apiGet<string>('/api/oauth/state');
}

export function fetchOidcEndpoint(): Promise<string> {
  return apiGet<string>('/api/oauth/endpoint');
}

export function beginPasskeyLogin() {
  return apiPost<PublicKeyCredentialRequestOptionsJSON>('/api/webauthn/login/begin');
}

export function finishPasskeyLogin(response: AuthenticationResponseJSON) {
  return apiPost<SessionUser>('/api/webauthn/login/finish', response);
}

export interface PasskeySummary {
  id: number;
  alias: string;
  created_time: number;
  last_used_time: number;
}

export function beginPasskeyRegistration() {
  return apiPost<PublicKeyCredentialCreationOptionsJSON>('/api/webauthn/registration/begin');
}

export function finishPasskeyRegistration(response: RegistrationResponseJSON, alias: string) {
  return apiPost<PasskeySummary>('/api/webauthn/registration/finish', { response, alias });
}
