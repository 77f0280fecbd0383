import { createHmac } from 'node:crypto';
import { ChannelConfigError } from '../upstream-request.js';

// Zhipu (BigModel) keys are `id.secret`. Calls carry a JWT instead of the key: header
// `{"alg":"HS256","sign_type":"SIGN"}`, claims `api_key` (the id), `exp` and `timestamp`, both in
// milliseconds, signed with the secret. Signing is local and cheap, but a token per request is
// pointless: each is kept until shortly before it expires.

const TOKEN_LIFETIME_MS = 60 * 60 * 1000;
const REFRESH_MARGIN_MS = 5 * 60 * 1000;

function base64url(s: string | Buffer): string {
  return Buffer.from(s).toString('base64url');
}

export function splitZhipuKey(key: string): { id: string; secret: string } {
  const trimmed = key.trim();
  const dot = trimmed.indexOf('.');
  if (dot <= 0 || dot === trimmed.length - 1) throw new ChannelConfigError('the Zhipu key must be id.secret');
  return { id: trimmed.slice(0, dot), secret: trimmed.slice(dot + 1) };
}

/** A signed token for the key, valid from `nowMs` for `lifetimeMs`. */
export function signZhipuToken(key: string, nowMs: number, lifetimeMs = TOKEN_LIFETIME_MS): string {
  const { id, secret } = splitZhipuKey(key);
  const header = base64url(JSON.stringify({ alg: 'HS256', sign_type: 'SIGN' }));
  const claims = base64url(JSON.stringify({ api_key: id, exp: nowMs + lifetimeMs, timestamp: nowMs }));
  const signature = createHmac('sha256', secret).update(`${header}.${claims}`).digest('base64url');
  return `${header}.${claims}.${signature}`;
}

/** Tokens per key; one instance per process, made by the composition root. */
export class ZhipuTokenCache {
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();
  private readonly now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  token(key: string): string {
    const now = this.now();
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt - REFRESH_MARGIN_MS > now) return cached.token;
    const token = signZhipuToken(key, now);
    this.tokens.set(key, { token, expiresAt: now + TOKEN_LIFETIME_MS });
    return token;
  }
}
