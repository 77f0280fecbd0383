import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScenarioRules, type SetScenarioOptions } from './scenario-rules.js';

// A real HTTP server on an ephemeral port that answers like the OpenAI API (JSON bodies, SSE
// streams, multipart uploads, binary audio, OpenAI error bodies), with scenarios for the failures
// the relay must survive: errors, slow first byte, slow chunks, broken sockets, mid-stream errors.
// It is the outside world of the relay tests; nothing in it is used by the server itself.

export interface RecordedRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  authorization: string | undefined;
  body: Buffer;
  /** The JSON body, when it was JSON. */
  json: Record<string, unknown> | undefined;
  /** Text fields of a multipart body. */
  form: Record<string, string> | undefined;
  /** File parts of a multipart body: field name -> size and file name. */
  files: Record<string, { filename: string; size: number; contentType: string }> | undefined;
  /** The model: JSON `model`, form `model`, or the Azure deployment in the path. */
  model: string | undefined;
  endpoint: string;
}

export interface OkScenario {
  kind: 'ok';
  /** Generated text (chat, completions, transcriptions). */
  content?: string;
  /** Streaming: how many content chunks the text is split into (default: one per word). */
  chunks?: number;
  /** Reasoning text sent as `reasoning_content` before the answer (DeepSeek style). */
  reasoning?: string;
  toolCalls?: { name: string; arguments: string }[];
  /**
   * `auto` (default): JSON replies carry usage; streams carry the usage chunk only when the request
   * asked for `stream_options.include_usage`, as OpenAI does. `always` streams it regardless,
   * `never` omits it everywhere.
   */
  usage?: 'auto' | 'always' | 'never';
  promptTokens?: number;
  /** Default: one per content chunk per choice (plus tool-call chunks). */
  completionTokens?: number;
  cachedTokens?: number;
  reasoningTokens?: number;
  /** Delay before the status line. */
  firstByteDelayMs?: number;
  /** Delay between SSE events. */
  chunkDelayMs?: number;
  /** Destroys the socket after this many SSE events (a broken stream). */
  breakAfterEvents?: number;
  /** Sends an OpenAI error event after this many SSE events and ends the stream without [DONE]. */
  errorAfterEvents?: number;
  /** Size in bytes of each generated image's base64 payload (default: a 1x1 PNG). */
  imageBytes?: number;
  /** Size of the audio/speech body (default 2048). */
  audioBytes?: number;
  headers?: Record<string, string>;
}

export interface ErrorScenario {
  kind: 'error';
  status: number;
  /** OpenAI error object; ignored when `body` is given. */
  error?: { message: string; type: string; code: string | null; param?: string | null };
  /** A raw body (text, HTML) instead of the OpenAI JSON. */
  body?: string;
  contentType?: string;
  firstByteDelayMs?: number;
  headers?: Record<string, string>;
}

export type FakeScenario = OkScenario | ErrorScenario;

/** OpenAI's error bodies for the common failures, as the real API sends them. */
export const fakeErrors = {
  badRequest: (message = "Invalid value for 'messages': empty array."): ErrorScenario => ({
    kind: 'error',
    status: 400,
    error: { message, type: 'invalid_request_error', code: null, param: 'messages' },
  }),
  contextLength: (): ErrorScenario => ({
    kind: 'error',
    status: 400,
    error: {
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
      param: 'messages',
    },
  }),
  invalidApiKey: (): ErrorScenario => ({
    kind: 'error',
    status: 401,
    error: {
      message:
        'Incorrect API key provided: sk-fake***. You can find your API key at https://platform.openai.com/account/api-keys.',
      type: 'invalid_request_error',
      code: 'invalid_api_key',
      param: null,
    },
  }),
  forbidden: (): ErrorScenario => ({
    kind: 'error',
    status: 403,
    error: {
      message: 'Country, region, or territory not supported',
      type: 'request_forbidden',
      code: 'unsupported_country_region_territory',
      param: null,
    },
  }),
  rateLimited: (): ErrorScenario => ({
    kind: 'error',
    status: 429,
    error: {
      message:
        'Rate limit reached for gpt-4o in organization org-fake on requests per min (RPM): Limit 3, Used 3.',
      type: 'requests',
      code: 'rate_limit_exceeded',
      param: null,
    },
    headers: { 'retry-after': '1' },
  }),
  insufficientQuota: (): ErrorScenario => ({
    kind: 'error',
    status: 429,
    error: {
      message: 'You exceeded your current quota, please check your plan and billing details.',
      type: 'insufficient_quota',
      code: 'insufficient_quota',
      param: null,
    },
  }),
  serverError: (): ErrorScenario => ({
    kind: 'error',
    status: 500,
    error: {
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      code: null,
      param: null,
    },
  }),
  badGatewayHtml: (): ErrorScenario => ({
    kind: 'error',
    status: 502,
    contentType: 'text/html',
    body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
  }),
};

export interface FakeUpstreamOptions {
  /** When set, requests must carry `Authorization: Bearer <key>` or `api-key: <key>`; else 401. */
  apiKey?: string | string[];
  /** Model ids of `GET /models`. */
  models?: string[];
}

export type { SetScenarioOptions } from './scenario-rules.js';

export interface FakeUpstream {
  /** `http://127.0.0.1:<port>` (the OpenAI API root is `${url}/v1`). */
  url: string;
  requests: RecordedRequest[];
  setScenario(scenario: FakeScenario, options?: SetScenarioOptions): void;
  /** Forgets scenarios and recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_CONTENT = 'Hello from the fake upstream.';
const DEFAULT_MODELS = ['gpt-4o-mini', 'gpt-4o', 'text-embedding-3-small', 'dall-e-3', 'tts-1', 'whisper-1'];
const DEFAULT_PROMPT_TOKENS = 10;
// A valid 1x1 transparent PNG.
const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const ENDPOINTS = [
  'chat/completions',
  'completions',
  'embeddings',
  'moderations',
  'images/generations',
  'images/edits',
  'images/variations',
  'audio/speech',
  'audio/transcriptions',
  'audio/translations',
  'rerank',
  'models',
];

function endpointOf(path: string): { endpoint: string; deployment?: string; modelId?: string } {
  const azure = /\/openai\/deployments\/([^/]+)\/(.+)$/.exec(path);
  if (azure?.[1] && azure[2]) return { endpoint: azure[2], deployment: decodeURIComponent(azure[1]) };
  const modelOne = /\/models\/([^/]+)$/.exec(path);
  if (modelOne?.[1]) return { endpoint: 'models/:id', modelId: decodeURIComponent(modelOne[1]) };
  for (const e of ENDPOINTS) if (path.endsWith(`/${e}`)) return { endpoint: e };
  return { endpoint: '' };
}

interface MultipartPart {
  name: string;
  filename: string | undefined;
  contentType: string;
  data: Buffer;
}

/** A small buffered multipart/form-data parser (test side only). */
export function parseMultipart(body: Buffer, contentType: string): MultipartPart[] {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) return [];
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const headerEnd = body.indexOf('\r\n\r\n', start);
    if (headerEnd === -1) break;
    const headers = body.toString('latin1', start, headerEnd);
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headerEnd + 4);
    if (next === -1) break;
    const name = /name="([^"]*)"/i.exec(headers)?.[1] ?? '';
    const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
    const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1] ?? 'text/plain';
    parts.push({ name, filename, contentType: type, data: body.subarray(headerEnd + 4, next) });
    at = next + 2;
  }
  return parts;
}

function words(text: string): string[] {
  return text.split(/(?<=\s)/).filter((w) => w.length > 0);
}

function splitInto(text: string, n: number | undefined): string[] {
  if (!text) return [];
  if (!n || n <= 0) return words(text);
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function embeddingVector(seed: number, dims: number): number[] {
  const v: number[] = [];
  for (let i = 0; i < dims; i++) v.push(Math.round(Math.sin(seed * 31 + i) * 1e6) / 1e6);
  return v;
}

function float32Base64(values: number[]): string {
  return Buffer.from(new Float32Array(values).buffer).toString('base64');
}

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const keys = options.apiKey === undefined ? [] : [options.apiKey].flat();
  const models = options.models ?? DEFAULT_MODELS;
  const requests: RecordedRequest[] = [];
  const rules = new ScenarioRules<FakeScenario>({ kind: 'ok' });
  let counter = 0;

  async function record(req: IncomingMessage): Promise<RecordedRequest> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = req.url ?? '/';
    const parsedUrl = new URL(url, 'http://fake.local');
    const path = parsedUrl.pathname;
    const { endpoint, deployment } = endpointOf(path);
    const type = req.headers['content-type'] ?? '';
    let json: Record<string, unknown> | undefined;
    let form: Record<string, string> | undefined;
    let files: RecordedRequest['files'];
    if (/json/i.test(type) && body.length) {
      try {
        const v = JSON.parse(body.toString('utf8')) as unknown;
        if (typeof v === 'object' && v !== null && !Array.isArray(v)) json = v as Record<string, unknown>;
      } catch {
        json = undefined;
      }
    } else if (/multipart\/form-data/i.test(type)) {
      form = {};
      files = {};
      for (const p of parseMultipart(body, type)) {
        if (p.filename !== undefined) {
          files[p.name] = { filename: p.filename, size: p.data.length, contentType: p.contentType };
        } else {
          form[p.name] = p.data.toString('utf8');
        }
      }
    }
    const bodyModel = typeof json?.model === 'string' ? json.model : form?.model;
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      url,
      path,
      query: parsedUrl.searchParams,
      headers: req.headers,
      authorization: req.headers.authorization,
      body,
      json,
      form,
      files,
      model: deployment ?? bodyModel,
      endpoint,
    };
    requests.push(rec);
    return rec;
  }

  function authorized(req: IncomingMessage): boolean {
    if (keys.length === 0) return true;
    const auth = req.headers.authorization;
    const bearer = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
    const apiKey = req.headers['api-key'];
    return keys.some((k) => k === bearer || k === apiKey);
  }

  function sendJson(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'x-request-id': `req_fake_${counter}`,
      ...headers,
    });
    res.end(text);
  }

  async function sendError(res: ServerResponse, s: ErrorScenario) {
    if (s.firstByteDelayMs) await sleep(s.firstByteDelayMs);
    if (s.body !== undefined) {
      res.writeHead(s.status, { 'content-type': s.contentType ?? 'text/plain', ...s.headers });
      res.end(s.body);
      return;
    }
    const error = s.error ?? { message: `fake upstream error ${s.status}`, type: 'server_error', code: null };
    sendJson(res, s.status, { error: { param: null, ...error } }, s.headers);
  }

  function usageObject(s: OkScenario, completion: number) {
    const prompt = s.promptTokens ?? DEFAULT_PROMPT_TOKENS;
    const out = s.completionTokens ?? completion;
    return {
      prompt_tokens: prompt,
      completion_tokens: out,
      total_tokens: prompt + out,
      prompt_tokens_details: { cached_tokens: s.cachedTokens ?? 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: s.reasoningTokens ?? 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    };
  }

  async function streamEvents(
    req: IncomingMessage,
    res: ServerResponse,
    s: OkScenario,
    events: unknown[],
    errorEvent: unknown,
  ) {
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': `req_fake_${counter}`,
      ...s.headers,
    });
    let sent = 0;
    let flushed: Promise<void> = Promise.resolve();
    for (const event of events) {
      if (closed) return;
      if (s.breakAfterEvents !== undefined && sent >= s.breakAfterEvents) {
        // Let what was written reach the client first, or the break would look like a refusal.
        await flushed;
        await sleep(10);
        req.socket.destroy();
        return;
      }
      if (s.errorAfterEvents !== undefined && sent >= s.errorAfterEvents) {
        res.end(`data: ${JSON.stringify(errorEvent)}\n\n`);
        return;
      }
      if (sent > 0 && s.chunkDelayMs) await sleep(s.chunkDelayMs);
      if (closed) return;
      const text = `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`;
      flushed = new Promise((resolve) => res.write(text, () => resolve()));
      sent++;
    }
    res.end();
  }

  async function chat(req: IncomingMessage, res: ServerResponse, rec: RecordedRequest, s: OkScenario) {
    const body = rec.json ?? {};
    const model = rec.model ?? 'gpt-4o-mini';
    const legacy = rec.endpoint === 'completions';
    const n = typeof body.n === 'number' && body.n > 1 ? body.n : 1;
    const content = s.content ?? DEFAULT_CONTENT;
    const pieces = s.toolCalls?.length ? [] : splitInto(content, s.chunks);
    const reasoningPieces = splitInto(s.reasoning ?? '', s.chunks);
    const callPieces = (s.toolCalls ?? []).map((c) => splitInto(c.arguments, s.chunks));
    const completion =
      n * (pieces.length + reasoningPieces.length + callPieces.reduce((a, p) => a + p.length, 0));
    const id = `${legacy ? 'cmpl' : 'chatcmpl'}-fake${counter}`;
    const created = Math.floor(Date.now() / 1000);
    const finish = s.toolCalls?.length ? 'tool_calls' : 'stop';
    const calls = (s.toolCalls ?? []).map((c, i) => ({
      id: `call_fake_${counter}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));

    if (body.stream !== true) {
      const choices = Array.from({ length: n }, (_, index) =>
        legacy
          ? { text: content, index, logprobs: null, finish_reason: 'stop' }
          : {
              index,
              message: {
                role: 'assistant',
                content: calls.length ? null : content,
                ...(s.reasoning ? { reasoning_content: s.reasoning } : {}),
                ...(calls.length ? { tool_calls: calls } : {}),
                refusal: null,
                annotations: [],
              },
              logprobs: null,
              finish_reason: finish,
            },
      );
      const reply: Record<string, unknown> = {
        id,
        object: legacy ? 'text_completion' : 'chat.completion',
        created,
        model,
        choices,
      };
      if (s.usage !== 'never') reply.usage = usageObject(s, completion);
      reply.system_fingerprint = 'fp_fake';
      sendJson(res, 200, reply, s.headers);
      return;
    }

    const options = body.stream_options;
    const asked =
      typeof options === 'object' &&
      options !== null &&
      (options as Record<string, unknown>).include_usage === true;
    const withUsage = s.usage === 'always' || (s.usage !== 'never' && asked);
    const base = (choices: unknown[]) => ({
      id,
      object: legacy ? 'text_completion' : 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_fake',
      choices,
      ...(asked ? { usage: null } : {}),
    });
    const events: unknown[] = [];
    for (let index = 0; index < n; index++) {
      if (!legacy) {
        events.push(
          base([
            {
              index,
              delta: { role: 'assistant', content: '', refusal: null },
              logprobs: null,
              finish_reason: null,
            },
          ]),
        );
      }
      for (const r of reasoningPieces) {
        events.push(base([{ index, delta: { reasoning_content: r }, logprobs: null, finish_reason: null }]));
      }
      calls.forEach((call, i) => {
        events.push(
          base([
            {
              index,
              delta: {
                tool_calls: [
                  {
                    index: i,
                    id: call.id,
                    type: 'function',
                    function: { name: call.function.name, arguments: '' },
                  },
                ],
              },
              logprobs: null,
              finish_reason: null,
            },
          ]),
        );
        for (const a of callPieces[i] ?? []) {
          events.push(
            base([
              {
                index,
                delta: { tool_calls: [{ index: i, function: { arguments: a } }] },
                logprobs: null,
                finish_reason: null,
              },
            ]),
          );
        }
      });
      for (const p of pieces) {
        events.push(
          base([
            legacy
              ? { text: p, index, logprobs: null, finish_reason: null }
              : { index, delta: { content: p }, logprobs: null, finish_reason: null },
          ]),
        );
      }
      events.push(
        base([
          legacy
            ? { text: '', index, logprobs: null, finish_reason: 'stop' }
            : { index, delta: {}, logprobs: null, finish_reason: finish },
        ]),
      );
    }
    if (withUsage) events.push({ ...base([]), usage: usageObject(s, completion) });
    events.push('[DONE]');
    const errorEvent = {
      error: {
        message: 'The server had an error while processing your request.',
        type: 'server_error',
        param: null,
        code: null,
      },
    };
    await streamEvents(req, res, s, events, errorEvent);
  }

  function embeddings(res: ServerResponse, rec: RecordedRequest, s: OkScenario) {
    const body = rec.json ?? {};
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    const dims = typeof body.dimensions === 'number' ? body.dimensions : 8;
    const base64 = body.encoding_format === 'base64';
    const data = inputs.map((_, index) => {
      const v = embeddingVector(index + 1, dims);
      return { object: 'embedding', index, embedding: base64 ? float32Base64(v) : v };
    });
    const prompt = s.promptTokens ?? inputs.length * DEFAULT_PROMPT_TOKENS;
    const reply: Record<string, unknown> = {
      object: 'list',
      data,
      model: rec.model ?? 'text-embedding-3-small',
    };
    if (s.usage !== 'never') reply.usage = { prompt_tokens: prompt, total_tokens: prompt };
    sendJson(res, 200, reply, s.headers);
  }

  function images(res: ServerResponse, rec: RecordedRequest, s: OkScenario) {
    const fields: Record<string, unknown> = rec.json ?? rec.form ?? {};
    const model = rec.model ?? 'dall-e-2';
    const n = Number(fields.n ?? 1) || 1;
    const gptImage = model.startsWith('gpt-image');
    const b64 = gptImage || fields.response_format === 'b64_json';
    const payload = s.imageBytes ? Buffer.alloc(s.imageBytes, 7).toString('base64') : TINY_PNG;
    const data = Array.from({ length: n }, (_, i) =>
      b64
        ? {
            b64_json: payload,
            ...(model === 'dall-e-3' ? { revised_prompt: String(fields.prompt ?? '') } : {}),
          }
        : { url: `https://fake-upstream.invalid/images/${counter}-${i}.png` },
    );
    const reply: Record<string, unknown> = { created: Math.floor(Date.now() / 1000), data };
    if (gptImage && s.usage !== 'never') {
      const text = s.promptTokens ?? DEFAULT_PROMPT_TOKENS;
      const output = s.completionTokens ?? 272 * n;
      reply.usage = {
        input_tokens: text,
        input_tokens_details: { text_tokens: text, image_tokens: 0 },
        output_tokens: output,
        total_tokens: text + output,
      };
    }
    sendJson(res, 200, reply, s.headers);
  }

  function speech(res: ServerResponse, rec: RecordedRequest, s: OkScenario) {
    const format = String(rec.json?.response_format ?? 'mp3');
    const types: Record<string, string> = {
      mp3: 'audio/mpeg',
      opus: 'audio/opus',
      aac: 'audio/aac',
      flac: 'audio/flac',
      wav: 'audio/wav',
      pcm: 'audio/pcm',
    };
    const size = s.audioBytes ?? 2048;
    const audio = Buffer.alloc(size, 0x55);
    Buffer.from('ID3').copy(audio, 0);
    res.writeHead(200, {
      'content-type': types[format] ?? 'audio/mpeg',
      'content-length': audio.length,
      ...s.headers,
    });
    res.end(audio);
  }

  function transcription(res: ServerResponse, rec: RecordedRequest, s: OkScenario) {
    const form = rec.form ?? {};
    const format = form.response_format ?? 'json';
    const text = s.content ?? DEFAULT_CONTENT;
    const model = rec.model ?? 'whisper-1';
    const duration = 1.5;
    if (format === 'text' || format === 'srt' || format === 'vtt') {
      const body =
        format === 'text'
          ? `${text}\n`
          : format === 'srt'
            ? `1\n00:00:00,000 --> 00:00:01,500\n${text}\n\n`
            : `WEBVTT\n\n00:00:00.000 --> 00:00:01.500\n${text}\n\n`;
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', ...s.headers });
      res.end(body);
      return;
    }
    const tokenUsage = model.startsWith('gpt-4o');
    const prompt = s.promptTokens ?? DEFAULT_PROMPT_TOKENS;
    const output = s.completionTokens ?? words(text).length;
    const usage = tokenUsage
      ? {
          type: 'tokens',
          input_tokens: prompt,
          input_token_details: { text_tokens: 0, audio_tokens: prompt },
          output_tokens: output,
          total_tokens: prompt + output,
        }
      : { type: 'duration', seconds: Math.ceil(duration) };
    const reply: Record<string, unknown> =
      format === 'verbose_json'
        ? {
            task: rec.endpoint === 'audio/translations' ? 'translate' : 'transcribe',
            language: 'english',
            duration,
            text,
            segments: [],
          }
        : { text };
    if (s.usage !== 'never' && rec.endpoint === 'audio/transcriptions') reply.usage = usage;
    sendJson(res, 200, reply, s.headers);
  }

  function moderations(res: ServerResponse, rec: RecordedRequest, s: OkScenario) {
    const input = rec.json?.input;
    const inputs = Array.isArray(input) ? input : [input];
    const categories = ['harassment', 'hate', 'self-harm', 'sexual', 'violence'];
    const results = inputs.map((item) => {
      const flagged = typeof item === 'string' && /\bkill\b/i.test(item);
      return {
        flagged,
        categories: Object.fromEntries(categories.map((c) => [c, flagged && c === 'violence'])),
        category_scores: Object.fromEntries(
          categories.map((c) => [c, flagged && c === 'violence' ? 0.97 : 0.0001]),
        ),
      };
    });
    sendJson(
      res,
      200,
      { id: `modr-fake${counter}`, model: rec.model ?? 'omni-moderation-latest', results },
      s.headers,
    );
  }

  function rerank(res: ServerResponse, rec: RecordedRequest, s: OkScenario) {
    const body = rec.json ?? {};
    const docs = Array.isArray(body.documents) ? body.documents : [];
    const topN = typeof body.top_n === 'number' ? body.top_n : docs.length;
    const results = docs
      .map((d, index) => ({
        index,
        relevance_score: Math.round((1 / (index + 1)) * 1e4) / 1e4,
        ...(body.return_documents === false
          ? {}
          : { document: { text: typeof d === 'string' ? d : JSON.stringify(d) } }),
      }))
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, topN);
    const prompt = s.promptTokens ?? DEFAULT_PROMPT_TOKENS;
    const reply: Record<string, unknown> = {
      model: rec.model ?? 'jina-reranker-v2-base-multilingual',
      results,
    };
    if (s.usage !== 'never') reply.usage = { total_tokens: prompt, prompt_tokens: prompt };
    sendJson(res, 200, reply, s.headers);
  }

  function listModels(res: ServerResponse) {
    sendJson(res, 200, {
      object: 'list',
      data: models.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'fake' })),
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    counter++;
    const rec = await record(req);
    if (!authorized(req)) {
      await sendError(res, fakeErrors.invalidApiKey());
      return;
    }
    const s = rules.pick(rec.model);
    if (s.kind === 'error') {
      await sendError(res, s);
      return;
    }
    if (s.firstByteDelayMs) {
      await sleep(s.firstByteDelayMs);
      if (req.socket.destroyed) return;
    }
    switch (rec.endpoint) {
      case 'chat/completions':
      case 'completions':
        return chat(req, res, rec, s);
      case 'embeddings':
        return embeddings(res, rec, s);
      case 'images/generations':
      case 'images/edits':
      case 'images/variations':
        return images(res, rec, s);
      case 'audio/speech':
        return speech(res, rec, s);
      case 'audio/transcriptions':
      case 'audio/translations':
        return transcription(res, rec, s);
      case 'moderations':
        return moderations(res, rec, s);
      case 'rerank':
        return rerank(res, rec, s);
      case 'models':
        return listModels(res);
      case 'models/:id': {
        const id = endpointOf(rec.path).modelId ?? '';
        if (models.includes(id)) {
          sendJson(res, 200, { id, object: 'model', created: 1700000000, owned_by: 'fake' });
        } else {
          sendJson(res, 404, {
            error: {
              message: `The model '${id}' does not exist`,
              type: 'invalid_request_error',
              param: 'model',
              code: 'model_not_found',
            },
          });
        }
        return;
      }
      default:
        sendJson(res, 404, {
          error: {
            message: `Unknown request URL: ${req.method} ${rec.path}.`,
            type: 'invalid_request_error',
            param: null,
            code: 'unknown_url',
          },
        });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, {
          error: { message: String(err), type: 'server_error', param: null, code: null },
        });
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
