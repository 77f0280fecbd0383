import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScenarioRules } from './scenario-rules.js';

// A real HTTP server on an ephemeral port that answers like the Anthropic Messages API: Message
// JSON, SSE streams with the real event sequence (message_start, ping, content blocks for thinking
// with its signature, text and tool_use with input_json_delta fragments, message_delta with the
// stop reason and usage, message_stop), count_tokens, the model list, and Anthropic error bodies,
// with scenarios for the failures the relay must survive. Test side only.

export interface RecordedAnthropicRequest {
  method: string;
  url: string;
  path: string;
  headers: IncomingHttpHeaders;
  apiKey: string | undefined;
  version: string | undefined;
  beta: string | undefined;
  body: Buffer;
  json: Record<string, unknown> | undefined;
  model: string | undefined;
}

export interface AnthropicToolCallScenario {
  name: string;
  input: Record<string, unknown>;
}

export interface AnthropicOkScenario {
  kind: 'ok';
  /** Answer text (default: a fixed sentence; none when tool calls are given and this is unset). */
  content?: string;
  /** A thinking block before the answer, with a signature, as extended thinking sends it. */
  thinking?: string;
  toolCalls?: AnthropicToolCallScenario[];
  /** Default: `tool_use` with tool calls, else `end_turn`. */
  stopReason?: string;
  /** How many deltas each text, thinking and tool input is split into (default: one per word). */
  chunks?: number;
  /** `input_tokens`: the prompt tokens outside the cache (default 10). */
  inputTokens?: number;
  /** Default: one per delta sent. */
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  firstByteDelayMs?: number;
  chunkDelayMs?: number;
  /** Destroys the socket after this many SSE events. */
  breakAfterEvents?: number;
  /** Sends an `overloaded_error` error event after this many SSE events and ends the stream. */
  errorAfterEvents?: number;
  headers?: Record<string, string>;
}

export interface AnthropicErrorScenario {
  kind: 'error';
  status: number;
  /** The `error` object; ignored when `body` is given. */
  error?: { type: string; message: string };
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export type AnthropicScenario = AnthropicOkScenario | AnthropicErrorScenario;

const error = (
  status: number,
  type: string,
  message: string,
  headers?: Record<string, string>,
): AnthropicErrorScenario => ({
  kind: 'error',
  status,
  error: { type, message },
  ...(headers ? { headers } : {}),
});

/** Anthropic's error bodies for the common failures. */
export const fakeAnthropicErrors = {
  invalidRequest: (message = 'messages: at least one message is required') =>
    error(400, 'invalid_request_error', message),
  creditTooLow: () =>
    error(
      400,
      'invalid_request_error',
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
    ),
  authentication: () => error(401, 'authentication_error', 'invalid x-api-key'),
  permission: () =>
    error(403, 'permission_error', 'Your API key does not have permission to use the specified resource.'),
  notFound: (model = 'claude-nope') => error(404, 'not_found_error', `model: ${model}`),
  requestTooLarge: () =>
    error(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'),
  rateLimited: () =>
    error(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit.', {
      'retry-after': '1',
    }),
  apiError: () => error(500, 'api_error', 'Internal server error'),
  overloaded: () => error(529, 'overloaded_error', 'Overloaded'),
};

export interface FakeAnthropicOptions {
  /** When set, requests must carry one of these in `x-api-key`; else 401. */
  apiKey?: string | string[];
  models?: string[];
}

export interface FakeAnthropic {
  /** `http://127.0.0.1:<port>` (the SDK's baseURL; the API is under `/v1`). */
  url: string;
  requests: RecordedAnthropicRequest[];
  setScenario(scenario: AnthropicScenario, options?: { model?: string; times?: number }): void;
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_CONTENT = 'Hello from the fake Anthropic upstream.';
const DEFAULT_MODELS = ['claude-sonnet-4-6', 'claude-opus-4-1', 'claude-haiku-4-5'];
const DEFAULT_INPUT_TOKENS = 10;

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

/** A signature-shaped opaque string (the real one is a base64 blob only Anthropic can verify). */
function fakeSignature(seed: number): string {
  return Buffer.from(`fake-thinking-signature-${seed}-${'x'.repeat(48)}`).toString('base64');
}

function sse(name: string, payload: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const keys = options.apiKey === undefined ? [] : [options.apiKey].flat();
  const models = options.models ?? DEFAULT_MODELS;
  const requests: RecordedAnthropicRequest[] = [];
  const rules = new ScenarioRules<AnthropicScenario>({ kind: 'ok' });
  let counter = 0;

  async function record(req: IncomingMessage): Promise<RecordedAnthropicRequest> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = req.url ?? '/';
    let json: Record<string, unknown> | undefined;
    if (body.length) {
      try {
        const v = JSON.parse(body.toString('utf8')) as unknown;
        if (typeof v === 'object' && v !== null && !Array.isArray(v)) json = v as Record<string, unknown>;
      } catch {
        json = undefined;
      }
    }
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const rec: RecordedAnthropicRequest = {
      method: req.method ?? 'GET',
      url,
      path: new URL(url, 'http://fake.local').pathname,
      headers: req.headers,
      apiKey: header('x-api-key'),
      version: header('anthropic-version'),
      beta: header('anthropic-beta'),
      body,
      json,
      model: typeof json?.model === 'string' ? json.model : undefined,
    };
    requests.push(rec);
    return rec;
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'request-id': `req_fake${counter}`,
      ...headers,
    });
    res.end(text);
  }

  function sendError(res: ServerResponse, s: AnthropicErrorScenario) {
    if (s.body !== undefined) {
      res.writeHead(s.status, { 'content-type': s.contentType ?? 'text/plain', ...s.headers });
      res.end(s.body);
      return;
    }
    const e = s.error ?? { type: 'api_error', message: `fake upstream error ${s.status}` };
    send(res, s.status, { type: 'error', error: e, request_id: `req_fake${counter}` }, s.headers);
  }

  /** The checks the real API makes before it looks at the scenario. */
  function invalid(rec: RecordedAnthropicRequest): AnthropicErrorScenario | null {
    const body = rec.json;
    if (!body) return fakeAnthropicErrors.invalidRequest('The request body is not valid JSON.');
    if (typeof body.model !== 'string') return fakeAnthropicErrors.invalidRequest('model: Field required');
    if (rec.path.endsWith('/messages') && typeof body.max_tokens !== 'number')
      return fakeAnthropicErrors.invalidRequest('max_tokens: Field required');
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return fakeAnthropicErrors.invalidRequest('messages: at least one message is required');
    return null;
  }

  function plan(s: AnthropicOkScenario) {
    const calls = s.toolCalls ?? [];
    const content = s.content ?? (calls.length ? '' : DEFAULT_CONTENT);
    const thinkingPieces = split(s.thinking ?? '', s.chunks);
    const textPieces = split(content, s.chunks);
    const callPieces = calls.map((c) => split(JSON.stringify(c.input), s.chunks));
    const deltas = thinkingPieces.length + textPieces.length + callPieces.reduce((a, p) => a + p.length, 0);
    const usage = {
      input_tokens: s.inputTokens ?? DEFAULT_INPUT_TOKENS,
      cache_creation_input_tokens: s.cacheWriteTokens ?? 0,
      cache_read_input_tokens: s.cacheReadTokens ?? 0,
      output_tokens: s.outputTokens ?? deltas,
    };
    const stopReason = s.stopReason ?? (calls.length ? 'tool_use' : 'end_turn');
    return { calls, content, thinkingPieces, textPieces, callPieces, usage, stopReason };
  }

  function message(rec: RecordedAnthropicRequest, s: AnthropicOkScenario) {
    const p = plan(s);
    const blocks: Record<string, unknown>[] = [];
    if (s.thinking)
      blocks.push({ type: 'thinking', thinking: s.thinking, signature: fakeSignature(counter) });
    if (p.content) blocks.push({ type: 'text', text: p.content });
    p.calls.forEach((c, i) => {
      blocks.push({ type: 'tool_use', id: `toolu_fake${counter}_${i}`, name: c.name, input: c.input });
    });
    return {
      id: `msg_fake${counter}`,
      type: 'message',
      role: 'assistant',
      model: rec.model ?? 'claude-sonnet-4-6',
      content: blocks,
      stop_reason: p.stopReason,
      stop_sequence: null,
      usage: { ...p.usage, service_tier: 'standard' },
    };
  }

  function streamEvents(rec: RecordedAnthropicRequest, s: AnthropicOkScenario): string[] {
    const p = plan(s);
    const events: string[] = [];
    events.push(
      sse('message_start', {
        type: 'message_start',
        message: {
          id: `msg_fake${counter}`,
          type: 'message',
          role: 'assistant',
          model: rec.model ?? 'claude-sonnet-4-6',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          // The prompt side is final here; output_tokens is a provisional count.
          usage: { ...p.usage, output_tokens: 1, service_tier: 'standard' },
        },
      }),
    );
    events.push(sse('ping', { type: 'ping' }));
    let index = 0;
    if (p.thinkingPieces.length) {
      const i = index++;
      events.push(
        sse('content_block_start', {
          type: 'content_block_start',
          index: i,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        }),
      );
      for (const t of p.thinkingPieces)
        events.push(
          sse('content_block_delta', {
            type: 'content_block_delta',
            index: i,
            delta: { type: 'thinking_delta', thinking: t },
          }),
        );
      events.push(
        sse('content_block_delta', {
          type: 'content_block_delta',
          index: i,
          delta: { type: 'signature_delta', signature: fakeSignature(counter) },
        }),
      );
      events.push(sse('content_block_stop', { type: 'content_block_stop', index: i }));
    }
    if (p.textPieces.length) {
      const i = index++;
      events.push(
        sse('content_block_start', {
          type: 'content_block_start',
          index: i,
          content_block: { type: 'text', text: '' },
        }),
      );
      for (const t of p.textPieces)
        events.push(
          sse('content_block_delta', {
            type: 'content_block_delta',
            index: i,
            delta: { type: 'text_delta', text: t },
          }),
        );
      events.push(sse('content_block_stop', { type: 'content_block_stop', index: i }));
    }
    p.calls.forEach((c, n) => {
      const i = index++;
      events.push(
        sse('content_block_start', {
          type: 'content_block_start',
          index: i,
          content_block: { type: 'tool_use', id: `toolu_fake${counter}_${n}`, name: c.name, input: {} },
        }),
      );
      // The API opens every tool input with an empty fragment.
      for (const part of ['', ...(p.callPieces[n] ?? [])])
        events.push(
          sse('content_block_delta', {
            type: 'content_block_delta',
            index: i,
            delta: { type: 'input_json_delta', partial_json: part },
          }),
        );
      events.push(sse('content_block_stop', { type: 'content_block_stop', index: i }));
    });
    events.push(
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: p.stopReason, stop_sequence: null },
        usage: {
          input_tokens: p.usage.input_tokens,
          cache_creation_input_tokens: p.usage.cache_creation_input_tokens,
          cache_read_input_tokens: p.usage.cache_read_input_tokens,
          output_tokens: p.usage.output_tokens,
        },
      }),
    );
    events.push(sse('message_stop', { type: 'message_stop' }));
    return events;
  }

  async function stream(req: IncomingMessage, res: ServerResponse, events: string[], s: AnthropicOkScenario) {
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': `req_fake${counter}`,
      ...s.headers,
    });
    let sent = 0;
    let flushed: Promise<void> = Promise.resolve();
    for (const event of events) {
      if (closed) return;
      if (s.breakAfterEvents !== undefined && sent >= s.breakAfterEvents) {
        await flushed;
        await sleep(10);
        req.socket.destroy();
        return;
      }
      if (s.errorAfterEvents !== undefined && sent >= s.errorAfterEvents) {
        res.end(sse('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
        return;
      }
      if (sent > 0 && s.chunkDelayMs) await sleep(s.chunkDelayMs);
      if (closed) return;
      flushed = new Promise((resolve) => res.write(event, () => resolve()));
      sent++;
    }
    res.end();
  }

  function countTokens(res: ServerResponse, rec: RecordedAnthropicRequest) {
    // About four characters per token, like the tokenizer on English text.
    const text = JSON.stringify({
      system: rec.json?.system,
      messages: rec.json?.messages,
      tools: rec.json?.tools,
    });
    send(res, 200, { input_tokens: Math.max(1, Math.ceil(text.length / 4)) });
  }

  function listModels(res: ServerResponse) {
    const data = models.map((id) => ({
      type: 'model',
      id,
      display_name: id,
      created_at: '2025-01-01T00:00:00Z',
    }));
    send(res, 200, {
      data,
      has_more: false,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    counter++;
    const rec = await record(req);
    if (keys.length > 0 && !keys.includes(rec.apiKey ?? '')) {
      sendError(res, fakeAnthropicErrors.authentication());
      return;
    }
    if (!rec.version) {
      sendError(res, fakeAnthropicErrors.invalidRequest('anthropic-version: header is required'));
      return;
    }
    if (req.method === 'GET' && rec.path === '/v1/models') return listModels(res);
    if (req.method !== 'POST' || (rec.path !== '/v1/messages' && rec.path !== '/v1/messages/count_tokens')) {
      sendError(res, error(404, 'not_found_error', 'Not Found'));
      return;
    }
    const bad = invalid(rec);
    if (bad) {
      sendError(res, bad);
      return;
    }
    if (rec.path === '/v1/messages/count_tokens') return countTokens(res, rec);
    const s = rules.pick(rec.model);
    if (s.kind === 'error') {
      sendError(res, s);
      return;
    }
    if (s.firstByteDelayMs) {
      await sleep(s.firstByteDelayMs);
      if (req.socket.destroyed) return;
    }
    if (rec.json?.stream === true) return stream(req, res, streamEvents(rec, s), s);
    send(res, 200, message(rec, s), s.headers);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        send(res, 500, { type: 'error', error: { type: 'api_error', message: String(err) } });
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
