import { describe, expect, it } from 'vitest';
import { githubAuthorizeUrl, isOAuthProvider, larkAuthorizeUrl } from './oauth';

describe('third-party authorize addresses', () => {
  it('asks GitHub for the user email with our state', () => {
    const url = new URL(githubAuthorizeUrl('cid', 'st8'));
    expect(url.origin + url.pathname).toBe('https://github.com/login/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'cid',
      state: 'st8',
      scope: 'user:email',
    });
  });

  it('sends Lark back to /oauth/lark under the base path', () => {
    const url = new URL(larkAuthorizeUrl('app', 'st8', 'https://gw.example', '/console'));
    expect(url.origin + url.pathname).toBe('https://accounts.feishu.cn/open-apis/authen/v1/authorize');
    expect(url.searchParams.get('redirect_uri')).toBe('https://gw.example/console/oauth/lark');
    expect(url.searchParams.get('client_id')).toBe('app');
    expect(url.searchParams.get('state')).toBe('st8');
  });

  it('knows the three callback providers', () => {
    expect(['github', 'oidc', 'lark'].every(isOAuthProvider)).toBe(true);
    expect(isOAuthProvider('wechat')).toBe(false);
  });
});
