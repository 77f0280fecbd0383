import { providerById } from '@switchyard/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type BearerKey, bearerKeyFromHeaders, parseBearerKey } from '../auth/api-keys.js';
import { ImageFetchError, inlineImageUrls } from '../outbound/image-fetch.js';
import {
  channelSupportsIncludeUsage,
  MAX_COMPLETION_TOKENS_CHANNEL_TYPES,
  type OpenAiChannel,
  REASONING_EFFORT_CHANNEL_TYPES,
  UnsupportedEndpointError,
} from '../providers/openai/request.js';
import { countChatRequest } from '../providers/token-counter.js';
import {
  AnthropicToOpenAiStream,
  anthropicToOpenAiRequest,
  anthropicToOpenAiResponse,
  OpenAiToAnthropicStream,
  openAiToAnthropicRequest,
  openAiToAnthropicResponse,
} from '../providers/translate/openai-anthropic.js';
import {
  refuseAnthropicFieldsForOpenAi,
  structuredOutputOf,
} from '../providers/translate/openai-anthropic-request.js';
import {
  GeminiToOpenAiStream,
  geminiToOpenAiRequest,
  geminiToOpenAiResponse,
  OpenAiToGeminiStream,
  openAiToGeminiRequest,
  openAiToGeminiResponse,
} from '../providers/translate/openai-gemini.js';
import { refuseGeminiFieldsForOpenAi } from '../providers/translate/openai-gemini-request.js';
import {
  chatToResponsesResponse,
  refuseResponsesFieldsForChat,
  responsesToChatRequest,
} from '../providers/translate/responses-chat.js';
import { ChatToResponsesStream } from '../providers/translate/responses-chat-stream.js';
import type { StreamTranslator } from '../providers/translate/stream-translator.js';
import { TranslationError } from '../providers/translate/translation-error.js';
import { ChannelConfigError } from '../providers/upstream-request.js';
import type { Services } from '../services.js';
import {
  type ChannelAccess,
  ChannelUnusable,
  type ChatDialect,
  type ChatTransport,
  protocolOf,
  transportFor,
} from './channels/channel-transports.js';
import type { InboundDialect } from './dialect-errors.js';
import { parseJsonBody } from './inbound/relay-body.js';
import type { RelayReply, RelayRequest } from './inbound/relay-exchange.js';
import { nativeTokenCount, TOKEN_COUNT_HEADER } from './native/count-tokens.js';
import { RelayError, relayErrors } from './relay-error.js';
import {
  type Exchange,
  numberField,
  type RelayCall,
  type ReplyContext,
  type ReplyStream,
  relayEventStream,
  relayJsonReply,
  runRelay,
} from './relay-pipeline.js';
import {
  clientWantsUsage,
  GeminiArrayFraming,
  passthroughFor,
  reframed,
  translatedStream,
} from './reply-streams.js';
import { mergeCustomParameter } from './request-policies/custom-parameter.js';
import { withOpenThink } from './request-policies/gemini-open-think.js';
import { chatPromptTexts, refusedPrompt } from './request-policies/safe-keywords.js';

type Json = Record<string, unknown>;

// Chat-shaped requests in any inbound dialect (OpenAI chat, Anthropic Messages, Gemini
// generateContent, OpenAI Responses) to a channel of any chat protocol. Same dialect on both sides:
// the client's bytes go out unchanged but for the model name, and the reply comes back unchanged.
// Different: the request, the reply and the stream are translated through OpenAI chat, the pivot
// every translator speaks. Billing reads the upstream's usage, normalised, either way.

/** How the route was called, beyond the body: Gemini puts the model and the action in the URL. */
export interface ChatRoute {
  model?: string;
  stream?: boolean;
  /** Gemini streams: the client asked for SSE (`alt=sse`) rather than one JSON array. */
  sse?: boolean;
}

function header(req: RelayRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The key of a request in the places each dialect's SDKs put it. */
export function inboundKey(dialect: InboundDialect, req: RelayRequest): BearerKey | null {
  if (dialect === 'gemini') {
    const query = (req.query ?? {}) as Record<string, unknown>;
    return (
      parseBearerKey(header(req, 'x-goog-api-key')) ??
      parseBearerKey(typeof query.key === 'string' ? query.key : undefined) ??
      bearerKeyFromHeaders(req.headers)
    );
  }
  return bearerKeyFromHeaders(req.headers);
}

/** The one-hub switches for the native Claude and Gemini endpoints. */
function checkEnabled(s: Services, dialect: InboundDialect): void {
  const o = s.options.current;
  if (dialect === 'anthropic' && !o.ClaudeAPIEnabled) {
    throw new RelayError(
      403,
      'permission_error',
      'api_not_supported',
      'The Anthropic Messages API is turned off',
    );
  }
  if (dialect === 'gemini' && !o.GeminiAPIEnabled) {
    throw new RelayError(403, 'permission_error', 'api_not_supported', 'The Gemini API is turned off');
  }
}

function translating<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof TranslationError) throw relayErrors.badRequest(err.message, err.param);
    throw err;
  }
}

/** The client's body as an OpenAI chat body: what is counted, and what other protocols are built from. */
function toPivot(dialect: InboundDialect, value: Json, model: string, stream: boolean): Json {
  return translating(() => {
    switch (dialect) {
      case 'anthropic':
        return anthropicToOpenAiRequest(value, { model }) as unknown as Json;
      case 'gemini':
        return geminiToOpenAiRequest(value, { model, stream }) as unknown as Json;
      case 'responses':
        return responsesToChatRequest(value, { model }) as unknown as Json;
      default:
        return value;
    }
  });
}

function modelOf(dialect: InboundDialect, value: Json, route: ChatRoute): string {
  const model = dialect === 'gemini' ? route.model : value.model;
  if (typeof model !== 'string' || model.trim() === '')
    throw relayErrors.badRequest('model is required', 'model');
  return model;
}

/** The pivot's stream translator from the upstream's dialect, or none when the upstream speaks OpenAI. */
function fromUpstream(
  target: ChatDialect,
  model: string,
  includeUsage: boolean,
  pivot: Json,
): StreamTranslator | undefined {
  if (target === 'anthropic')
    return new AnthropicToOpenAiStream({ model, includeUsage, structuredTool: structuredOutputOf(pivot) });
  if (target === 'gemini') return new GeminiToOpenAiStream({ model, includeUsage });
  return undefined;
}

/** The stream translator into the client's dialect, or none when the client speaks OpenAI chat. */
function toClient(
  dialect: InboundDialect,
  model: string,
  value: Json,
  promptTokens: number,
): StreamTranslator | undefined {
  if (dialect === 'anthropic')
    return new OpenAiToAnthropicStream({ model, estimatedInputTokens: promptTokens });
  if (dialect === 'gemini') return new OpenAiToGeminiStream({ model });
  if (dialect === 'responses') return new ChatToResponsesStream({ model, request: value });
  return undefined;
}

/** A reply body of the upstream's dialect as the client's, through the pivot. */
function translateReply(
  target: ChatDialect,
  dialect: InboundDialect,
  raw: Buffer,
  model: string,
  value: Json,
  request: Json,
): Buffer {
  let upstream: unknown;
  try {
    upstream = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new RelayError(
      502,
      'upstream_error',
      'upstream_bad_reply',
      'The upstream answered with invalid JSON',
    );
  }
  const u = (upstream ?? {}) as Json;
  const pivot: Json =
    target === 'anthropic'
      ? (anthropicToOpenAiResponse(u, {
          model,
          structuredTool: structuredOutputOf(request),
        }) as unknown as Json)
      : target === 'gemini'
        ? (geminiToOpenAiResponse(u, { model }) as unknown as Json)
        : u;
  let out: unknown = pivot;
  if (dialect === 'anthropic') out = openAiToAnthropicResponse(pivot, { model });
  else if (dialect === 'gemini') out = openAiToGeminiResponse(pivot, { model });
  else if (dialect === 'responses') out = chatToResponsesResponse(pivot, value, { model });
  return Buffer.from(JSON.stringify(out));
}

function readUpstreamJson(read: () => Buffer): Buffer {
  try {
    return read();
  } catch {
    throw new RelayError(
      502,
      'upstream_error',
      'upstream_bad_reply',
      'The upstream answered with invalid JSON',
    );
  }
}

interface Inbound {
  dialect: InboundDialect;
  route: ChatRoute;
  raw: Buffer;
  value: Json;
  model: string;
  stream: boolean;
  pivot: Json;
  clientHeaders: Record<string, string | undefined>;
}

function streamFor(
  inb: Inbound,
  transport: ChatTransport,
  target: ChatDialect,
  passthrough: boolean,
  promptTokens: number,
): ReplyStream {
  let stream: ReplyStream;
  if (passthrough) {
    stream = passthroughFor(inb.dialect, inb.value);
  } else {
    const usageChunk = inb.dialect === 'openai' ? clientWantsUsage(inb.value) : true;
    const first = fromUpstream(target, inb.model, usageChunk, inb.pivot);
    const last = toClient(inb.dialect, inb.model, inb.value, promptTokens);
    const chain = [first, last].filter((t): t is StreamTranslator => t !== undefined);
    if (!chain[0]) throw new Error('a translated stream needs a translator');
    stream = translatedStream(chain[0], chain[1]);
  }
  if (transport.reframe) stream = reframed(stream, transport.reframe(inb.model));
  return inb.dialect === 'gemini' && !inb.route.sse ? new GeminiArrayFraming(stream) : stream;
}

async function relayReply(
  ctx: ReplyContext,
  inb: Inbound,
  transport: ChatTransport,
  target: ChatDialect,
  passthrough: boolean,
) {
  if (inb.stream) {
    const framedAsArray = inb.dialect === 'gemini' && !inb.route.sse;
    // Anthropic's message_start states the input tokens before any usage has arrived.
    const promptTokens = !passthrough && inb.dialect === 'anthropic' ? await ctx.promptTokens() : 0;
    return relayEventStream(
      ctx,
      streamFor(inb, transport, target, passthrough, promptTokens),
      framedAsArray ? 'application/json; charset=utf-8' : undefined,
    );
  }
  return relayJsonReply(ctx, (raw) => {
    // A vendor whose replies are not in its dialect (Cohere) is read into it first.
    const own = transport.toDialectJson
      ? readUpstreamJson(() => transport.toDialectJson!(raw, inb.model))
      : raw;
    const keepsBytes = passthrough && own === raw;
    return {
      body: passthrough ? own : translateReply(target, inb.dialect, own, inb.model, inb.value, inb.pivot),
      contentType: keepsBytes
        ? String(ctx.response.headers['content-type'] ?? 'application/json')
        : 'application/json',
      usage: transport.jsonUsage(raw),
      text: () => transport.jsonText(raw),
    };
  });
}

/** Whether the catalog says this channel type serves the Responses API itself. */
function servesResponses(channelType: number): boolean {
  return providerById(channelType)?.nativeResponses === true;
}

/**
 * An OpenAI chat body (the pivot) as a body of the channel's dialect for `model`. The Claude
 * options supply max_tokens when the client set none and the thinking budget share.
 */
export function translateChatRequest(
  s: Services,
  target: ChatDialect,
  pivot: Json,
  model: string,
  channel: OpenAiChannel,
): Json {
  if (target === 'anthropic') {
    const o = s.options.current;
    return translating(
      () =>
        openAiToAnthropicRequest(pivot, {
          model,
          defaultMaxTokens: o.ClaudeDefaultMaxTokens,
          thinkingShare: o.ClaudeBudgetTokensPercentage,
        }) as unknown as Json,
    );
  }
  if (target === 'gemini')
    return translating(() => openAiToGeminiRequest(pivot, { model }) as unknown as Json);
  const body: Json = { ...pivot, model };
  if (!channelSupportsIncludeUsage(channel)) delete body.stream_options;
  if (!REASONING_EFFORT_CHANNEL_TYPES.has(channel.type)) delete body.reasoning_effort;
  if (MAX_COMPLETION_TOKENS_CHANNEL_TYPES.has(channel.type) && body.max_tokens !== undefined) {
    body.max_completion_tokens ??= body.max_tokens;
    delete body.max_tokens;
  }
  return body;
}

/** `pivot` with its image URLs fetched into data URLs, through the image proxy or worker the options name. */
async function inlineImages(s: Services, pivot: Json): Promise<Json> {
  const o = s.options.current;
  const settings = {
    proxy: o.ChatImageRequestProxy,
    workerUrl: o.CFWorkerImageUrl,
    workerKey: o.CFWorkerImageKey,
  };
  try {
    return await inlineImageUrls(pivot, (url) => s.relay.images.fetch(url, settings));
  } catch (err) {
    if (err instanceof ImageFetchError) throw relayErrors.badRequest(err.message);
    throw err;
  }
}

/** The transport's error reader; a refused credential also drops what the transport cached for it. */
function readErrors(s: Services, transport: ChatTransport, channel: ChannelAccess): Exchange['parseError'] {
  return (status, raw, contentType, headers) => {
    if (status === 401) transport.refused?.(channel, s);
    return transport.parseError(status, raw, contentType, headers);
  };
}

async function prepare(
  s: Services,
  inbound: Inbound,
  selection: ReplyContext['selection'],
  channel: Parameters<RelayCall['prepare']>[1],
): Promise<Exchange> {
  let inb = inbound;
  const entry = transportFor(channel.type);
  const transport = entry?.chat;
  if (!entry || !transport) {
    throw new ChannelUnusable(
      `channel type ${channel.type} (${protocolOf(channel.type)}) does not serve chat requests`,
    );
  }
  const model = selection.upstreamModel;
  const target = transport.dialect(model);
  const custom = selection.channel.customParameter;
  // pre_add: the channel's values join the client's body before it is read and translated.
  if (custom?.preAdd) inb = withBody(inb, mergeCustomParameter(inb.value, custom, inb.model));
  try {
    if (inb.dialect === 'responses' && target === 'openai' && entry.openAi && servesResponses(channel.type)) {
      if (custom && !custom.preAdd) inb = withBody(inb, mergeCustomParameter(inb.value, custom, model));
      const request = await entry.openAi(
        {
          channel,
          endpoint: 'responses',
          upstreamModel: model,
          body: { kind: 'json', raw: inb.raw, value: inb.value },
        },
        s,
      );
      return {
        request,
        wholeReply: !inb.stream,
        parseError: readErrors(s, transport, channel),
        relay: (ctx) => relayReply(ctx, inb, transport, target, true),
      };
    }
    const passthrough = inb.dialect === target;
    if (!passthrough) translating(() => refuseUntranslatable(inb));
    // Gemini reads images from inline bytes: the gateway fetches the image URLs (outbound/image-fetch.ts).
    const pivot = !passthrough && target === 'gemini' ? await inlineImages(s, inb.pivot) : inb.pivot;
    let body = passthrough ? inb.value : translateChatRequest(s, target, pivot, model, channel);
    const thinking =
      target === 'gemini' ? withOpenThink(body, model, s.options.current.GeminiOpenThink) : body;
    const rewritten = thinking !== body;
    body = thinking;
    // Otherwise merged into the body in the upstream's dialect; the client's bytes pass untouched
    // only through channels without custom parameters.
    const merged = custom && !custom.preAdd;
    if (merged) body = mergeCustomParameter(body, custom, model);
    const request = await transport.build(
      {
        channel,
        upstreamModel: model,
        body:
          passthrough && !merged && !rewritten && !custom?.preAdd
            ? { kind: 'json', raw: inb.raw, value: inb.value }
            : { kind: 'object', value: body },
        stream: inb.stream,
        clientHeaders: passthrough ? inb.clientHeaders : {},
      },
      s,
    );
    return {
      request,
      wholeReply: !inb.stream,
      parseError: readErrors(s, transport, channel),
      relay: (ctx) => relayReply(ctx, inb, transport, target, passthrough),
    };
  } catch (err) {
    if (err instanceof UnsupportedEndpointError || err instanceof ChannelConfigError) {
      throw new ChannelUnusable(err.message);
    }
    throw err;
  }
}

/** The inbound request with another body (the channel's pre_add parameters merged). */
function withBody(inb: Inbound, value: Json): Inbound {
  const raw = Buffer.from(JSON.stringify(value));
  return { ...inb, raw, value, pivot: toPivot(inb.dialect, value, inb.model, inb.stream) };
}

/** What the client's dialect asks for that the pivot cannot carry, refused before translating. */
function refuseUntranslatable(inb: Inbound): void {
  if (inb.dialect === 'anthropic') refuseAnthropicFieldsForOpenAi(inb.value);
  else if (inb.dialect === 'gemini') refuseGeminiFieldsForOpenAi(inb.value);
  else if (inb.dialect === 'responses') refuseResponsesFieldsForChat(inb.value);
}

function readInbound(dialect: InboundDialect, req: RelayRequest, route: ChatRoute): Inbound {
  const { raw, value } = parseJsonBody(req.body);
  const model = modelOf(dialect, value, route);
  const stream = dialect === 'gemini' ? route.stream === true : value.stream === true;
  return {
    dialect,
    route,
    raw,
    value,
    model,
    stream,
    pivot: toPivot(dialect, value, model, stream),
    clientHeaders: {
      'anthropic-version': header(req, 'anthropic-version'),
      'anthropic-beta': header(req, 'anthropic-beta'),
    },
  };
}

/** One chat-shaped request through the pipeline. */
export async function relayChat(
  s: Services,
  dialect: InboundDialect,
  req: RelayRequest,
  reply: RelayReply,
  route: ChatRoute = {},
) {
  checkEnabled(s, dialect);
  return runRelay(s, inboundKey(dialect, req), req, reply, async () => {
    const inb = readInbound(dialect, req, route);
    const refused = refusedPrompt(s.relay.safety, s.options.current, () => chatPromptTexts(inb.pivot));
    if (refused) throw relayErrors.promptRefused(refused.rule, refused.keyword);
    const call: RelayCall = {
      model: inb.model,
      maxTokens: numberField(inb.pivot, 'max_tokens', 'max_completion_tokens'),
      n: numberField(inb.pivot, 'n'),
      needsTools: Array.isArray(inb.pivot.tools) && inb.pivot.tools.length > 0,
      retryable: true,
      isStream: inb.stream,
      estimateOutput: true,
      estimatePrompt: (counting) => countChatRequest(s.relay.counter.estimator(), inb.pivot, counting),
      countPrompt: async (counting) =>
        countChatRequest(await s.relay.counter.tokenizer(inb.model), inb.pivot, counting),
      unservedBy: (type) =>
        transportFor(type)?.chat
          ? undefined
          : `No channel for ${inb.model} can serve chat requests (channel type ${type} speaks ${protocolOf(type)})`,
      prepare: (selection, channel) => prepare(s, inb, selection, channel),
    };
    return call;
  });
}

/**
 * A count-tokens endpoint: the key and the model allow-list are checked as for a real call (before
 * the body is read); then a channel of the client's protocol counts it when the model has one, else
 * the gateway's tokenizer estimates it, and the reply header says which. Nothing is billed.
 */
async function countPrompt(
  s: Services,
  dialect: 'anthropic' | 'gemini',
  req: FastifyRequest,
  reply: FastifyReply,
  read: () => { value: Json; raw: Buffer; model: string; counted: Json },
): Promise<unknown> {
  checkEnabled(s, dialect);
  const caller = await s.relay.auth.authenticate(inboundKey(dialect, req), req.ip, s.relay.tables.groups);
  const { value, raw, model, counted } = read();
  if (caller.allowedModels && !caller.allowedModels.has(model)) throw relayErrors.modelNotAllowed(model);
  const upstream = await nativeTokenCount(s, {
    protocol: dialect,
    caller,
    model,
    value,
    raw,
    clientVersion: header(req, 'anthropic-version'),
    clientBeta: header(req, 'anthropic-beta'),
    log: req.log,
  });
  if (upstream !== undefined) {
    reply.header(TOKEN_COUNT_HEADER, 'upstream');
    return upstream;
  }
  reply.header(TOKEN_COUNT_HEADER, 'estimated');
  const pivot = toPivot(dialect, counted, model, false);
  const tokens = countChatRequest(await s.relay.counter.tokenizer(model), pivot);
  return dialect === 'anthropic' ? { input_tokens: tokens } : { totalTokens: tokens };
}

/** Anthropic's `POST /v1/messages/count_tokens`. */
export async function countAnthropicTokens(s: Services, req: FastifyRequest, reply: FastifyReply) {
  return countPrompt(s, 'anthropic', req, reply, () => {
    const { value, raw } = parseJsonBody(req.body);
    return { value, raw, model: modelOf('anthropic', value, {}), counted: value };
  });
}

/** Gemini's `models/{model}:countTokens` (its `generateContentRequest` wrapper understood too). */
export async function countGeminiTokens(
  s: Services,
  req: FastifyRequest,
  reply: FastifyReply,
  model: string,
) {
  return countPrompt(s, 'gemini', req, reply, () => {
    const { value, raw } = parseJsonBody(req.body);
    const wrapped = value.generateContentRequest ?? value.generate_content_request;
    const counted = typeof wrapped === 'object' && wrapped !== null ? (wrapped as Json) : value;
    return { value, raw, model, counted };
  });
}
