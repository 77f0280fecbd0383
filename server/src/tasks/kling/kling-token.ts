import { SignJWT } from 'jose';
import { ChannelUnusable } from '../../relay/channels/channel-transports.js';

// Kling's API takes a short-lived HS256 JWT instead of the key: `iss` the access key, `exp` half an
// hour on, `nbf` five seconds back (clock skew), signed with the secret key. A token is kept per
// key until five minutes before it expires.

const LIFETIME_SECONDS = 1800;
const REFRESH_MARGIN_SECONDS = 300;

/** `accessKey|secretKey`, as the channel stores it. */
export function splitKlingKey(key: string): { accessKey: string; secretKey: string } {
  const [accessKey, secretKey, ...rest] = key.split('|').map((p) => p.trim());
  if (!accessKey || !secretKey || rest.length > 0)
    throw new ChannelUnusable('the Kling channel key must be accessKey|secretKey');
  return { accessKey, secretKey };
}

export async function signKlingToken(key: string, nowSeconds: number): Promise<string> {
  const { accessKey, secretKey } = splitKlingKey(key);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(accessKey)
    .setNotBefore(nowSeconds - 5)
    .setExpirationTime(nowSeconds + LIFETIME_SECONDS)
    .sign(new TextEncoder().encode(secretKey));
}

/** Tokens per key; one per process, made by the composition root. */
export class KlingTokenCache {
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();

  constructor(private readonly nowSeconds: () => number) {}

  async token(key: string): Promise<string> {
    const now = this.nowSeconds();
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt - REFRESH_MARGIN_SECONDS > now) return cached.token;
    const token = await signKlingToken(key, now);
    this.tokens.set(key, { token, expiresAt: now + LIFETIME_SECONDS });
    return token;
  }
}
