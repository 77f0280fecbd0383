import { createHash, createSign } from 'node:crypto';
import { request } from 'undici';
import type { UpstreamError } from '../openai/errors.js';
import { truncateMessage } from '../openai/errors.js';
import { asNumber, asString, isRecord, parseJson } from '../translate/json-reading.js';
import { ChannelConfigError } from '../upstream-request.js';

// A Vertex AI channel's key is a Google service-account JSON. Calls need an OAuth access token:
// the gateway signs a JWT (RS256) with the account's private key and exchanges it at the
// account's token URI (the JWT-bearer grant of RFC 7523). Tokens live an hour; the cache keeps
// each until shortly before it expires, and concurrent callers share one in-flight exchange so an
// expiry under load costs one request, not one per caller.

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const JWT_LIFETIME_SECONDS = 3600;
/** Refresh this long before expiry, so a token never expires during a long stream's start. */
const DEFAULT_REFRESH_MARGIN_SECONDS = 300;

export interface ServiceAccount {
  clientEmail: string;
  privateKey: string;
  privateKeyId: string;
  projectId: string;
  tokenUri: string;
}

/** Reads the service-account JSON of a channel key; a clear ChannelConfigError when it is not one. */
export function parseServiceAccount(key: string): ServiceAccount {
  const v = parseJson(key.trim());
  if (!isRecord(v)) throw new ChannelConfigError('the Vertex AI key must be the service-account JSON');
  const clientEmail = asString(v.client_email);
  const privateKey = asString(v.private_key);
  if (!clientEmail || !privateKey) {
    throw new ChannelConfigError('the service-account JSON needs client_email and private_key');
  }
  const tokenUri = asString(v.token_uri) || DEFAULT_TOKEN_URI;
  if (!/^https?:\/\//.test(tokenUri)) throw new ChannelConfigError(`invalid token_uri: ${tokenUri}`);
  return {
    clientEmail,
    privateKey,
    privateKeyId: asString(v.private_key_id) ?? '',
    projectId: asString(v.project_id) ?? '',
    tokenUri,
  };
}

function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/** The signed assertion for the JWT-bearer grant. */
export function serviceAccountAssertion(account: ServiceAccount, nowSeconds: number): string {
  const header: Record<string, string> = { alg: 'RS256', typ: 'JWT' };
  if (account.privateKeyId) header.kid = account.privateKeyId;
  const claims = {
    iss: account.clientEmail,
    scope: CLOUD_PLATFORM_SCOPE,
    aud: account.tokenUri,
    iat: nowSeconds,
    exp: nowSeconds + JWT_LIFETIME_SECONDS,
  };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  let signature: Buffer;
  try {
    signature = createSign('RSA-SHA256').update(input).sign(account.privateKey);
  } catch {
    throw new ChannelConfigError('the service-account private_key is not a valid RSA key');
  }
  return `${input}.${base64url(signature)}`;
}

/** The token endpoint refused the exchange (revoked key, wrong clock) or could not be reached. */
export class VertexAuthError extends Error {
  constructor(
    /** The token endpoint's status; 0 when it could not be reached. */
    readonly status: number,
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }

  /** As the pipeline's upstream error: a refused credential is the channel's 401. */
  toUpstreamError(): UpstreamError {
    const status = this.status >= 500 || this.status === 0 ? 502 : this.status === 429 ? 429 : 401;
    return {
      status,
      message: truncateMessage(this.message),
      type: 'vertex_auth_error',
      code: this.code,
      param: null,
    };
  }
}

/** The cache key: the account's identity and its key material, hashed (no secret kept as a map key). */
function accountId(account: ServiceAccount): string {
  return createHash('sha256')
    .update(`${account.clientEmail}\0${account.privateKeyId}\0${account.tokenUri}\0${account.privateKey}`)
    .digest('hex');
}

interface CachedToken {
  token: string;
  /** Unix ms. */
  expiresAt: number;
}

export interface VertexTokenCacheOptions {
  /** Clock in ms (tests move it). */
  now?: () => number;
  refreshMarginSeconds?: number;
  /** Bounds one exchange. */
  timeoutMs?: number;
}

/** Access tokens per service account; one instance per process, made by the composition root. */
export class VertexTokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly inflight = new Map<string, Promise<CachedToken>>();
  private readonly now: () => number;
  private readonly marginMs: number;
  private readonly timeoutMs: number;
  /** Exchanges made (for tests and metrics). */
  exchanges = 0;

  constructor(options: VertexTokenCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.marginMs = (options.refreshMarginSeconds ?? DEFAULT_REFRESH_MARGIN_SECONDS) * 1000;
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** A valid access token for the account, exchanging a new one when needed. */
  async accessToken(account: ServiceAccount): Promise<string> {
    const id = accountId(account);
    const cached = this.tokens.get(id);
    if (cached && cached.expiresAt - this.marginMs > this.now()) return cached.token;
    let pending = this.inflight.get(id);
    if (!pending) {
      pending = this.exchange(account).finally(() => this.inflight.delete(id));
      this.inflight.set(id, pending);
    }
    const fresh = await pending;
    this.tokens.set(id, fresh);
    return fresh.token;
  }

  /** Forgets an account's token (after the API answered 401 with it). */
  invalidate(account: ServiceAccount): void {
    const id = accountId(account);
    this.tokens.delete(id);
  }

  private async exchange(account: ServiceAccount): Promise<CachedToken> {
    this.exchanges++;
    const issuedAt = this.now();
    const assertion = serviceAccountAssertion(account, Math.floor(issuedAt / 1000));
    const form = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion,
    });
    let status: number;
    let text: string;
    try {
      const res = await request(account.tokenUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (e) {
      throw new VertexAuthError(0, `token endpoint unreachable: ${(e as Error).message}`, null);
    }
    const body = parseJson(text);
    if (status !== 200) {
      const code = isRecord(body) ? (asString(body.error) ?? null) : null;
      const description = isRecord(body) ? asString(body.error_description) : undefined;
      throw new VertexAuthError(
        status,
        `token exchange failed (${status}): ${description ?? code ?? text}`,
        code,
      );
    }
    const token = isRecord(body) ? asString(body.access_token) : undefined;
    if (!token) throw new VertexAuthError(502, 'token endpoint answered without access_token', null);
    const expiresIn = (isRecord(body) ? asNumber(body.expires_in) : undefined) ?? JWT_LIFETIME_SECONDS;
    return { token, expiresAt: issuedAt + expiresIn * 1000 };
  }
}
