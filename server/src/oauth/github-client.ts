import type { ExternalIdentity } from './account-link.js';

const TIMEOUT_MS = 10_000;

export interface GitHubEndpoints {
  /** Origin of `/login/oauth/access_token` (https://github.com). */
  oauthUrl: string;
  /** Origin of the REST API (https://api.github.com). */
  apiUrl: string;
}

/** Thrown when the provider refuses the code or answers something unusable; its message is shown. */
export class ProviderRefused extends Error {}

async function readJson(res: Response, what: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ProviderRefused(`${what} answered ${res.status} without JSON`);
  }
}

/** GitHub's web flow: the code for an access token, then `GET /user` for the account. */
export async function gitHubIdentity(
  endpoints: GitHubEndpoints,
  credentials: { clientId: string; clientSecret: string },
  code: string,
  matchLegacyLogin: boolean,
): Promise<ExternalIdentity> {
  const tokenRes = await fetch(`${endpoints.oauthUrl}/login/oauth/access_token`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: credentials.clientId, client_secret: credentials.clientSecret, code }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const token = await readJson(tokenRes, 'GitHub');
  // GitHub answers 200 with an `error` field for a bad or used code.
  if (!tokenRes.ok || typeof token.access_token !== 'string' || !token.access_token) {
    const reason = typeof token.error_description === 'string' ? token.error_description : token.error;
    throw new ProviderRefused(`GitHub refused the code: ${String(reason ?? tokenRes.status)}`);
  }
  const userRes = await fetch(`${endpoints.apiUrl}/user`, {
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${token.access_token}`,
      'user-agent': 'switchyard',
    },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const user = await readJson(userRes, 'GitHub');
  if (!userRes.ok || (typeof user.id !== 'number' && typeof user.id !== 'string')) {
    throw new ProviderRefused(`GitHub did not return the account (${userRes.status})`);
  }
  const login = typeof user.login === 'string' ? user.login : undefined;
  return {
    provider: 'github',
    id: String(user.id),
    username: login,
    email: typeof user.email === 'string' ? user.email : undefined,
    displayName: typeof user.name === 'string' ? user.name : login,
    avatarUrl: typeof user.avatar_url === 'string' ? user.avatar_url : undefined,
    legacyIds: matchLegacyLogin && login ? [login] : [],
  };
}
