import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ClaudeScenario, claudeMessage, claudeStreamEvents } from './claude-events.js';
import { bedrockChunk, bedrockException } from './event-stream-encoder.js';

// A real HTTP server on an ephemeral port that answers like the Bedrock runtime for Claude:
// InvokeModel JSON and InvokeModelWithResponseStream in the binary event-stream framing (base64
// `bytes` chunks, the invocation metrics on the last event), Bedrock's error replies
// (`x-amzn-errortype` + `{"message"}`) and exception frames mid-stream. It checks what it can of
// a SigV4 request without the secret: the Authorization header's shape and scope, `x-amz-date`,
// and that `x-amz-content-sha256` is the body's hash. Test side only.

export interface RecordedBedrockRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The model id from the path, decoded. */
  modelId: string;
  stream: boolean;
  body: Buffer;
  json: Record<string, unknown> | undefined;
}

export type BedrockScenario =
  | ({ kind: 'ok' } & ClaudeScenario)
  | { kind: 'error'; status: number; exception: string; message: string }
  /** Sends this many events, then an exception frame, then ends. */
  | ({ kind: 'streamException'; afterEvents: number; exception: string; message: string } & ClaudeScenario);

export interface FakeBedrockOptions {
  /** The access key id a SigV4 request must name; else 403 (or the Bearer key, when set). */
  accessKeyId?: string;
  region?: string;
  apiKey?: string;
}

export interface FakeBedrock {
  url: string;
  requests: RecordedBedrockRequest[];
  setScenario(s: BedrockScenario): void;
  reset(): void;
  close(): Promise<void>;
}

const AUTH_SHAPE =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([a-z0-9-]+)\/bedrock\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=[0-9a-f]{64}$/;

export async function startFakeBedrock(options: FakeBedrockOptions = {}): Promise<FakeBedrock> {
  const requests: RecordedBedrockRequest[] = [];
  let scenario: BedrockScenario = { kind: 'ok' };
  let counter = 0;

  function fail(res: ServerResponse, status: number, exception: string, message: string) {
    const text = JSON.stringify({ message });
    res.writeHead(status, {
      'content-type': 'application/json',
      'x-amzn-errortype': `${exception}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      'x-amzn-requestid': `fake-${counter}`,
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }

  /** The credential problem of a request, or null when it passes the checks the fake can make. */
  function authProblem(req: IncomingMessage, body: Buffer): string | null {
    const auth = req.headers.authorization ?? '';
    if (options.apiKey !== undefined && auth.startsWith('Bearer ')) {
      return auth === `Bearer ${options.apiKey}` ? null : 'Invalid API key';
    }
    const m = AUTH_SHAPE.exec(auth);
    if (!m) return 'Authorization header is missing or malformed';
    const [, keyId, day, region, signed] = m;
    const date = String(req.headers['x-amz-date'] ?? '');
    if (!/^\d{8}T\d{6}Z$/.test(date) || date.slice(0, 8) !== day)
      return 'x-amz-date missing or not the scope date';
    if (options.accessKeyId && keyId !== options.accessKeyId)
      return 'The security token included in the request is invalid.';
    if (options.region && region !== options.region) return `Credential should be scoped to a valid region.`;
    const names = (signed ?? '').split(';');
    if (!names.includes('host') || !names.includes('x-amz-date')) return 'host and x-amz-date must be signed';
    const hash = req.headers['x-amz-content-sha256'];
    if (hash !== undefined && hash !== createHash('sha256').update(body).digest('hex'))
      return 'The provided x-amz-content-sha256 header does not match what was computed.';
    return null;
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    counter++;
    const path = new URL(req.url ?? '/', 'http://fake.local').pathname;
    const m = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(path);
    let json: Record<string, unknown> | undefined;
    try {
      const v = JSON.parse(body.toString('utf8')) as unknown;
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) json = v as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    const rec: RecordedBedrockRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      modelId: m ? decodeURIComponent(m[1] ?? '') : '',
      stream: m?.[2] === 'invoke-with-response-stream',
      body,
      json,
    };
    requests.push(rec);
    if (!m || req.method !== 'POST') return fail(res, 404, 'UnknownOperationException', 'Unknown operation');
    const problem = authProblem(req, body);
    if (problem) return fail(res, 403, 'UnrecognizedClientException', problem);
    if (!json)
      return fail(
        res,
        400,
        'ValidationException',
        'Malformed input request, please reformat your input and try again.',
      );
    if (json.anthropic_version !== 'bedrock-2023-05-31')
      return fail(
        res,
        400,
        'ValidationException',
        'Malformed input request: #: required key [anthropic_version] not found',
      );
    if ('model' in json || 'stream' in json)
      return fail(
        res,
        400,
        'ValidationException',
        'Malformed input request: #: extraneous key [model] is not permitted',
      );
    const s = scenario;
    if (s.kind === 'error') return fail(res, s.status, s.exception, s.message);
    const id = `msg_bdrk_fake${counter}`;
    if (!rec.stream) {
      const text = JSON.stringify(claudeMessage(id, rec.modelId, s));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/vnd.amazon.eventstream',
      'x-amzn-requestid': `fake-${counter}`,
    });
    const events = claudeStreamEvents(id, rec.modelId, s);
    const inputTokens = s.inputTokens ?? 10;
    for (const [i, event] of events.entries()) {
      if (s.kind === 'streamException' && i >= s.afterEvents) {
        res.end(bedrockException(s.exception, s.message));
        return;
      }
      const out =
        event.type === 'message_stop'
          ? {
              ...event,
              'amazon-bedrock-invocationMetrics': {
                inputTokenCount: inputTokens,
                outputTokenCount: 0,
                invocationLatency: 120,
                firstByteLatency: 40,
              },
            }
          : event;
      res.write(bedrockChunk(out));
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setScenario(s) {
      scenario = s;
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
