import { createHash, randomBytes } from 'node:crypto';
import { ErrorCode } from '@switchyard/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.js';
import type { Services } from '../services.js';

/** The browser an OAuth state was handed to: a random value in a signed, HttpOnly cookie. */
export const OAUTH_BROWSER_COOKIE = 'sy_oauth';
const STATE_TTL_SECONDS = 10 * 60;

/** What the server keeps for a state until its callback uses it. */
export interface PendingState {
  /** SHA-256 of the browser cookie's value: the callback must come from the same browser. */
  browser: string;
  /** OIDC only: the PKCE verifier and the nonce the ID token must carry. */
  verifier?: string;
  nonce?: string;
}

const stateKey = (state: string) => `oauth-state:${state}`;
const digest = (value: string) => createHash('sha256').update(value).digest('hex');

function browserId(req: FastifyRequest): string | undefined {
  const raw = req.cookies[OAUTH_BROWSER_COOKIE];
  if (!raw) return undefined;
  const unsigned = req.unsignCookie(raw);
  return unsigned.valid && unsigned.value ? unsigned.value : undefined;
}

/**
 * A new state for a sign-in redirect, stored (database or Redis) for ten minutes and tied to this
 * browser's cookie, so a state fetched by one browser is useless in another (login CSRF).
 */
export async function issueState(
  s: Services,
  req: FastifyRequest,
  reply: FastifyReply,
  extra: Omit<PendingState, 'browser'> = {},
): Promise<string> {
  let browser = browserId(req);
  if (!browser) {
    browser = randomBytes(24).toString('base64url');
    const secure =
      s.config.secureCookies === 'auto' ? req.protocol === 'https' : s.config.secureCookies === 'true';
    // Lax: the provider's redirect back to the console is a cross-site top-level navigation.
    reply.setCookie(OAUTH_BROWSER_COOKIE, browser, {
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: '/api/oauth',
      maxAge: STATE_TTL_SECONDS,
    });
  }
  // 12 characters like one-hub's, from 72 random bits.
  const state = randomBytes(9).toString('base64url');
  const pending: PendingState = { browser: digest(browser), ...extra };
  await s.codes.set(stateKey(state), JSON.stringify(pending), STATE_TTL_SECONDS);
  return state;
}

/** Takes the state (single use) and checks it belongs to this browser; refuses anything else. */
export async function consumeState(
  s: Services,
  req: FastifyRequest,
  state: string | undefined,
): Promise<PendingState> {
  const refuse = () =>
    new ApiError(
      400,
      ErrorCode.oauthStateInvalid,
      'The sign-in link has expired or was already used; please start the sign-in again',
    );
  if (!state) throw refuse();
  const stored = await s.codes.take(stateKey(state));
  if (!stored) throw refuse();
  const pending = JSON.parse(stored) as PendingState;
  const browser = browserId(req);
  if (!browser || digest(browser) !== pending.browser) throw refuse();
  return pending;
}
