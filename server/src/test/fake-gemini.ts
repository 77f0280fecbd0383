import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScenarioRules } from './scenario-rules.js';

// A real HTTP server on an ephemeral port that answers like the Gemini API (generativelanguage):
// generateContent JSON, streamGenerateContent as SSE (`alt=sse`, events ending in CRLF CRLF) or as
// one streamed JSON array, thought parts when `includeThoughts` is asked for, function calls,
// usageMetadata with cached and thought tokens, countTokens, the model list, and Google error
// bodies, with scenarios for the failures the relay must survive. Test side only.

export interface RecordedGeminiRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The key from `x-goog-api-key` or `?key=`. */
  apiKey: string | undefined;
  version: string | undefined;
  model: string | undefined;
  action: string | undefined;
  body: Buffer;
  json: Record<string, unknown> | undefined;
}

export interface GeminiOkScenario {
  kind: 'ok';
  /** Answer text (default: a fixed sentence; none when function calls are given and this is unset). */
  content?: string;
  /** Thought summary, sent only when the request asks for `includeThoughts` (as Gemini does). */
  thoughts?: string;
  functionCalls?: { name: string; args: Record<string, unknown> }[];
  /** Default STOP. */
  finishReason?: string;
  /** Blocks the prompt: no candidates, `promptFeedback.blockReason` set to this. */
  blockReason?: string;
  /** How many events the text is split into (default: one per word). */
  chunks?: number;
  promptTokens?: number;
  /** Default: one per text event plus one per function call. */
  candidatesTokens?: number;
  cachedTokens?: number;
  /** Default: one per thought event, or 0. */
  thoughtsTokens?: number;
  firstByteDelayMs?: number;
  chunkDelayMs?: number;
  /** Destroys the socket after this many events. */
  breakAfterEvents?: number;
  /** Sends an INTERNAL error object after this many events and ends the stream. */
  errorAfterEvents?: number;
  headers?: Record<string, string>;
}

export interface GeminiErrorScenario {
  kind: 'error';
  status: number;
  error?: { code: number; message: string; status: string; details?: unknown[] };
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export type GeminiScenario = GeminiOkScenario | GeminiErrorScenario;

const googleError = (
  code: number,
  status: string,
  message: string,
  details?: unknown[],
): GeminiErrorScenario => ({
  kind: 'error',
  status: code,
  error: { code, message, status, ...(details ? { details } : {}) },
});

/** Google's error bodies for the common failures of the Gemini API. */
export const fakeGeminiErrors = {
  invalidArgument: (message = '* GenerateContentRequest.contents: contents is not specified\n') =>
    googleError(400, 'INVALID_ARGUMENT', message),
  invalidApiKey: () =>
    googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
    ]),
  permissionDenied: () =>
    googleError(
      403,
      'PERMISSION_DENIED',
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    ),
  notFound: (model = 'gemini-nope', version = 'v1beta') =>
    googleError(
      404,
      'NOT_FOUND',
      `models/${model} is not found for API version ${version}, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
    ),
  resourceExhausted: () =>
    googleError(
      429,
      'RESOURCE_EXHAUSTED',
      'You exceeded your current quota, please check your plan and billing details.',
    ),
  internal: () =>
    googleError(
      500,
      'INTERNAL',
      'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
    ),
  unavailable: () => googleError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'),
};

export interface FakeGeminiOptions {
  /** When set, requests must carry one of these keys; a wrong key gets API_KEY_INVALID, none a 403. */
  apiKey?: string | string[];
  models?: string[];
}

export interface FakeGemini {
  /** `http://127.0.0.1:<port>` (the API is under `/{version}`). */
  url: string;
  requests: RecordedGeminiRequest[];
  setScenario(scenario: GeminiScenario, options?: { model?: string; times?: number }): void;
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_CONTENT = 'Hello from the fake Gemini upstream.';
const DEFAULT_MODELS = ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-3-pro-preview'];
const DEFAULT_PROMPT_TOKENS = 10;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function split(text: string, n: number | undefined): string[] {
  if (!text) return [];
  if (!n || n <= 0) return text.split(/(?<=\s)/).filter((w) => w.length > 0);
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function wantsThoughts(json: Record<string, unknown> | undefined): boolean {
  const config = json?.generationConfig ?? json?.generation_config;
  const thinking = isRecord(config) ? (config.thinkingConfig ?? config.thinking_config) : undefined;
  return isRecord(thinking) && (thinking.includeThoughts === true || thinking.include_thoughts === true);
}

type Part = Record<string, unknown>;

export async function startFakeGemini(options: FakeGeminiOptions = {}): Promise<FakeGemini> {
  const keys = options.apiKey === undefined ? [] : [options.apiKey].flat();
  const models = options.models ?? DEFAULT_MODELS;
  const requests: RecordedGeminiRequest[] = [];
  const rules = new ScenarioRules<GeminiScenario>({ kind: 'ok' });
  let counter = 0;

  async function record(req: IncomingMessage): Promise<RecordedGeminiRequest> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = req.url ?? '/';
    const parsed = new URL(url, 'http://fake.local');
    const m = /^\/(v[^/]+)\/models(?:\/([^/:]+)(?::(\w+))?)?$/.exec(parsed.pathname);
    let json: Record<string, unknown> | undefined;
    if (body.length) {
      try {
        const v = JSON.parse(body.toString('utf8')) as unknown;
        if (isRecord(v)) json = v;
      } catch {
        json = undefined;
      }
    }
    const header = req.headers['x-goog-api-key'];
    const rec: RecordedGeminiRequest = {
      method: req.method ?? 'GET',
      url,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: req.headers,
      apiKey: (Array.isArray(header) ? header[0] : header) ?? parsed.searchParams.get('key') ?? undefined,
      version: m?.[1],
      model: m?.[2] ? decodeURIComponent(m[2]) : undefined,
      action: m?.[3],
      body,
      json,
    };
    requests.push(rec);
    return rec;
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=UTF-8',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  }

  function sendError(res: ServerResponse, s: GeminiErrorScenario) {
    if (s.body !== undefined) {
      res.writeHead(s.status, { 'content-type': s.contentType ?? 'text/plain', ...s.headers });
      res.end(s.body);
      return;
    }
    send(
      res,
      s.status,
      { error: s.error ?? { code: s.status, message: 'fake upstream error', status: 'INTERNAL' } },
      s.headers,
    );
  }

  /** The responses of one answer: one per thought or text piece, the calls together, the finish on the last. */
  function responses(rec: RecordedGeminiRequest, s: GeminiOkScenario): Record<string, unknown>[] {
    const calls = s.functionCalls ?? [];
    const content = s.content ?? (calls.length ? '' : DEFAULT_CONTENT);
    const thoughts = wantsThoughts(rec.json) ? split(s.thoughts ?? '', s.chunks) : [];
    const texts = split(content, s.chunks);
    const prompt = s.promptTokens ?? DEFAULT_PROMPT_TOKENS;
    const candidatesTotal = s.candidatesTokens ?? texts.length + calls.length;
    const thoughtsTotal = s.thoughtsTokens ?? split(s.thoughts ?? '', s.chunks).length;
    const signature = Buffer.from(`fake-thought-signature-${counter}`).toString('base64');
    const steps: Part[][] = [
      ...thoughts.map((t) => [{ text: t, thought: true }]),
      ...texts.map((t) => [{ text: t }]),
    ];
    if (calls.length) steps.push(calls.map((c) => ({ functionCall: { name: c.name, args: c.args } })));
    if (steps.length === 0) steps.push([{ text: '' }]);
    // A thinking model signs the first part after its thoughts.
    if (s.thoughts) {
      const first = steps[thoughts.length]?.[0];
      if (first) first.thoughtSignature = signature;
    }
    const usage = (done: number) => {
      const candidatesTokenCount = Math.min(candidatesTotal, done);
      const u: Record<string, unknown> = {
        promptTokenCount: prompt,
        candidatesTokenCount,
        totalTokenCount: prompt + candidatesTokenCount + thoughtsTotal,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
      };
      if (s.cachedTokens) {
        u.cachedContentTokenCount = s.cachedTokens;
        u.cacheTokensDetails = [{ modality: 'TEXT', tokenCount: s.cachedTokens }];
      }
      if (thoughtsTotal) u.thoughtsTokenCount = thoughtsTotal;
      return u;
    };
    const base = { modelVersion: rec.model ?? 'gemini-2.5-flash', responseId: `fakeResp${counter}` };
    if (s.blockReason) {
      return [{ promptFeedback: { blockReason: s.blockReason }, usageMetadata: usage(0), ...base }];
    }
    let produced = 0;
    return steps.map((parts, i) => {
      const last = i === steps.length - 1;
      if (!parts.some((p) => p.thought === true)) produced += parts.length;
      const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
      if (last) candidate.finishReason = s.finishReason ?? 'STOP';
      return { candidates: [candidate], usageMetadata: usage(last ? candidatesTotal : produced), ...base };
    });
  }

  /** The non-streaming reply: the stream's parts merged into one candidate. */
  function merged(list: Record<string, unknown>[]): Record<string, unknown> {
    const last = list[list.length - 1] ?? {};
    if (!Array.isArray(last.candidates)) return last;
    const parts: Part[] = [];
    for (const r of list) {
      const c = (r.candidates as Record<string, unknown>[])[0];
      const content = c?.content as { parts: Part[] } | undefined;
      for (const p of content?.parts ?? []) {
        const prev = parts[parts.length - 1];
        // Consecutive text pieces of one kind arrive as one part in a non-streaming reply.
        if (
          prev &&
          typeof prev.text === 'string' &&
          typeof p.text === 'string' &&
          prev.thought === p.thought &&
          !p.thoughtSignature
        ) {
          prev.text += p.text;
        } else parts.push({ ...p });
      }
    }
    const lastCandidate = (last.candidates as Record<string, unknown>[])[0] ?? {};
    return { ...last, candidates: [{ ...lastCandidate, content: { parts, role: 'model' } }] };
  }

  async function stream(
    req: IncomingMessage,
    res: ServerResponse,
    rec: RecordedGeminiRequest,
    s: GeminiOkScenario,
  ) {
    const sse = rec.query.get('alt') === 'sse';
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    res.writeHead(200, {
      'content-type': sse ? 'text/event-stream' : 'application/json; charset=UTF-8',
      ...s.headers,
    });
    const list = responses(rec, s);
    let sent = 0;
    let flushed: Promise<void> = Promise.resolve();
    const frame = (payload: unknown, first: boolean) =>
      sse ? `data: ${JSON.stringify(payload)}\r\n\r\n` : `${first ? '[' : ',\r\n'}${JSON.stringify(payload)}`;
    for (const payload of list) {
      if (closed) return;
      if (s.breakAfterEvents !== undefined && sent >= s.breakAfterEvents) {
        await flushed;
        await sleep(10);
        req.socket.destroy();
        return;
      }
      if (s.errorAfterEvents !== undefined && sent >= s.errorAfterEvents) {
        const failure = fakeGeminiErrors.internal().error;
        res.end(`${frame({ error: failure }, sent === 0)}${sse ? '' : ']'}`);
        return;
      }
      if (sent > 0 && s.chunkDelayMs) await sleep(s.chunkDelayMs);
      if (closed) return;
      const text = frame(payload, sent === 0);
      flushed = new Promise((resolve) => res.write(text, () => resolve()));
      sent++;
    }
    res.end(sse ? '' : ']');
  }

  /** Embeddings as the API sends them: `values` per text, no usage; the vector's size follows outputDimensionality. */
  function embed(res: ServerResponse, rec: RecordedGeminiRequest, action: string) {
    const vector = (r: Record<string, unknown> | undefined) => {
      const size = typeof r?.outputDimensionality === 'number' ? r.outputDimensionality : 8;
      const text = JSON.stringify(r?.content ?? '');
      return { values: Array.from({ length: size }, (_, i) => ((text.length + i) % 10) / 10) };
    };
    if (action === 'embedContent') return send(res, 200, { embedding: vector(rec.json) });
    const requests = Array.isArray(rec.json?.requests)
      ? (rec.json.requests as Record<string, unknown>[])
      : [];
    const wrongModel = requests.find((r) => r.model !== `models/${rec.model}`);
    if (wrongModel || requests.length === 0) {
      return sendError(res, fakeGeminiErrors.invalidArgument('Each request must name the model of the URL.'));
    }
    send(res, 200, { embeddings: requests.map(vector) });
  }

  function countTokens(res: ServerResponse, rec: RecordedGeminiRequest) {
    const text = JSON.stringify(rec.json?.contents ?? rec.json?.generateContentRequest ?? '');
    const totalTokens = Math.max(1, Math.ceil(text.length / 4));
    send(res, 200, { totalTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: totalTokens }] });
  }

  function listModels(res: ServerResponse) {
    send(res, 200, {
      models: models.map((id) => ({
        name: `models/${id}`,
        version: '001',
        displayName: id,
        inputTokenLimit: 1048576,
        outputTokenLimit: 65536,
        supportedGenerationMethods: ['generateContent', 'countTokens'],
      })),
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    counter++;
    const rec = await record(req);
    if (keys.length > 0) {
      if (!rec.apiKey) return sendError(res, fakeGeminiErrors.permissionDenied());
      if (!keys.includes(rec.apiKey)) return sendError(res, fakeGeminiErrors.invalidApiKey());
    }
    if (!rec.version) return sendError(res, googleError(404, 'NOT_FOUND', 'Not Found'));
    if (req.method === 'GET' && !rec.model) return listModels(res);
    const action = rec.action;
    if (req.method !== 'POST' || !rec.model || !action)
      return sendError(res, googleError(404, 'NOT_FOUND', 'Not Found'));
    if (
      ![
        'generateContent',
        'streamGenerateContent',
        'countTokens',
        'embedContent',
        'batchEmbedContents',
      ].includes(action)
    ) {
      return sendError(res, googleError(404, 'NOT_FOUND', `Method ${action} not found`));
    }
    if (!rec.json) return sendError(res, fakeGeminiErrors.invalidArgument('Invalid JSON payload received.'));
    if (action === 'countTokens') return countTokens(res, rec);
    if (action === 'embedContent' || action === 'batchEmbedContents') return embed(res, rec, action);
    if (!Array.isArray(rec.json.contents) || rec.json.contents.length === 0) {
      return sendError(res, fakeGeminiErrors.invalidArgument());
    }
    const s = rules.pick(rec.model);
    if (s.kind === 'error') return sendError(res, s);
    if (s.firstByteDelayMs) {
      await sleep(s.firstByteDelayMs);
      if (req.socket.destroyed) return;
    }
    if (action === 'streamGenerateContent') return stream(req, res, rec, s);
    send(res, 200, merged(responses(rec, s)), s.headers);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        send(res, 500, { error: { code: 500, message: String(err), status: 'INTERNAL' } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setScenario(scenario, opts = {}) {
      rules.add(scenario, opts);
    },
    reset() {
      rules.clear();
      requests.length = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
