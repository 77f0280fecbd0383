import { createHash, createHmac } from 'node:crypto';

// AWS Signature Version 4 for request headers (the `Authorization` form), written against the
// published algorithm: canonical request -> string to sign -> HMAC chain keyed by the secret.
// Only what a JSON POST to an AWS service needs: no presigned URLs, no chunked payload signing.

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (STS) also sign `x-amz-security-token`. */
  sessionToken?: string;
}

export interface SigV4Request {
  method: string;
  /** `host[:port]` as it goes in the Host header. */
  host: string;
  /**
   * The path exactly as it goes on the wire. Services other than S3 sign each segment encoded
   * once more, so a segment the wire carries as `%3A` is signed as `%253A`.
   */
  path: string;
  /** The query without `?` (any order; it is sorted for signing). */
  query?: string;
  /** Headers to sign besides `host` and the `x-amz-*` ones this adds; names in any case. */
  headers: Record<string, string>;
  body: Buffer | string;
}

export interface SigV4Scope {
  region: string;
  service: string;
  /** The signing time; the caller passes its clock so tests are deterministic. */
  date: Date;
}

export interface SigV4Result {
  /** The headers to add to the request: `authorization`, `x-amz-date`, `x-amz-content-sha256`, maybe `x-amz-security-token`. */
  headers: Record<string, string>;
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** RFC 3986 encoding as SigV4 defines it: only A-Z a-z 0-9 - _ . ~ stay as they are. */
export function awsUriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `20150830T123600Z` */
export function amzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function canonicalUri(path: string): string {
  if (path === '' || path === '/') return '/';
  return path
    .split('/')
    .map((segment) => awsUriEncode(segment))
    .join('/');
}

function canonicalQuery(query: string | undefined): string {
  if (!query) return '';
  const pairs = query
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      const name = decodeURIComponent(eq === -1 ? p : p.slice(0, eq));
      const value = eq === -1 ? '' : decodeURIComponent(p.slice(eq + 1).replace(/\+/g, ' '));
      return [awsUriEncode(name), awsUriEncode(value)] as const;
    });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([n, v]) => `${n}=${v}`).join('&');
}

/** The derived signing key: HMAC chain over date, region, service and `aws4_request`. */
export function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const kDate = hmac(`AWS4${secret}`, day);
  const kRegion = hmac(kDate, region);
  const kService = hmac(kRegion, service);
  return hmac(kService, 'aws4_request');
}

export interface SigV4Options {
  /** Adds `x-amz-content-sha256` (S3 requires it; others accept it). Default true. */
  contentSha256Header?: boolean;
}

/** Signs a request; returns the headers to add and the intermediate strings (for diagnosis and tests). */
export function signSigV4(
  req: SigV4Request,
  credentials: SigV4Credentials,
  scope: SigV4Scope,
  options: SigV4Options = {},
): SigV4Result {
  const stamp = amzDate(scope.date);
  const day = stamp.slice(0, 8);
  const payloadHash = sha256Hex(req.body);
  const added: Record<string, string> = { 'x-amz-date': stamp };
  if (options.contentSha256Header ?? true) added['x-amz-content-sha256'] = payloadHash;
  if (credentials.sessionToken) added['x-amz-security-token'] = credentials.sessionToken;

  const all = new Map<string, string>();
  all.set('host', req.host);
  for (const [name, value] of Object.entries({ ...req.headers, ...added })) {
    // Header values are signed trimmed, with inner runs of spaces collapsed.
    all.set(name.toLowerCase(), value.trim().replace(/\s+/g, ' '));
  }
  const names = [...all.keys()].sort();
  const canonicalHeaders = names.map((n) => `${n}:${all.get(n)}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    req.method.toUpperCase(),
    canonicalUri(req.path),
    canonicalQuery(req.query),
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = [ALGORITHM, stamp, credentialScope, sha256Hex(canonicalRequest)].join('\n');
  const signature = hmac(
    signingKey(credentials.secretAccessKey, day, scope.region, scope.service),
    stringToSign,
  ).toString('hex');
  return {
    headers: {
      ...added,
      authorization: `${ALGORITHM} Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
    },
    canonicalRequest,
    stringToSign,
    signature,
  };
}
