import type { ExternalIdentity } from './account-link.js';
import { ProviderRefused } from './github-client.js';

const TIMEOUT_MS = 10_000;

/**
 * WeChat sign-in through a wechat-server: the user sends the official account a message and types
 * the one-time code it replies with; `GET <server>/api/wechat/user?code=` with the server's token
 * answers `{success, message, data: <openid>}`.
 */
export async function weChatIdentity(
  server: { address: string; token: string },
  code: string,
): Promise<ExternalIdentity> {
  const url = `${server.address.replace(/\/+$/, '')}/api/wechat/user?code=${encodeURIComponent(code)}`;
  const res = await fetch(url, {
    headers: { authorization: server.token },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  let body: { success?: unknown; message?: unknown; data?: unknown };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new ProviderRefused(`the WeChat server answered ${res.status} without JSON`);
  }
  if (body.success !== true || typeof body.data !== 'string' || !body.data) {
    const reason = typeof body.message === 'string' && body.message ? body.message : `status ${res.status}`;
    throw new ProviderRefused(`the WeChat server refused the code: ${reason}`);
  }
  return { provider: 'wechat', id: body.data };
}
