import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { LogType } from '@switchyard/domain';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { bearerKeyFromHeaders } from '../auth/api-keys.js';
import type { Reservation } from '../billing/ledger.js';
import type { ModelPrice } from '../billing/price-book.js';
import { breakdownMetadata, computeQuota, reserveAmount } from '../billing/quota-math.js';
import { emptyUsage, type Usage } from '../billing/usage.js';
import { parseUpstreamError, type UpstreamError } from '../providers/openai/errors.js';
import { jsonCompletionText, readJsonUsage } from '../providers/openai/json-meter.js';
import { multipartBoundary } from '../providers/openai/multipart-field.js';
import {
  buildOpenAiRequest,
  ChannelConfigError,
  customPathsFromPlugin,
  type OpenAiEndpoint,
  UnsupportedEndpointError,
} from '../providers/openai/request.js';
import { DONE_EVENT, formatErrorEvent, OpenAiStreamMeter } from '../providers/openai/stream-meter.js';
import { countChatRequest, countInput, countText } from '../providers/token-counter.js';
import { isMeaningfulUsage } from '../providers/usage.js';
import type { Services } from '../services.js';
import { checkGroupRate } from './group-rate-limit.js';
import { peekFormField } from './multipart-peek.js';
import { RelayError, relayErrors } from './relay-error.js';
import type { Selection } from './routing/channel-selector.js';
import { decideFailure } from './routing/failure-policy.js';
import { RetryBudget } from './routing/retry-budget.js';
import type { RelayCaller } from './token-auth.js';

type Json = Record<string, unknown>;

/** How long and how much of an upstream reply is still read after the client went away (billing). */
const DRAIN_AFTER_ABORT_MS = 120_000;
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Endpoints whose reply is a JSON document the gateway reads usage from. */
const JSON_REPLY: ReadonlySet<OpenAiEndpoint> = new Set([
  'chat/completions',
  'completions',
  'embeddings',
  'moderations',
  'images/generations',
  'images/edits',
  'images/variations',
  'audio/transcriptions',
  'audio/translations',
  'rerank',
]);

/** Endpoints whose request is a multipart/form-data upload, streamed to the upstream. */
const MULTIPART: ReadonlySet<OpenAiEndpoint> = new Set([
  'images/edits',
  'images/variations',
  'audio/transcriptions',
  'audio/translations',
]);

/** What the client sent: a JSON document (kept as bytes) or a streamed upload. */
type Inbound =
  | { kind: 'json'; raw: Buffer; value: Json }
  | { kind: 'multipart'; contentType: string; body: Readable; model: string | undefined };

interface Attempt {
  selection: Selection;
  response: Dispatcher.ResponseData;
  startedMs: number;
}

function numberField(body: Json, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = body[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return undefined;
}

/** Prompt tokens counted before sending: what the reserve is based on, and the fallback usage. */
async function countPrompt(
  s: Services,
  endpoint: OpenAiEndpoint,
  model: string,
  body: Json,
): Promise<number> {
  switch (endpoint) {
    case 'audio/speech':
      // Speech is billed per input character (reference §5.2).
      return typeof body.input === 'string' ? [...body.input].length : 0;
    case 'audio/transcriptions':
    case 'audio/translations':
      // Billed on the text that comes back (reference §5.2).
      return 0;
    case 'images/edits':
    case 'images/variations':
    case 'images/generations': {
      const n = numberField(body, 'n') ?? 1;
      return 1000 * Math.max(1, Math.floor(n));
    }
    default: {
      const tok = await s.relay.counter.tokenizer(model);
      if (endpoint === 'chat/completions') return countChatRequest(tok, body);
      if (endpoint === 'completions') return countInput(tok, body.prompt);
      if (endpoint === 'rerank') return countInput(tok, body.query) + countInput(tok, body.documents);
      return countInput(tok, body.input);
    }
  }
}

function unpricedFallback(s: Services, model: string): ModelPrice | undefined {
  const o = s.options.current;
  if (!o.ServeUnpricedModels) return undefined;
  return {
    model,
    type: 'tokens',
    channelType: 0,
    input: o.UnpricedModelInput,
    output: o.UnpricedModelOutput,
    locked: false,
    extraRatios: {},
  };
}

function priceOf(s: Services, model: string): ModelPrice | undefined {
  return s.relay.tables.prices.lookup(model) ?? unpricedFallback(s, model);
}

/** Reads what the client sent: JSON is parsed (its bytes kept), an upload is read only up to its model field. */
async function readInbound(s: Services, endpoint: OpenAiEndpoint, req: FastifyRequest): Promise<Inbound> {
  if (!MULTIPART.has(endpoint)) return { kind: 'json', ...parseBody(req.body) };
  const contentType = String(req.headers['content-type'] ?? '');
  const boundary = multipartBoundary(contentType);
  if (!boundary || !req.body || typeof (req.body as Readable).pipe !== 'function') {
    throw relayErrors.badRequest('This endpoint takes a multipart/form-data upload');
  }
  try {
    const peeked = await peekFormField(req.body as Readable, boundary, 'model', s.config.relayBodyLimit);
    return { kind: 'multipart', contentType, body: peeked.body, model: peeked.value };
  } catch (err) {
    throw relayErrors.badRequest(`The upload could not be read: ${(err as Error).message}`);
  }
}

/** Parses the JSON body the client sent, keeping its bytes for pass-through. */
function parseBody(raw: unknown): { raw: Buffer; value: Json } {
  if (!Buffer.isBuffer(raw) || raw.length === 0)
    throw relayErrors.badRequest('The request body must be a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw relayErrors.badRequest('The request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw relayErrors.badRequest('The request body must be a JSON object');
  }
  return { raw, value: value as Json };
}

async function readBounded(body: Dispatcher.ResponseData['body'], max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = chunk as Buffer;
    if (size < max) parts.push(size + b.length > max ? b.subarray(0, max - size) : b);
    size += b.length;
  }
  return Buffer.concat(parts);
}

/** The client's view of an upstream failure: honest status, no leak of the gateway's own credentials problems. */
function clientErrorFor(e: UpstreamError): RelayError {
  if (e.status === 401 || e.status === 403) {
    return new RelayError(
      502,
      'upstream_error',
      'upstream_auth_failed',
      'The upstream provider refused the gateway',
    );
  }
  if (e.status === 429)
    return new RelayError(
      429,
      'rate_limit_error',
      'upstream_busy',
      'The upstream provider is busy; retry later',
    );
  if (e.status >= 500 || e.status === 0) {
    return new RelayError(502, 'upstream_error', e.code ?? 'upstream_error', `Upstream error: ${e.message}`);
  }
  return new RelayError(e.status, e.type || 'invalid_request_error', e.code, e.message, e.param);
}

export function sendRelayError(reply: FastifyReply, err: RelayError) {
  return reply.status(err.status).send(err.body(String(reply.request.id)));
}

/**
 * One OpenAI-shaped request through the pipeline (design §4): authenticate token -> group and
 * model -> rate limit -> reserve -> select channel -> adapt -> send (retry before the first byte)
 * -> relay the reply while metering usage -> settle -> log. Settlement happens exactly once on
 * every path.
 */
export async function relayOpenAi(
  s: Services,
  endpoint: OpenAiEndpoint,
  req: FastifyRequest,
  reply: FastifyReply,
) {
  const startedMs = s.clock.nowMs();
  const r = s.relay;
  const caller = await r.auth.authenticate(bearerKeyFromHeaders(req.headers), req.ip, r.tables.groups);
  const inbound = await readInbound(s, endpoint, req);
  const fields: Json = inbound.kind === 'json' ? inbound.value : {};
  const model = inbound.kind === 'json' ? fields.model : inbound.model;
  if (typeof model !== 'string' || model.trim() === '')
    throw relayErrors.badRequest('model is required', 'model');
  if (caller.allowedModels && !caller.allowedModels.has(model)) throw relayErrors.modelNotAllowed(model);
  const maxTokens = numberField(fields, 'max_tokens', 'max_completion_tokens');
  if (maxTokens !== undefined && (maxTokens < 0 || maxTokens > 2 ** 30)) {
    throw relayErrors.badRequest('max_tokens is out of range', 'max_tokens');
  }

  const rate = await checkGroupRate(
    s.limiter,
    r.bucket,
    caller.group.symbol,
    caller.group.api_rate,
    caller.user.id,
  );
  if (!rate.allowed) {
    reply.header('retry-after', String(rate.retryAfterSeconds));
    throw relayErrors.rateLimited(rate.retryAfterSeconds);
  }

  const requestedPrice = priceOf(s, model);
  if (!requestedPrice) throw relayErrors.unpriced(model);
  const promptTokens = await countPrompt(s, endpoint, model, fields);
  const o = s.options.current;
  const amount = reserveAmount({
    price: requestedPrice,
    groupRatio: caller.group.ratio,
    promptTokens,
    maxTokens,
    n: numberField(fields, 'n'),
    preConsumedQuota: o.PreConsumedQuota,
  });
  const reserved = await r.ledger.reserve({
    userId: caller.user.id,
    tokenId: caller.token.id,
    tokenUnlimited: caller.token.unlimited_quota === 1,
    amount,
  });
  if (!reserved.ok) {
    throw reserved.reason === 'insufficient_user_quota'
      ? relayErrors.insufficientUserQuota()
      : relayErrors.insufficientTokenQuota();
  }
  const reservation = reserved.reservation;

  let attempt: Attempt;
  try {
    attempt = await sendWithRetries(s, endpoint, caller, model, inbound, startedMs, req.log);
  } catch (err) {
    await r.ledger.release(reservation);
    throw err;
  }

  // From here the reply belongs to the client; settlement follows whatever happens to it.
  const stream = fields.stream === true && (endpoint === 'chat/completions' || endpoint === 'completions');
  const outcome = stream
    ? await relayStream(s, attempt, reply, fields, req.log)
    : await relayWhole(s, endpoint, attempt, reply);
  settle(s, {
    caller,
    reservation,
    endpoint,
    requestedModel: model,
    attempt,
    promptTokens,
    outcome,
    startedMs,
    isStream: stream,
    ip: req.ip,
    log: req.log,
  });
  return reply;
}

async function sendWithRetries(
  s: Services,
  endpoint: OpenAiEndpoint,
  caller: RelayCaller,
  model: string,
  inbound: Inbound,
  startedMs: number,
  log: FastifyBaseLogger,
): Promise<Attempt> {
  const r = s.relay;
  const o = s.options.current;
  const budget = new RetryBudget({ RetryTimes: o.RetryTimes, RetryTimeOut: o.RetryTimeOut }, startedMs);
  const tried = new Set<number>();
  const needsTools =
    inbound.kind === 'json' && Array.isArray(inbound.value.tools) && inbound.value.tools.length > 0;
  // An upload streams through once; it cannot be sent to a second channel.
  const canRetry = inbound.kind === 'json' && caller.pinChannelId === undefined;
  let lastError: RelayError | undefined;
  for (;;) {
    const selection = await r.selector.select({
      group: caller.group.symbol,
      model,
      exclude: tried,
      needsTools,
      pinnedChannelId: caller.pinChannelId,
      excludedChannelId: caller.excludeChannelId,
      now: s.clock.nowMs(),
    });
    if (!selection) throw lastError ?? relayErrors.noChannel(caller.group.symbol, model);
    budget.begin();
    tried.add(selection.channel.id);
    const attemptStarted = s.clock.nowMs();
    const failure = await sendOnce(s, endpoint, selection, inbound).then(
      (response) => ({ response }),
      (err: unknown) => ({ err }),
    );
    if ('response' in failure && failure.response.statusCode < 400) {
      return { selection, response: failure.response, startedMs: attemptStarted };
    }
    let upstreamError: UpstreamError;
    let isTransport = false;
    let isTimeout = false;
    if ('response' in failure) {
      const raw = await readBounded(failure.response.body, MAX_ERROR_BODY_BYTES);
      upstreamError = parseUpstreamError(
        failure.response.statusCode,
        raw,
        String(failure.response.headers['content-type'] ?? ''),
      );
    } else if (failure.err instanceof ChannelUnusable) {
      upstreamError = {
        status: 500,
        message: failure.err.message,
        type: 'channel_config_error',
        code: null,
        param: null,
      };
    } else {
      if (failure.err instanceof RelayError) throw failure.err;
      const code = (failure.err as { code?: string }).code ?? '';
      isTimeout = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
      isTransport = !isTimeout;
      upstreamError = {
        status: 0,
        message: 'The upstream provider could not be reached',
        type: 'upstream_error',
        code: 'upstream_unreachable',
        param: null,
      };
    }
    const decision = decideFailure(
      {
        status: upstreamError.status,
        body: {
          message: upstreamError.message,
          type: upstreamError.type,
          code: upstreamError.code,
          param: upstreamError.param,
        },
        isTransportError: isTransport,
        isTimeout,
        channelType: selection.channel.type,
      },
      o,
    );
    log.warn(
      {
        channel: selection.channel.id,
        status: upstreamError.status,
        code: upstreamError.code,
        reason: decision.reason,
      },
      `upstream attempt failed: ${upstreamError.message}`,
    );
    if (decision.freeze) await r.health.freeze(selection.channel.id, model, o.RetryCooldownSeconds);
    if (decision.disable) disableChannel(s, log, selection.channel.id, decision.reason);
    lastError = clientErrorFor(upstreamError);
    if (!decision.retry || !canRetry || !budget.check(s.clock.nowMs()).ok) throw lastError;
  }
}

function disableChannel(s: Services, log: FastifyBaseLogger, channelId: number, reason: string) {
  void s.repos.channels
    .update(channelId, { status: 3 })
    .then(() => s.bus.publish('channels'))
    .then(() => log.warn({ channel: channelId, reason }, 'channel disabled automatically'))
    .catch((err: unknown) => log.error({ err, channel: channelId }, 'could not disable channel'));
}

async function sendOnce(
  s: Services,
  endpoint: OpenAiEndpoint,
  selection: Selection,
  inbound: Inbound,
): Promise<Dispatcher.ResponseData> {
  const c = selection.channel;
  let plugin: unknown = {};
  try {
    plugin = JSON.parse(c.plugin || '{}');
  } catch {
    plugin = {};
  }
  let request: ReturnType<typeof buildOpenAiRequest>;
  try {
    request = buildOpenAiRequest({
      channel: {
        type: c.type,
        baseUrl: c.baseUrl,
        key: firstKeyLine(s.secretBox.decrypt(c.keySealed)),
        other: c.other,
        headers: c.modelHeaders,
        paths: customPathsFromPlugin(plugin),
      },
      endpoint,
      upstreamModel: selection.upstreamModel,
      body:
        inbound.kind === 'json'
          ? { kind: 'json', raw: inbound.raw, value: inbound.value }
          : { kind: 'multipart', contentType: inbound.contentType, body: inbound.body, model: inbound.model },
    });
  } catch (err) {
    throw err instanceof UnsupportedEndpointError || err instanceof ChannelConfigError
      ? new ChannelUnusable(err.message)
      : err;
  }
  return s.relay.upstream.request({
    origin: request.origin,
    path: request.path,
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
}

/** The selected channel cannot serve this request (misconfigured, endpoint disabled): try another. */
class ChannelUnusable extends Error {}

function firstKeyLine(key: string): string {
  return key.split('\n')[0]?.trim() ?? '';
}

interface RelayOutcome {
  usage: Usage | null;
  /** Text the model produced, for local counting when the upstream gave no usage. */
  completionText: () => string;
  firstByteMs: number;
  clientAborted: boolean;
  upstreamFailedMidway: boolean;
}

/** Headers for a hijacked reply: those set by hooks (CORS, request id) plus the content type. */
function replyHeaders(reply: FastifyReply, contentType: string): Record<string, string | string[]> {
  const set: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(reply.getHeaders())) {
    if (v !== undefined) set[k] = Array.isArray(v) ? v.map(String) : String(v);
  }
  return { ...set, 'content-type': contentType, 'x-request-id': String(reply.request.id) };
}

/** Streams SSE through unchanged (but for a usage chunk we added), reading usage as it passes. */
async function relayStream(
  s: Services,
  attempt: Attempt,
  reply: FastifyReply,
  body: Json,
  log: FastifyBaseLogger,
): Promise<RelayOutcome> {
  const clientWantsUsage =
    typeof body.stream_options === 'object' &&
    body.stream_options !== null &&
    (body.stream_options as Json).include_usage === true;
  const meter = new OpenAiStreamMeter({ dropUsageChunk: !clientWantsUsage });
  reply.hijack();
  const res: ServerResponse = reply.raw;
  let clientGone = false;
  res.on('close', () => {
    if (!res.writableFinished) clientGone = true;
  });
  res.writeHead(200, {
    ...replyHeaders(reply, 'text/event-stream; charset=utf-8'),
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  let firstByteMs = 0;
  let failedMidway = false;
  const drainDeadline = () => s.clock.nowMs() + DRAIN_AFTER_ABORT_MS;
  let deadline = Number.POSITIVE_INFINITY;
  try {
    for await (const chunk of attempt.response.body) {
      if (firstByteMs === 0) firstByteMs = s.clock.nowMs() - attempt.startedMs;
      const out = meter.write(chunk as Buffer);
      if (!clientGone && out.length > 0) res.write(out);
      if (clientGone) {
        if (deadline === Number.POSITIVE_INFINITY) deadline = drainDeadline();
        if (s.clock.nowMs() > deadline) break;
      }
    }
    const tail = meter.end();
    if (!clientGone && tail.length > 0) res.write(tail);
  } catch (err) {
    failedMidway = true;
    log.warn({ err }, 'upstream stream broke');
    if (!clientGone) {
      res.write(
        formatErrorEvent({
          message: 'The upstream stream ended unexpectedly',
          type: 'upstream_error',
          code: 'upstream_stream_broken',
          param: null,
        }),
      );
      res.write(DONE_EVENT);
    }
  }
  if (!clientGone) res.end();
  return {
    usage: meter.usage,
    completionText: () => meter.completionText(),
    firstByteMs,
    clientAborted: clientGone,
    upstreamFailedMidway: failedMidway,
  };
}

/** Relays a whole reply (JSON or binary such as speech audio), reading usage from JSON bodies. */
async function relayWhole(
  s: Services,
  endpoint: OpenAiEndpoint,
  attempt: Attempt,
  reply: FastifyReply,
): Promise<RelayOutcome> {
  const contentType = String(attempt.response.headers['content-type'] ?? 'application/json');
  if (!JSON_REPLY.has(endpoint)) {
    // Binary or plain replies (speech audio) are streamed through as they arrive.
    reply.hijack();
    const res = reply.raw;
    res.writeHead(attempt.response.statusCode, replyHeaders(reply, contentType));
    let firstByteMs = 0;
    let clientGone = false;
    res.on('close', () => {
      if (!res.writableFinished) clientGone = true;
    });
    for await (const chunk of attempt.response.body) {
      if (firstByteMs === 0) firstByteMs = s.clock.nowMs() - attempt.startedMs;
      if (!clientGone) res.write(chunk as Buffer);
    }
    if (!clientGone) res.end();
    return {
      usage: null,
      completionText: () => '',
      firstByteMs,
      clientAborted: clientGone,
      upstreamFailedMidway: false,
    };
  }
  const raw = Buffer.from(await attempt.response.body.arrayBuffer());
  const firstByteMs = s.clock.nowMs() - attempt.startedMs;
  reply.status(attempt.response.statusCode).headers(replyHeaders(reply, contentType)).send(raw);
  const isJson = contentType.includes('json');
  return {
    usage: isJson ? readJsonUsage(raw) : null,
    completionText: () => (isJson ? replyText(raw) : raw.toString('utf8')),
    firstByteMs,
    clientAborted: false,
    upstreamFailedMidway: false,
  };
}

/** Generated text of a JSON reply: chat/completions choices, or a transcription's `text`. */
function replyText(raw: Buffer): string {
  const text = jsonCompletionText(raw);
  if (text) return text;
  try {
    const v = JSON.parse(raw.toString('utf8')) as { text?: unknown };
    return typeof v.text === 'string' ? v.text : '';
  } catch {
    return '';
  }
}

interface SettleInput {
  caller: RelayCaller;
  reservation: Reservation;
  endpoint: OpenAiEndpoint;
  requestedModel: string;
  attempt: Attempt;
  promptTokens: number;
  outcome: RelayOutcome;
  startedMs: number;
  isStream: boolean;
  ip: string;
  log: FastifyBaseLogger;
}

/** Bills what was delivered: upstream usage when given, else a local count marked estimated. */
function settle(s: Services, x: SettleInput): void {
  const work = (async () => {
    const { caller, attempt, outcome } = x;
    let usage: Usage;
    if (isMeaningfulUsage(outcome.usage)) {
      usage = outcome.usage;
    } else {
      const tok = await s.relay.counter.tokenizer(attempt.selection.upstreamModel);
      usage = {
        ...emptyUsage(),
        inputTokens: x.promptTokens,
        outputTokens: x.endpoint === 'audio/speech' ? 0 : countText(tok, outcome.completionText()),
        // Speech is priced on input characters, which were counted exactly.
        estimated: x.endpoint !== 'audio/speech',
      };
    }
    const billedModel = attempt.selection.billedModel;
    const price = priceOf(s, billedModel) ?? priceOf(s, x.requestedModel)!;
    const breakdown = computeQuota(price, caller.group.ratio, usage);
    const metadata: Record<string, unknown> = {
      ...breakdownMetadata(breakdown),
      group_name: caller.group.symbol,
      upstream_model: attempt.selection.upstreamModel,
      requested_model: x.requestedModel,
      first_response: outcome.firstByteMs,
      estimated: usage.estimated,
    };
    if (outcome.clientAborted) metadata.client_aborted = true;
    if (outcome.upstreamFailedMidway) metadata.upstream_failed_midway = true;
    await s.relay.ledger.settle(
      x.reservation,
      breakdown.quota,
      {
        user_id: caller.user.id,
        created_at: Math.floor(x.startedMs / 1000),
        type: LogType.Consume,
        content: '',
        username: caller.user.username,
        token_id: caller.token.id,
        token_name: caller.token.name,
        model_name: billedModel,
        prompt_tokens: usage.inputTokens,
        completion_tokens: usage.outputTokens,
        channel_id: attempt.selection.channel.id,
        request_time: s.clock.nowMs() - x.startedMs,
        first_response_time: outcome.firstByteMs,
        is_stream: x.isStream ? 1 : 0,
        source_ip: x.ip,
        group: caller.group.symbol,
        metadata: JSON.stringify(metadata),
      },
      { recordLog: s.options.current.LogConsumeEnabled },
    );
  })().catch(async (err: unknown) => {
    x.log.error({ err }, 'settlement failed; releasing the reserve');
    await s.relay.ledger.release(x.reservation).catch(() => {});
  });
  s.relay.pending.add(work);
  void work.finally(() => s.relay.pending.delete(work));
}

export { RelayError };
