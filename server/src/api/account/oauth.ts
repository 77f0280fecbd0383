import { ErrorCode } from '@switchyard/domain';
import * as oidc from 'openid-client';
import { z } from 'zod';
import { ApiError } from '../../http/api-error.js';
import type { RouteContext } from '../../http/route.js';
import {
  completeExternalSignIn,
  type ExternalIdentity,
  PROVIDER_LABELS,
  type ProviderName,
  unbindProvider,
} from '../../oauth/account-link.js';
import { gitHubIdentity, ProviderRefused } from '../../oauth/github-client.js';
import { larkIdentity } from '../../oauth/lark-client.js';
import { consumeState, issueState } from '../../oauth/oauth-state.js';
import type { OidcClaims, OidcSettings } from '../../oauth/oidc-client.js';
import { weChatIdentity } from '../../oauth/wechat-client.js';
import type { Services } from '../../services.js';

type Ctx<Q = unknown, B = unknown> = RouteContext<B, Q, unknown>;

export const oauthCallbackQuery = z.object({
  code: z.string().trim().min(1, 'code is required').max(2048),
  state: z.string().trim().max(128).optional(),
  aff: z.string().trim().max(32).optional(),
  // RFC 9207: the issuer a provider names in its redirect, checked against the configured one.
  iss: z.string().trim().max(2048).optional(),
});
type CallbackQuery = z.infer<typeof oauthCallbackQuery>;

export const weChatQuery = z.object({
  code: z.string().trim().min(1, 'code is required').max(64),
  aff: z.string().trim().max(32).optional(),
});
type WeChatQuery = z.infer<typeof weChatQuery>;

export const unbindBody = z.object({ type: z.enum(['github', 'lark', 'oidc', 'wechat']) });

function disabled(provider: ProviderName): ApiError {
  return new ApiError(
    400,
    ErrorCode.oauthDisabled,
    `Sign-in with ${PROVIDER_LABELS[provider]} is not turned on by the administrator`,
  );
}

/**
 * Runs a provider exchange. A refusal or an untrustworthy answer (bad code, wrong issuer, an ID
 * token that fails verification) is the client's 400 with the reason; an unreachable provider is 502.
 */
async function fromProvider<T>(provider: ProviderName, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const label = PROVIDER_LABELS[provider];
    // openid-client wraps the specific failure ("unexpected JWT "iss" claim value") in its cause.
    const cause = err instanceof Error ? err.cause : undefined;
    const reason =
      cause instanceof Error && !(cause instanceof TypeError)
        ? cause.message
        : err instanceof Error
          ? err.message
          : String(err);
    if (
      cause instanceof TypeError ||
      err instanceof TypeError ||
      (err instanceof Error && err.name === 'TimeoutError')
    ) {
      throw new ApiError(502, ErrorCode.oauthFailed, `${label} could not be reached: ${reason}`);
    }
    if (
      err instanceof ProviderRefused ||
      err instanceof oidc.ResponseBodyError ||
      err instanceof oidc.AuthorizationResponseError ||
      err instanceof oidc.WWWAuthenticateChallengeError ||
      err instanceof oidc.ClientError
    ) {
      throw new ApiError(400, ErrorCode.oauthFailed, `${label} sign-in failed: ${reason}`);
    }
    throw new ApiError(502, ErrorCode.oauthFailed, `${label} could not be reached: ${reason}`);
  }
}

/** A state for the GitHub and Lark redirects (the console builds their authorize URLs). */
export async function oauthState({ s, req, reply }: Ctx) {
  return issueState(s, req, reply);
}

function oidcSettings(s: Services): OidcSettings {
  const o = s.options.current;
  if (!o.OIDCAuthEnabled) throw disabled('oidc');
  return {
    issuer: o.OIDCIssuer,
    clientId: o.OIDCClientId,
    clientSecret: o.OIDCClientSecret,
    scopes: o.OIDCScopes,
  };
}

function callbackUrl(s: Services, provider: ProviderName): string {
  return `${s.options.current.ServerAddress.replace(/\/+$/, '')}/oauth/${provider}`;
}

/** The OIDC authorization URL, with a state that keeps the PKCE verifier and nonce server-side. */
export async function oidcEndpoint({ s, req, reply }: Ctx) {
  const settings = oidcSettings(s);
  return fromProvider('oidc', async () => {
    // The state is needed in the URL, and the URL's verifier and nonce in the state: make the
    // verifier first, then store it under the state.
    const pending = await s.oidc.prepare(settings, callbackUrl(s, 'oidc'));
    const state = await issueState(s, req, reply, { verifier: pending.verifier, nonce: pending.nonce });
    return pending.url(state);
  });
}

export async function gitHubCallback(ctx: Ctx<CallbackQuery>) {
  const { s, req, query } = ctx;
  const o = s.options.current;
  if (!o.GitHubOAuthEnabled) throw disabled('github');
  await consumeState(s, req, query.state);
  const identity = await fromProvider('github', () =>
    gitHubIdentity(
      { oauthUrl: s.config.githubOAuthUrl, apiUrl: s.config.githubApiUrl },
      { clientId: o.GitHubClientId, clientSecret: o.GitHubClientSecret },
      query.code,
      !o.GitHubOldIdCloseEnabled,
    ),
  );
  return completeExternalSignIn(ctx, identity, query.aff);
}

export async function larkCallback(ctx: Ctx<CallbackQuery>) {
  const { s, req, query } = ctx;
  const o = s.options.current;
  if (!o.LarkAuthEnabled) throw disabled('lark');
  await consumeState(s, req, query.state);
  const identity = await fromProvider('lark', () =>
    larkIdentity(
      s.config.larkApiUrl,
      { clientId: o.LarkClientId, clientSecret: o.LarkClientSecret },
      query.code,
      callbackUrl(s, 'lark'),
    ),
  );
  return completeExternalSignIn(ctx, identity, query.aff);
}

async function weChatAccount(s: Services, code: string): Promise<ExternalIdentity> {
  const o = s.options.current;
  if (!o.WeChatAuthEnabled) throw disabled('wechat');
  return fromProvider('wechat', () =>
    weChatIdentity({ address: o.WeChatServerAddress, token: o.WeChatServerToken }, code),
  );
}

/**
 * WeChat's code is typed by the user into this site's own dialog, not sent back by a redirect, so
 * there is no state to check: the code itself is single-use and short-lived at the WeChat server.
 */
export async function weChatLogin(ctx: Ctx<WeChatQuery>) {
  return completeExternalSignIn(ctx, await weChatAccount(ctx.s, ctx.query.code), ctx.query.aff);
}

/** Binds WeChat to the signed-in user (the same rules as a bind through the sign-in route). */
export async function weChatBind(ctx: Ctx<WeChatQuery>) {
  return completeExternalSignIn(ctx, await weChatAccount(ctx.s, ctx.query.code), undefined);
}

function claimText(claims: OidcClaims, name: string): string | undefined {
  const v = claims[name];
  if (typeof v === 'string' && v.trim()) return v.trim();
  if (typeof v === 'number') return String(v);
  return undefined;
}

/** The OIDC account: `sub` is the binding; the username comes from `OIDCUsernameClaims`. */
export function oidcIdentity(claims: OidcClaims, usernameClaims: string): ExternalIdentity {
  const names = usernameClaims
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const username = names.map((n) => claimText(claims, n)).find((v) => v !== undefined);
  return {
    provider: 'oidc',
    id: claims.sub,
    username,
    email: claims.email_verified === false ? undefined : claimText(claims, 'email'),
    displayName: claimText(claims, 'name') ?? claimText(claims, 'preferred_username'),
    avatarUrl: claimText(claims, 'picture'),
  };
}

export async function oidcCallback(ctx: Ctx<CallbackQuery>) {
  const { s, req, query } = ctx;
  const settings = oidcSettings(s);
  const pending = await consumeState(s, req, query.state);
  if (!pending.verifier || !pending.nonce || !query.state) {
    throw new ApiError(400, ErrorCode.oauthStateInvalid, 'This state was not issued for an OIDC sign-in');
  }
  const callback = new URL(callbackUrl(s, 'oidc'));
  callback.searchParams.set('code', query.code);
  callback.searchParams.set('state', query.state);
  if (query.iss) callback.searchParams.set('iss', query.iss);
  const claims = await fromProvider('oidc', () =>
    s.oidc.exchange(settings, callback, {
      state: query.state!,
      verifier: pending.verifier!,
      nonce: pending.nonce!,
    }),
  );
  return completeExternalSignIn(ctx, oidcIdentity(claims, s.options.current.OIDCUsernameClaims), query.aff);
}

export async function unbind({
  s,
  caller,
  body,
}: RouteContext<z.infer<typeof unbindBody>, unknown, unknown>) {
  await unbindProvider(s, caller!.user, body.type);
  return null;
}
