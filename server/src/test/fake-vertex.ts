import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ClaudeScenario, claudeMessage, claudeStreamEvents } from './claude-events.js';

// A real HTTP server on an ephemeral port that plays Google's OAuth token endpoint and the Vertex
// AI prediction API. `/token` takes the JWT-bearer grant, verifies the RS256 assertion with the
// service account's public key and its claims (iss, aud, scope, iat/exp), and issues short-lived
// tokens. `/v1/projects/{p}/locations/{r}/publishers/google/models/{m}:generateContent` and
// `:streamGenerateContent?alt=sse` answer in Gemini's format; `.../publishers/anthropic/models/
// {m}:rawPredict` and `:streamRawPredict` in Claude's (Messages JSON, SSE with event names). Any
// failure answers in Google's error shape. Test side only.

export interface RecordedVertexRequest {
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  project: string;
  region: string;
  publisher: string;
  model: string;
  action: string;
  json: Record<string, unknown> | undefined;
}

export type VertexScenario =
  | ({ kind: 'ok'; promptTokens?: number; thoughtsTokens?: number } & ClaudeScenario)
  | { kind: 'error'; status: number; googleStatus: string; message: string };

export interface FakeVertexOptions {
  /** The service account's public key; the token endpoint verifies assertions with it. */
  publicKey: string | KeyObject;
  clientEmail: string;
  /** Seconds a token lives (Google: 3599). */
  expiresIn?: number;
  /** Delay before answering a token request (to provoke concurrent callers). */
  tokenDelayMs?: number;
}

export interface FakeVertex {
  url: string;
  /** The `token_uri` to put in the service-account JSON. */
  tokenUri: string;
  requests: RecordedVertexRequest[];
  tokenRequests: number;
  setScenario(s: VertexScenario): void;
  /** Revokes every issued token (the next API call answers 401). */
  revokeTokens(): void;
  reset(): void;
  close(): Promise<void>;
}

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const MODEL_PATH =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;

function googleError(res: ServerResponse, status: number, googleStatus: string, message: string) {
  const text = JSON.stringify({ error: { code: status, message, status: googleStatus } });
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function json(res: ServerResponse, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export async function startFakeVertex(options: FakeVertexOptions): Promise<FakeVertex> {
  const publicKey =
    typeof options.publicKey === 'string' ? createPublicKey(options.publicKey) : options.publicKey;
  const requests: RecordedVertexRequest[] = [];
  const issued = new Map<string, number>();
  let scenario: VertexScenario = { kind: 'ok' };
  let tokenRequests = 0;
  let counter = 0;
  let url = '';

  function tokenError(res: ServerResponse, description: string) {
    const text = JSON.stringify({ error: 'invalid_grant', error_description: description });
    res.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
    res.end(text);
  }

  async function token(body: string, res: ServerResponse) {
    tokenRequests++;
    if (options.tokenDelayMs) await new Promise((r) => setTimeout(r, options.tokenDelayMs));
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return tokenError(res, 'Invalid grant_type');
    const parts = (form.get('assertion') ?? '').split('.');
    if (parts.length !== 3) return tokenError(res, 'Invalid JWT');
    const [h = '', c = '', sig = ''] = parts;
    const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as Record<string, unknown>;
    if (header.alg !== 'RS256') return tokenError(res, 'Invalid JWT: alg must be RS256');
    if (!verify('RSA-SHA256', Buffer.from(`${h}.${c}`), publicKey, Buffer.from(sig, 'base64url')))
      return tokenError(res, 'Invalid JWT Signature.');
    const now = Math.floor(Date.now() / 1000);
    if (claims.iss !== options.clientEmail) return tokenError(res, 'Invalid issuer');
    if (claims.aud !== `${url}/token`) return tokenError(res, 'Invalid JWT: aud');
    if (claims.scope !== SCOPE) return tokenError(res, 'Invalid scope');
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (!(Math.abs(iat - now) < 300 && exp > now && exp - iat <= 3600))
      return tokenError(
        res,
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.',
      );
    const accessToken = `ya29.fake-${tokenRequests}`;
    const expiresIn = options.expiresIn ?? 3599;
    issued.set(accessToken, Date.now() + expiresIn * 1000);
    json(res, { access_token: accessToken, expires_in: expiresIn, token_type: 'Bearer' });
  }

  function gemini(rec: RecordedVertexRequest, res: ServerResponse, s: VertexScenario & { kind: 'ok' }) {
    const calls = (s.toolCalls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.input } }));
    const text = s.content ?? (calls.length ? '' : 'Hello from the fake Vertex Gemini.');
    const words = text ? text.split(/(?<=\s)/) : [];
    const usageMetadata = {
      promptTokenCount: s.promptTokens ?? 8,
      candidatesTokenCount: words.length,
      ...(s.thoughtsTokens ? { thoughtsTokenCount: s.thoughtsTokens } : {}),
      totalTokenCount: (s.promptTokens ?? 8) + words.length + (s.thoughtsTokens ?? 0),
    };
    const base = {
      modelVersion: rec.model,
      responseId: `vertex-${counter}`,
      createTime: new Date().toISOString(),
    };
    if (rec.action === 'generateContent') {
      return json(res, {
        candidates: [
          {
            content: { role: 'model', parts: [...(text ? [{ text }] : []), ...calls] },
            finishReason: 'STOP',
          },
        ],
        usageMetadata,
        ...base,
      });
    }
    if (rec.action === 'countTokens') return json(res, { totalTokens: s.promptTokens ?? 8 });
    if (rec.query !== 'alt=sse')
      return googleError(res, 400, 'INVALID_ARGUMENT', 'the fake streams with alt=sse only');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // Gemini sends function calls whole, in the chunk after the text.
    const chunks: Record<string, unknown>[][] = words.map((w) => [{ text: w }]);
    if (calls.length) chunks.push(calls);
    chunks.forEach((parts, i) => {
      const last = i === chunks.length - 1;
      const payload = {
        candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}) }],
        ...(last ? { usageMetadata } : {}),
        ...base,
      };
      res.write(`data: ${JSON.stringify(payload)}\r\n\r\n`);
    });
    res.end();
  }

  function claude(rec: RecordedVertexRequest, res: ServerResponse, s: VertexScenario & { kind: 'ok' }) {
    const body = rec.json ?? {};
    if (body.anthropic_version !== 'vertex-2023-10-16')
      return googleError(
        res,
        400,
        'INVALID_ARGUMENT',
        'anthropic_version: Input should be vertex-2023-10-16',
      );
    if ('model' in body)
      return googleError(res, 400, 'INVALID_ARGUMENT', 'model: Extra inputs are not permitted');
    const id = `msg_vrtx_fake${counter}`;
    if (rec.action === 'rawPredict') return json(res, claudeMessage(id, rec.model, s));
    if (body.stream !== true)
      return googleError(res, 400, 'INVALID_ARGUMENT', 'streamRawPredict needs stream: true');
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    for (const event of claudeStreamEvents(id, rec.model, s)) {
      res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
    }
    res.end();
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    counter++;
    const u = new URL(req.url ?? '/', 'http://fake.local');
    if (u.pathname === '/token' && req.method === 'POST') return token(body, res);
    const m = MODEL_PATH.exec(u.pathname);
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(body) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    const rec: RecordedVertexRequest = {
      path: u.pathname,
      query: u.search.replace(/^\?/, ''),
      headers: req.headers,
      project: m?.[1] ?? '',
      region: m?.[2] ?? '',
      publisher: m?.[3] ?? '',
      model: decodeURIComponent(m?.[4] ?? ''),
      action: m?.[5] ?? '',
      json: parsed,
    };
    requests.push(rec);
    if (!m)
      return googleError(
        res,
        404,
        'NOT_FOUND',
        `The requested URL ${u.pathname} was not found on this server.`,
      );
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expiry = bearer ? issued.get(bearer) : undefined;
    if (expiry === undefined || expiry < Date.now())
      return googleError(
        res,
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token.',
      );
    if (!parsed) return googleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    const s = scenario;
    if (s.kind === 'error') return googleError(res, s.status, s.googleStatus, s.message);
    const googleActions = ['generateContent', 'streamGenerateContent', 'countTokens'];
    const claudeActions = ['rawPredict', 'streamRawPredict'];
    if (rec.publisher === 'google' && googleActions.includes(rec.action)) return gemini(rec, res, s);
    if (rec.publisher === 'anthropic' && claudeActions.includes(rec.action)) return claude(rec, res, s);
    return googleError(
      res,
      400,
      'INVALID_ARGUMENT',
      `Method ${rec.action} is not supported for ${rec.publisher} models.`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tokenUri: `${url}/token`,
    requests,
    get tokenRequests() {
      return tokenRequests;
    },
    setScenario(s) {
      scenario = s;
    },
    revokeTokens() {
      issued.clear();
    },
    reset() {
      requests.length = 0;
      scenario = { kind: 'ok' };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
