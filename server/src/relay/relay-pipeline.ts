import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { LogType } from '@switchyard/domain';
import type { FastifyBaseLogger } from 'fastify';
import type { BearerKey } from '../auth/api-keys.js';
import type { Ledger, Reservation } from '../billing/ledger/ledger.js';
import { billsDeliveredOnly } from '../billing/pricing/delivered-only.js';
import type { ModelPrice } from '../billing/pricing/price-book.js';
import { breakdownMetadata, computeQuota, reserveAmount } from '../billing/pricing/quota-math.js';
import { emptyUsage, type Usage } from '../billing/pricing/usage.js';
import type { RateDecision } from '../cache/rate-limiter.js';
import { hasUnstorableText } from '../db/storable-text.js';
import type { UpstreamError } from '../providers/openai/errors.js';
import {
  countText,
  type PromptCounting,
  promptCountingOf,
  type Tokenizer,
} from '../providers/token-counter.js';
import type { UpstreamRequest } from '../providers/upstream-request.js';
import { isMeaningfulUsage } from '../providers/usage.js';
import type { Services } from '../services.js';
import {
  type ChannelAccess,
  ChannelUnusable,
  type UpstreamHeaders,
  UpstreamRefused,
} from './channels/channel-transports.js';
import { checkGroupRate } from './inbound/group-rate-limit.js';
import type { RelayReply } from './inbound/relay-exchange.js';
import type { RelayCaller } from './inbound/token-auth.js';
import { RelayError, relayErrors } from './relay-error.js';
import type { Selection } from './routing/channel-selector.js';
import { decideFailure } from './routing/failure-policy.js';
import { RetryBudget } from './routing/retry-budget.js';
import {
  CallCancel,
  decodedReply,
  describeTransportFailure,
  ReadBody,
  sendUpstream,
  type UpstreamBody,
  type UpstreamReply,
} from './transport/transport.js';

// The steps every relay request takes, whatever its dialect, in the order of relayCall below:
// authenticate the key -> check the call -> group rate limit -> price -> first channel -> reserve ->
// send (retried on other channels before the first byte) -> relay the reply while metering usage ->
// settle and log. What differs per dialect and per channel protocol (request building, error reading,
// reply relaying) comes in as a RelayCall. The reply side the dialect modules share is at the end.

/** How long and how much of an upstream reply is still read after the client went away (billing). */
export const DRAIN_AFTER_ABORT_MS = 120_000;
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The only status every relayed endpoint answers a success with. */
const SUCCESS_STATUS = 200;
const BOM = 0xef;

/** One client request as the pipeline sees it; built by the inbound dialect's module. */
export interface RelayCall {
  /** The model the client asked for. */
  model: string;
  maxTokens: number | undefined;
  n: number | undefined;
  needsTools: boolean;
  /** False for a streamed upload, which cannot be sent to a second channel. */
  retryable: boolean;
  isStream: boolean;
  /** Prompt tokens as the reserve assumes them: a cheap estimate, counted before sending. */
  estimatePrompt(counting: PromptCounting): number;
  /** Prompt tokens counted by the model's tokenizer: the usage when the upstream reports none. */
  countPrompt(counting: PromptCounting): Promise<number>;
  /** The reply's output is counted locally when the upstream reports none (not for speech). */
  estimateOutput: boolean;
  /**
   * Whether a channel type's protocol can serve this request at all; channels that cannot are
   * passed over without counting as a failed attempt. Undefined: the reason, for the client.
   */
  unservedBy(channelType: number): string | undefined;
  /** Plans the exchange with one channel; throws ChannelUnusable when the channel cannot serve it. */
  prepare(selection: Selection, channel: ChannelAccess): Exchange | Promise<Exchange>;
}

/** The request for one channel and how to read what it answers. */
export interface Exchange {
  request: UpstreamRequest;
  /**
   * The reply is read whole before the attempt counts as answered (JSON replies): a body that
   * breaks off is then a failed attempt, retried while nothing reached the client.
   */
  wholeReply?: boolean;
  parseError(status: number, raw: Buffer, contentType: string, headers?: UpstreamHeaders): UpstreamError;
  relay(ctx: ReplyContext): Promise<RelayOutcome>;
}

export interface ReplyContext {
  s: Services;
  response: UpstreamReply;
  /** When the successful attempt started (first-byte latency). */
  startedMs: number;
  reply: RelayReply;
  log: FastifyBaseLogger;
  /** The exact prompt count, made on first use (most replies carry usage and never need it). */
  promptTokens: () => Promise<number>;
  selection: Selection;
}

export interface RelayOutcome {
  usage: Usage | null;
  /** Text the model produced, for local counting when the upstream gave no usage. */
  completionText: () => string;
  /** The count of `completionText` times this estimates the whole output (a long text is sampled). */
  completionTextRatio?: () => number;
  firstByteMs: number;
  clientAborted: boolean;
  /** The client left and the channel bills only what was delivered (billing.delivered_only). */
  billedDeliveredOnly?: boolean;
  upstreamFailedMidway: boolean;
}

interface Attempt {
  selection: Selection;
  exchange: Exchange;
  response: UpstreamReply;
  startedMs: number;
}

/**
 * Runs one request through the pipeline. `buildCall` reads the client's body after the key was
 * accepted (an unauthenticated caller learns nothing about body validation). The call is counted
 * in flight until it ends, so a stop that cut its client still waits for its settlement.
 */
export function runRelay(
  s: Services,
  key: BearerKey | null,
  req: { ip: string; log: FastifyBaseLogger },
  reply: RelayReply,
  buildCall: (caller: RelayCaller) => Promise<RelayCall>,
): Promise<RelayReply> {
  const work = relayCall(s, key, req, reply, buildCall);
  // Counted until the end of the turn in which it ended: its settlement starts then, and is counted.
  const ended = () => new Promise<void>((resolve) => s.relay.turnEnd.defer(resolve));
  const ops = s.ops;
  const failed =
    ops && (ops.metrics || ops.tracer)
      ? (err: unknown) => {
          const path = reply.raw.req?.url ?? '';
          const status = err instanceof RelayError ? err.status : 500;
          ops.metrics?.relay.failed(path, status);
          ops.tracer?.call({
            requestId: reply.request.id,
            method: reply.raw.req?.method ?? 'POST',
            route: path.split('?')[0] ?? '',
            status,
            startMs: Date.now(),
            endMs: Date.now(),
          });
          return ended();
        }
      : ended;
  s.relay.pending.track(work.then(ended, failed));
  return work;
}

/** The steps in order; each is a function below, in the same order. */
async function relayCall(
  s: Services,
  key: BearerKey | null,
  req: { ip: string; log: FastifyBaseLogger },
  reply: RelayReply,
  buildCall: (caller: RelayCaller) => Promise<RelayCall>,
): Promise<RelayReply> {
  const startedMs = s.clock.nowMs();
  const r = s.relay;
  const caller = await r.auth.authenticate(key, req.ip, r.tables.groups);
  const call = await buildCall(caller);
  checkCall(call, caller);
  refuseOverRate(reply, await groupRate(s, caller));
  const price = requestedPrice(s, call, caller);
  // The first channel is chosen before the reserve: its pre_cost says how the prompt is counted.
  const first = (await selectChannel(s, call, caller, new Set())) ?? noChannel(s, call, caller);
  const reservation = await reserveForCaller(r.ledger, caller, reserveFor(s, call, caller, price, first));

  // A client that leaves before the upstream answered cancels the call: the upstream's socket is
  // closed and the reserve goes back at once, instead of waiting for an upstream that may hang.
  const res = reply.raw;
  const cancel = new CallCancel();
  const onClose = () => {
    if (!res.writableFinished) cancel.cancel(new ClientLeft());
  };
  res.once('close', onClose);
  let attempt: Attempt;
  try {
    attempt = await sendWithRetries(s, call, caller, startedMs, req.log, cancel, first);
  } catch (err) {
    await r.ledger.release(reservation);
    throw err;
  } finally {
    res.off('close', onClose);
  }

  // Counted as the channel that answered counts prompts.
  let counted: Promise<number> | undefined;
  let countedNow: number | undefined;
  const promptTokens = () => {
    counted ??= call.countPrompt(promptCountingOf(attempt.selection.channel.preCost)).then((n) => {
      countedNow = n;
      return n;
    });
    return counted;
  };
  // Relay the reply. From here it belongs to the client; settlement follows whatever happens to it.
  let outcome: RelayOutcome;
  try {
    outcome = await attempt.exchange.relay({
      s,
      response: attempt.response,
      startedMs: attempt.startedMs,
      reply,
      log: req.log,
      promptTokens,
      selection: attempt.selection,
    });
  } catch (err) {
    // A reply that could not be relayed at all (an upstream body no translator can read) is not
    // charged: the reserve goes back, and the error handler answers if nothing was sent yet.
    attempt.response.body.cancel();
    await r.ledger.release(reservation);
    throw err;
  }
  const billing: SettleInput = {
    caller,
    reservation,
    call,
    attempt,
    promptTokens,
    promptTokensNow: () => countedNow,
    outcome,
    startedMs,
    ip: req.ip,
    log: req.log,
    reply,
  };
  // At the end of this turn, ahead of the reply's last write (turn-end.ts): the settlement is in the
  // journal before the client has its last byte, so a process killed between the two loses no bill
  // of a delivered call. The database commits it later.
  r.turnEnd.deferFirst(() => settle(s, billing));
  return reply;
}

/** Refuses a call the caller may not make whatever the channel: no model, a bad one, a bad limit. */
function checkCall(call: RelayCall, caller: RelayCaller): void {
  const model = call.model;
  if (model.trim() === '') throw relayErrors.badRequest('model is required', 'model');
  if (hasUnstorableText(model))
    throw relayErrors.badRequest('model holds a NUL character or invalid UTF-8', 'model');
  if (caller.allowedModels && !caller.allowedModels.has(model)) throw relayErrors.modelNotAllowed(model);
  if (call.maxTokens !== undefined && (call.maxTokens < 0 || call.maxTokens > 2 ** 30)) {
    throw relayErrors.badRequest('max_tokens is out of range', 'max_tokens');
  }
}

/** The caller's group rate limit, counted for this call. */
function groupRate(s: Services, caller: RelayCaller): Promise<RateDecision> {
  return checkGroupRate(
    s.limiter,
    s.relay.bucket,
    caller.group.symbol,
    caller.group.api_rate,
    caller.user.id,
  );
}

function refuseOverRate(reply: RelayReply, rate: RateDecision): void {
  if (rate.allowed) return;
  reply.header('retry-after', String(rate.retryAfterSeconds));
  throw relayErrors.rateLimited(rate.retryAfterSeconds);
}

/** The price of the model asked for; a model neither priced nor served is unknown here. */
function requestedPrice(s: Services, call: RelayCall, caller: RelayCaller): ModelPrice {
  const price = priceOf(s, call.model);
  if (price) return price;
  // Neither priced nor served: unknown here, said the way OpenAI says it.
  if (!s.relay.selector.hasChannel(caller.group.symbol, call.model))
    throw relayErrors.noChannelAtAll(caller.group.symbol, call.model);
  throw relayErrors.unpriced(call.model);
}

/** The price the relay bills `model` at: its own (exact or wildcard), else the unpriced default. */
export function priceOf(s: Services, model: string): ModelPrice | undefined {
  return s.relay.tables.prices.lookup(model) ?? unpricedFallback(s, model);
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

function selectChannel(
  s: Services,
  call: RelayCall,
  caller: RelayCaller,
  exclude: Set<number>,
): Promise<Selection | undefined> {
  return s.relay.selector.select({
    group: caller.group.symbol,
    model: call.model,
    exclude,
    needsTools: call.needsTools,
    pinnedChannelId: caller.pinChannelId,
    excludedChannelId: caller.excludeChannelId,
    now: s.clock.nowMs(),
  });
}

/** No channel left to try: none serves the model in the group at all, or none is available now. */
function noChannel(s: Services, call: RelayCall, caller: RelayCaller): never {
  if (!s.relay.selector.hasChannel(caller.group.symbol, call.model))
    throw relayErrors.noChannelAtAll(caller.group.symbol, call.model);
  throw relayErrors.noChannel(caller.group.symbol, call.model);
}

/** The quota held for the call, the prompt counted as the first channel's pre_cost says. */
function reserveFor(s: Services, call: RelayCall, caller: RelayCaller, price: ModelPrice, first: Selection) {
  return reserveAmount({
    price,
    groupRatio: caller.group.ratio,
    promptTokens: call.estimatePrompt(promptCountingOf(first.channel.preCost)),
    maxTokens: call.maxTokens,
    n: call.n,
    preConsumedQuota: s.options.current.PreConsumedQuota,
  });
}

/**
 * Reserves `amount` against the caller's account and key. A refusal is the client's answer: which
 * of the two ran out, in the client's own error shape.
 */
export async function reserveForCaller(
  ledger: Ledger,
  caller: RelayCaller,
  amount: number,
): Promise<Reservation> {
  const reserved = await ledger.reserve({
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
  return reserved.reservation;
}

/**
 * Sends the call to `first`, then to other channels while a failure before the first byte allows a
 * retry: one attempt, its failure classified, the failure policy's decision.
 */
async function sendWithRetries(
  s: Services,
  call: RelayCall,
  caller: RelayCaller,
  startedMs: number,
  log: FastifyBaseLogger,
  cancel: CallCancel,
  first: Selection,
): Promise<Attempt> {
  const r = s.relay;
  const o = s.options.current;
  const budget = new RetryBudget({ RetryTimes: o.RetryTimes, RetryTimeOut: o.RetryTimeOut }, startedMs);
  const tried = new Set<number>();
  const canRetry = call.retryable && caller.pinChannelId === undefined;
  let lastError: RelayError | undefined;
  let next: Selection | undefined = first;
  for (;;) {
    const selection = next ?? (await selectChannel(s, call, caller, tried));
    next = undefined;
    if (!selection) {
      if (lastError) throw lastError;
      noChannel(s, call, caller);
    }
    tried.add(selection.channel.id);
    const unserved = call.unservedBy(selection.channel.type);
    if (unserved !== undefined) {
      // Not a failure of the channel: it is simply not one for this kind of request.
      lastError ??= new RelayError(503, 'server_error', 'no_available_channel', unserved, 'model');
      continue;
    }
    budget.begin();
    // One attempt, inline: the call that succeeds pays for no further function or promise.
    const attemptStarted = s.clock.nowMs();
    let exchange: Exchange | undefined;
    let sent: UpstreamReply | undefined;
    let response: UpstreamReply | undefined;
    let failure: unknown;
    try {
      const access = r.access.get(selection.channel);
      exchange = await call.prepare(selection, access);
      sent = await sendUpstream(r.forward, exchange.request, cancel, access.connection);
      response = decodedReply(sent);
      if (response.statusCode === SUCCESS_STATUS && exchange.wholeReply) {
        const raw = await response.body.whole();
        const type = String(response.headers['content-type'] ?? '');
        response = { ...response, body: new ReadBody(withoutBom(raw, type)) };
      }
    } catch (err) {
      failure = err;
      response = undefined;
      sent?.body.cancel();
    }
    if (cancel.reason) {
      // Not the channel's failure, and no one is left to answer.
      response?.body.cancel();
      throw cancel.reason;
    }
    if (response && exchange && response.statusCode === SUCCESS_STATUS) {
      return { selection, exchange, response, startedMs: attemptStarted };
    }
    const failed = await classifyFailure(exchange, sent, response, failure);
    const retry = await decideOnFailure(s, log, selection, call.model, failed);
    lastError = clientErrorFor(failed.error);
    if (failed.error.status === 429) lastError.headers = rateLimitHeaders(response?.headers);
    if (!retry || !canRetry || !budget.check(s.clock.nowMs()).ok) throw lastError;
  }
}

/** A failed attempt as the failure policy reads it. */
interface FailedAttempt {
  error: UpstreamError;
  isTransport: boolean;
  isTimeout: boolean;
  /** Why a reply that came is no answer (a redirect, an undecodable body), for the policy. */
  unusableReply?: string;
  /** For the log only. */
  detail?: string;
}

/**
 * What went wrong with an attempt that did not succeed: an error status (its body read), a status the
 * endpoint does not answer with, a credential or channel problem, or the connection. A RelayError
 * the exchange threw is the client's answer as it is.
 */
async function classifyFailure(
  exchange: Exchange | undefined,
  sent: UpstreamReply | undefined,
  response: UpstreamReply | undefined,
  failure: unknown,
): Promise<FailedAttempt> {
  if (response && exchange && response.statusCode >= 400) {
    const raw = await response.body.whole(MAX_ERROR_BODY_BYTES).catch(() => Buffer.alloc(0));
    const type = String(response.headers['content-type'] ?? '');
    const error = exchange.parseError(response.statusCode, withoutBom(raw, type), type, response.headers);
    return { error, isTransport: false, isTimeout: false };
  }
  if (response) {
    // A redirect is never followed (it could lead the channel's key to another host), and a 204
    // or any other status the endpoint does not define is no answer either.
    response.body.cancel();
    const status = response.statusCode;
    const location = response.headers.location;
    return {
      error: {
        status,
        message: `The upstream answered ${status}, which is not an answer of this endpoint`,
        type: 'upstream_error',
        code: 'upstream_bad_status',
        param: null,
      },
      isTransport: false,
      isTimeout: false,
      unusableReply: `upstream answered ${status}, not an answer of this endpoint`,
      // Where it pointed is for the log only: the client is not told the channel's hosts.
      detail: location !== undefined ? `redirect to ${String(location)}` : undefined,
    };
  }
  if (failure instanceof UpstreamRefused)
    return { error: failure.error, isTransport: false, isTimeout: false };
  if (failure instanceof ChannelUnusable) {
    return {
      error: { status: 500, message: failure.message, type: 'channel_config_error', code: null, param: null },
      isTransport: false,
      isTimeout: false,
    };
  }
  if (failure instanceof RelayError) throw failure;
  const what = describeTransportFailure(failure);
  const isTimeout = what.timedOut;
  let message = what.message;
  let code = what.code;
  let isTransport = false;
  let unusableReply: string | undefined;
  if (what.code === 'upstream_bad_encoding') unusableReply = 'upstream reply could not be decoded';
  else if (sent && !isTimeout) {
    // The head had come: the body broke off (a reset, a short reply).
    message = `The upstream's reply broke off: ${(failure as Error).message}`;
    code = 'upstream_reply_broken';
    isTransport = true;
  } else isTransport = !isTimeout;
  return {
    error: { status: 0, message, type: 'upstream_error', code, param: null },
    isTransport,
    isTimeout,
    unusableReply,
    detail: what.detail,
  };
}

/**
 * The failure policy's decision on a failed attempt, carried out: logged, the channel frozen for the
 * model or disabled as it says. True when the policy allows another channel to be tried.
 */
async function decideOnFailure(
  s: Services,
  log: FastifyBaseLogger,
  selection: Selection,
  model: string,
  failed: FailedAttempt,
): Promise<boolean> {
  const o = s.options.current;
  const e = failed.error;
  const decision = decideFailure(
    {
      status: e.status,
      body: { message: e.message, type: e.type, code: e.code, param: e.param },
      isTransportError: failed.isTransport,
      isTimeout: failed.isTimeout,
      channelType: selection.channel.type,
      unusableReply: failed.unusableReply,
    },
    o,
  );
  log.warn(
    {
      channel: selection.channel.id,
      status: e.status,
      code: e.code,
      reason: decision.reason,
      detail: failed.detail,
    },
    `upstream attempt failed: ${e.message}`,
  );
  if (decision.freeze) await s.relay.health.freeze(selection.channel.id, model, o.RetryCooldownSeconds);
  if (decision.disable) disableChannel(s, log, selection.channel.id, decision.reason);
  return decision.retry;
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
  // A redirect, a 204 or another status the endpoint does not answer with is the upstream's fault too.
  if (e.status >= 500 || e.status < 400) {
    return new RelayError(502, 'upstream_error', e.code ?? 'upstream_error', `Upstream error: ${e.message}`);
  }
  return new RelayError(e.status, e.type || 'invalid_request_error', e.code, e.message, e.param);
}

/** An upstream 429's advice to its client: when to come back and how much is left. */
function rateLimitHeaders(headers: UpstreamReply['headers'] | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  let out: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined) continue;
    if (lower === 'retry-after' || lower === 'retry-after-ms' || lower.startsWith('x-ratelimit-')) {
      out ??= {};
      out[lower] = Array.isArray(value) ? value.join(', ') : String(value);
    }
  }
  return out;
}

function disableChannel(s: Services, log: FastifyBaseLogger, channelId: number, reason: string) {
  void s.repos.channels
    .update(channelId, { status: 3 })
    .then(() => s.bus.publish('channels'))
    .then(() => log.warn({ channel: channelId, reason }, 'channel disabled automatically'))
    .catch((err: unknown) => log.error({ err, channel: channelId }, 'could not disable channel'));
}

/**
 * The client went away before the upstream answered: the call is dropped, its reserve released.
 * 499 as nginx logs it; no one is left to read the answer.
 */
export class ClientLeft extends RelayError {
  constructor() {
    super(
      499,
      'invalid_request_error',
      'client_closed_request',
      'The client closed the connection before the upstream answered',
    );
    this.name = 'ClientLeft';
  }
}

/**
 * A JSON body without the UTF-8 byte-order mark some upstreams put first (JSON.parse refuses it);
 * other bodies (a transcript in plain text) keep theirs.
 */
export function withoutBom(raw: Buffer, contentType: string): Buffer {
  if (raw.length < 3 || raw[0] !== BOM || raw[1] !== 0xbb || raw[2] !== 0xbf) return raw;
  const next = raw[3];
  return contentType.includes('json') || next === 0x7b || next === 0x5b ? raw.subarray(3) : raw;
}

interface SettleInput {
  caller: RelayCaller;
  reservation: Reservation;
  call: RelayCall;
  attempt: Attempt;
  promptTokens: () => Promise<number>;
  /** The prompt's count once `promptTokens` has made it. */
  promptTokensNow: () => number | undefined;
  outcome: RelayOutcome;
  startedMs: number;
  ip: string;
  log: FastifyBaseLogger;
  /** The reply (its status, request path and id label the call's metrics and span). */
  reply: RelayReply;
}

/**
 * Bills what was delivered: upstream usage when given, else a local count marked estimated. The
 * ledger may take a while to answer (the SQLite store commits settlements in groups); only the
 * reservation and the logger wait with it, not the request, its reply and its upstream exchange.
 */
function settle(s: Services, x: SettleInput): void {
  const { reservation, log } = x;
  const work = charge(s, x).catch(async (err: unknown) => {
    log.error({ err }, 'settlement failed; releasing the reserve');
    await s.relay.ledger.release(reservation).catch(() => {});
  });
  s.relay.pending.track(work);
}

/**
 * Prices the call and hands the charge with its log row to the ledger, without waiting for it. When
 * the reply path readied the local count (`readyToCount`), this all happens in the calling turn, so
 * the ledger journals the settlement before the reply's last byte is written.
 */
function charge(s: Services, x: SettleInput): Promise<unknown> {
  try {
    const usage = isMeaningfulUsage(x.outcome.usage) ? x.outcome.usage : estimatedUsage(s, x);
    return usage instanceof Promise ? usage.then((u) => bill(s, x, u)) : bill(s, x, usage);
  } catch (err) {
    return Promise.reject(err);
  }
}

/** A local count of a reply that carried no usage, marked estimated. */
function estimatedUsage(s: Services, x: SettleInput): Usage | Promise<Usage> {
  const model = x.attempt.selection.upstreamModel;
  const estimate = (tok: Tokenizer, inputTokens: number): Usage => ({
    ...emptyUsage(),
    inputTokens,
    // The text kept may be a sample of a long reply: its count is scaled to the whole.
    outputTokens: x.call.estimateOutput
      ? Math.round(countText(tok, x.outcome.completionText()) * (x.outcome.completionTextRatio?.() ?? 1))
      : 0,
    // Speech is priced on input characters, which were counted exactly.
    estimated: x.call.estimateOutput,
  });
  const tok = s.relay.counter.ready(model);
  const prompt = x.promptTokensNow();
  if (tok && prompt !== undefined) return estimate(tok, prompt);
  // A reply path that did not ready the count: counted after an await, journaled a turn later.
  return Promise.all([s.relay.counter.tokenizer(model), x.promptTokens()]).then(([t, p]) => estimate(t, p));
}

function bill(s: Services, x: SettleInput, usage: Usage): Promise<unknown> {
  const { caller, attempt, outcome, call } = x;
  const billedModel = attempt.selection.billedModel;
  const price = priceOf(s, billedModel) ?? priceOf(s, call.model)!;
  const breakdown = computeQuota(price, caller.group.ratio, usage);
  // Keys added one by one, not after a spread in a literal (V8 adds those through slow calls).
  const metadata: Record<string, unknown> = breakdownMetadata(breakdown);
  metadata.group_name = caller.group.symbol;
  metadata.upstream_model = attempt.selection.upstreamModel;
  metadata.requested_model = call.model;
  metadata.first_response = outcome.firstByteMs;
  metadata.estimated = usage.estimated;
  if (outcome.clientAborted) metadata.client_aborted = true;
  if (outcome.billedDeliveredOnly) metadata.billed_delivered_only = true;
  if (outcome.upstreamFailedMidway) metadata.upstream_failed_midway = true;
  const nowMs = s.clock.nowMs();
  const ops = s.ops;
  if (ops) {
    const res = x.reply.raw;
    const path = res.req?.url ?? '';
    ops.metrics?.relay.settled(
      path,
      billedModel,
      attempt.selection.channel.id,
      res.statusCode,
      nowMs - x.startedMs,
      nowMs - attempt.startedMs,
      outcome.firstByteMs,
      breakdown.quota,
    );
    ops.tracer?.call({
      requestId: x.reply.request.id,
      method: 'POST',
      route: ops.metrics?.relay.routeOf(path) ?? path.split('?')[0] ?? '',
      status: res.statusCode,
      startMs: x.startedMs,
      endMs: nowMs,
      model: billedModel,
      channel: attempt.selection.channel.id,
    });
  }
  const settled = s.relay.ledger.settle(
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
      request_time: nowMs - x.startedMs,
      first_response_time: outcome.firstByteMs,
      is_stream: call.isStream ? 1 : 0,
      source_ip: x.ip,
      group: caller.group.symbol,
      metadata: JSON.stringify(metadata),
    },
    { recordLog: s.options.current.LogConsumeEnabled },
  );
  // The balance the settlement left decides whether the user is reminded to top up.
  return settled.then((done) => {
    s.relay.quotaReminder.settled(caller.user.id);
    return done;
  });
}

// The reply side, used by the dialect modules (chat-relay.ts, openai-relay.ts, native/): writing on
// the hijacked socket, following the client, readying the local count before the last write.

/** Headers for a hijacked reply: those set by hooks (CORS, request id) plus the content type. */
export function replyHeaders(reply: RelayReply, contentType: string): Record<string, string | string[]> {
  const set: Record<string, string | string[]> = {};
  const fromHooks = reply.getHeaders();
  for (const k in fromHooks) {
    const v = fromHooks[k];
    if (v !== undefined) set[k] = Array.isArray(v) ? v.map(String) : String(v);
  }
  set['content-type'] = contentType;
  set['x-request-id'] = String(reply.request.id);
  return set;
}

/** A streamed reply seen from the pipeline: bytes in, the client's bytes out, usage read on the way. */
export interface ReplyStream {
  /** The client's bytes for an upstream chunk: one Buffer, or pieces to send in order. */
  write(chunk: Buffer): Buffer | Buffer[];
  /** The upstream ended; `fallbackUsage` is the gateway's count when the upstream reported none. */
  end(fallbackUsage: Usage | null): Buffer;
  /** The bytes that tell the client the stream broke off. */
  brokenEvent(): Buffer;
  /** Whether `end` writes usage into closing events (then the gateway's count is worked out). */
  readonly wantsFallbackUsage: boolean;
  readonly usage: Usage | null;
  completionText(): string;
  /** A long text is kept as a sample: its count times this estimates the whole (1 when absent). */
  completionTextRatio?(): number;
}

/**
 * Follows the client's side of a hijacked reply: the upstream is paused by the writer when the
 * socket is full and resumed when it drains, and read on at full speed once the client has left
 * (then `onGone` runs once).
 */
export function followClient(
  res: ServerResponse,
  body: UpstreamBody,
  onGone?: () => void,
): { readonly gone: boolean } {
  const state = { gone: false };
  res.on('close', () => {
    if (res.writableFinished) return;
    state.gone = true;
    onGone?.();
    body.resume();
  });
  res.on('drain', () => body.resume());
  return state;
}

/**
 * Relays an SSE reply through `stream`. After a client disconnect the upstream is still read,
 * bounded in time, so the call is billed for what it produced.
 */
export async function relayEventStream(
  ctx: ReplyContext,
  stream: ReplyStream,
  contentType = 'text/event-stream; charset=utf-8',
): Promise<RelayOutcome> {
  const { s, reply, log } = ctx;
  reply.hijack();
  const res: ServerResponse = reply.raw;
  const body = ctx.response.body;
  let deadline = Number.POSITIVE_INFINITY;
  const deliveredOnly = billsDeliveredOnly(ctx.selection.channel.plugin);
  // Billing needs the rest of the reply after the client left, but not for ever; a channel whose
  // provider stops billing on disconnect is closed at once and billed for what was delivered.
  const client = followClient(res, body, () => {
    if (deliveredOnly) body.cancel();
    else deadline = s.clock.nowMs() + DRAIN_AFTER_ABORT_MS;
  });
  // Keys set one by one: V8 adds keys that follow a spread in a literal one slow call at a time.
  const headers = replyHeaders(reply, contentType);
  headers['cache-control'] = 'no-cache';
  // A stopping node answers `Connection: close` (http/drain.ts): an explicit keep-alive would undo it.
  if (res.shouldKeepAlive) headers.connection = 'keep-alive';
  res.writeHead(200, headers);
  let firstByteMs = 0;
  let failedMidway = false;
  // What one turn of the event loop brings goes out in one write at the end of the turn, with the
  // turn's other writes (turn-end.ts), the end of the stream included: not one system call per
  // upstream chunk. The socket is corked, not the reply: from Node 22 a corked chunked reply keeps
  // its writes in a buffer of its own, which its end() sends after the last chunk (lost to the
  // client) and its uncork() sends as four writes each.
  let held: Socket | null | undefined;
  let ending = false;
  const release = () => {
    const socket = held;
    held = undefined;
    // end() uncorks the socket fully: what it holds and the last chunk leave together.
    if (ending && !res.writableEnded && !res.destroyed) res.end();
    else socket?.uncork();
  };
  const hold = () => {
    if (held !== undefined) return;
    // No socket yet (a pipelined request waiting its turn): Node queues the writes itself.
    held = res.socket;
    held?.cork();
    s.relay.turnEnd.defer(release);
  };
  /** Writes `piece` into this turn's held write; false when the socket is full. */
  const write = (piece: Buffer): boolean => {
    hold();
    return res.write(piece);
  };
  try {
    await body.each({
      data(chunk) {
        if (firstByteMs === 0) firstByteMs = s.clock.nowMs() - ctx.startedMs;
        const out = stream.write(chunk);
        if (client.gone) {
          if (s.clock.nowMs() > deadline) body.cancel();
          return;
        }
        if (out.length === 0) return;
        let room = true;
        if (Array.isArray(out)) {
          for (const piece of out) if (!write(piece)) room = false;
        } else {
          room = write(out);
        }
        if (!room) body.pause();
      },
    });
    let fallback: Usage | null = null;
    if (stream.wantsFallbackUsage && !isMeaningfulUsage(stream.usage)) {
      const tok = await s.relay.counter.tokenizer(ctx.selection.upstreamModel);
      fallback = {
        ...emptyUsage(),
        inputTokens: await ctx.promptTokens(),
        outputTokens: Math.round(
          countText(tok, stream.completionText()) * (stream.completionTextRatio?.() ?? 1),
        ),
        estimated: true,
      };
    }
    const tail = stream.end(fallback);
    if (!client.gone && tail.length > 0) write(tail);
  } catch (err) {
    failedMidway = true;
    log.warn({ err }, 'upstream stream broke');
    if (!client.gone) write(stream.brokenEvent());
  }
  const counting = readyToCount(ctx, stream.usage);
  if (counting) await counting;
  if (!client.gone) {
    hold();
    ending = true;
  }
  if (client.gone && deliveredOnly) {
    // The upstream's usage, if any came, covers at most the start: the text read is what was sent.
    const tok = await s.relay.counter.tokenizer(ctx.selection.upstreamModel);
    return {
      usage: {
        ...emptyUsage(),
        inputTokens: stream.usage?.inputTokens || (await ctx.promptTokens()),
        outputTokens: countText(tok, stream.completionText()),
        estimated: true,
      },
      completionText: () => stream.completionText(),
      firstByteMs,
      clientAborted: true,
      billedDeliveredOnly: true,
      upstreamFailedMidway: false,
    };
  }
  return {
    usage: stream.usage,
    completionText: () => stream.completionText(),
    completionTextRatio: () => stream.completionTextRatio?.() ?? 1,
    firstByteMs,
    clientAborted: client.gone,
    upstreamFailedMidway: failedMidway,
  };
}

/**
 * Sends a whole reply on the hijacked socket: status, headers and body in one write, made at the
 * end of this turn of the event loop with the turn's other writes (turn-end.ts).
 */
export function sendWhole(ctx: ReplyContext, status: number, contentType: string, body: Buffer): void {
  const { reply } = ctx;
  reply.hijack();
  const headers = replyHeaders(reply, contentType);
  headers['content-length'] = String(body.length);
  const res = reply.raw;
  res.writeHead(status, headers);
  ctx.s.relay.turnEnd.defer(() => res.end(body));
}

/** Reads a whole JSON reply and sends `transform(raw)` to the client. */
export async function relayJsonReply(
  ctx: ReplyContext,
  read: (raw: Buffer) => { body: Buffer; contentType: string; usage: Usage | null; text: () => string },
): Promise<RelayOutcome> {
  const raw = await ctx.response.body.whole();
  const firstByteMs = ctx.s.clock.nowMs() - ctx.startedMs;
  const out = read(raw);
  const counting = readyToCount(ctx, out.usage);
  if (counting) await counting;
  sendWhole(ctx, ctx.response.statusCode, out.contentType, out.body);
  return {
    usage: out.usage,
    completionText: out.text,
    firstByteMs,
    clientAborted: false,
    upstreamFailedMidway: false,
  };
}

/**
 * Readies what a local count of a reply without usage needs (the tokenizer, the prompt's count)
 * before the reply's last byte is written: undefined, with nothing to wait for, when the usage is
 * there or the count is ready.
 */
export function readyToCount(ctx: ReplyContext, usage: Usage | null): Promise<unknown> | undefined {
  if (isMeaningfulUsage(usage)) return undefined;
  const model = ctx.selection.upstreamModel;
  const counter = ctx.s.relay.counter;
  const waits: Promise<unknown>[] = [ctx.promptTokens()];
  if (!counter.ready(model)) waits.push(counter.tokenizer(model));
  // A count that cannot be made fails the settlement itself (charge), which gives the reserve back.
  return Promise.all(waits).catch(() => undefined);
}

export function numberField(body: Record<string, unknown>, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = body[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return undefined;
}
