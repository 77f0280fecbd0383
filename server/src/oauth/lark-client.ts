import type { ExternalIdentity } from './account-link.js';
import { ProviderRefused } from './github-client.js';

const TIMEOUT_MS = 10_000;

async function readJson(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ProviderRefused(`Lark answered ${res.status} without JSON`);
  }
}

const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/**
 * Lark (Feishu) web sign-in: the code for a user access token at `/open-apis/authen/v2/oauth/token`
 * (the app's id and secret in the body), then `/open-apis/authen/v1/user_info`. The account id is the
 * user's `open_id` in this app. Both answers carry `code`: 0 is success, anything else a refusal.
 */
export async function larkIdentity(
  apiUrl: string,
  credentials: { clientId: string; clientSecret: string },
  code: string,
  redirectUri: string,
): Promise<ExternalIdentity> {
  const tokenRes = await fetch(`${apiUrl}/open-apis/authen/v2/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      code,
      redirect_uri: redirectUri,
    }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const token = await readJson(tokenRes);
  if (token.code !== 0 || !text(token.access_token)) {
    const reason =
      text(token.error_description) ?? text(token.msg) ?? text(token.error) ?? String(tokenRes.status);
    throw new ProviderRefused(`Lark refused the code: ${reason}`);
  }
  const infoRes = await fetch(`${apiUrl}/open-apis/authen/v1/user_info`, {
    headers: { authorization: `Bearer ${token.access_token}` },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const info = await readJson(infoRes);
  const data = (info.data ?? {}) as Record<string, unknown>;
  const openId = text(data.open_id);
  if (info.code !== 0 || !openId) {
    throw new ProviderRefused(`Lark did not return the account: ${text(info.msg) ?? infoRes.status}`);
  }
  return {
    provider: 'lark',
    id: openId,
    // Lark names are display names, often not usable as usernames: new users get lark_<n>.
    email: text(data.enterprise_email) ?? text(data.email),
    displayName: text(data.name) ?? text(data.en_name),
    avatarUrl: text(data.avatar_url),
  };
}
