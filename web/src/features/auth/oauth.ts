import { withBase } from '../../lib/base-path';

export type OAuthProvider = 'github' | 'oidc' | 'lark';

export function isOAuthProvider(value: unknown): value is OAuthProvider {
  return value === 'github' || value === 'oidc' || value === 'lark';
}

export function githubAuthorizeUrl(clientId: string, state: string): string {
  const q = new URLSearchParams({ client_id: clientId, state, scope: 'user:email' });
  return `https://github.com/login/oauth/authorize?${q}`;
}

/** Lark's current web authorization page; its codes are exchanged at the v2 token endpoint. */
export function larkAuthorizeUrl(appId: string, state: string, origin: string, base?: string): string {
  const q = new URLSearchParams({
    client_id: appId,
    redirect_uri: origin + withBase('/oauth/lark', base),
    state,
  });
  return `https://accounts.feishu.cn/open-apis/authen/v1/authorize?${q}`;
}
