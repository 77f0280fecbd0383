import { providerById, type WireProtocol } from '@switchyard/domain';
import type { Usage } from '../../billing/pricing/usage.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { parseAnthropicError } from '../../providers/anthropic/errors.js';
import { anthropicJsonText, readAnthropicJsonUsage } from '../../providers/anthropic/json-meter.js';
import { buildAnthropicRequest } from '../../providers/anthropic/request.js';
import { parseAzureError } from '../../providers/azure/errors.js';
import { buildAzureRequest } from '../../providers/azure/request.js';
import { buildAzureSpeechRequest } from '../../providers/azure-speech/speech.js';
import { buildQianfanRequest, QIANFAN_CHANNEL_TYPE } from '../../providers/baidu/request.js';
import { parseBedrockError } from '../../providers/bedrock/errors.js';
import { buildBedrockRequest } from '../../providers/bedrock/request.js';
import { BedrockStreamDecoder } from '../../providers/bedrock/stream.js';
import { cohereToOpenAiResponse } from '../../providers/cohere/chat.js';
import { parseCohereError } from '../../providers/cohere/errors.js';
import { buildCohereChatRequest, buildCohereRerankRequest } from '../../providers/cohere/request.js';
import { cohereRerankToGateway } from '../../providers/cohere/rerank.js';
import { CohereToOpenAiStream } from '../../providers/cohere/stream.js';
import { fromCohereUsage } from '../../providers/cohere/usage.js';
import { parseGeminiError } from '../../providers/gemini/errors.js';
import { geminiJsonText, readGeminiJsonUsage } from '../../providers/gemini/json-meter.js';
import { buildGeminiRequest } from '../../providers/gemini/request.js';
import { buildJinaRerankRequest, jinaRerankToGateway } from '../../providers/jina/rerank.js';
import { parseUpstreamError, type UpstreamError } from '../../providers/openai/errors.js';
import { jsonCompletionText, readJsonUsage } from '../../providers/openai/json-meter.js';
import {
  buildOpenAiRequest,
  customPathsFromPlugin,
  type OpenAiChannel,
  type OpenAiEndpoint,
  type OpenAiRequestInput,
  UpstreamAddresses,
} from '../../providers/openai/request.js';
import { readRerankRequest } from '../../providers/rerank.js';
import { asRecord, parseJson } from '../../providers/translate/json-reading.js';
import type { UpstreamRequest } from '../../providers/upstream-request.js';
import {
  parseServiceAccount,
  VertexAuthError,
  type VertexTokenCache,
} from '../../providers/vertex/access-token.js';
import { parseVertexError } from '../../providers/vertex/errors.js';
import { buildVertexRequest, vertexPublisher } from '../../providers/vertex/request.js';
import { buildZhipuRequest, ZHIPU_CHANNEL_TYPE } from '../../providers/zhipu/request.js';
import type { ZhipuTokenCache } from '../../providers/zhipu/token.js';
import type { RoutableChannel } from '../routing/routable-channel.js';
import type { ConnectionSettings, UpstreamTimeouts } from '../transport/transport.js';

// THE table of outbound transports, keyed by the catalog's wire protocol (domain/src/providers.ts).
// A channel reaches the relay only through the entry of its type's protocol; a protocol without an
// entry cannot serve requests (the pipeline then tries another channel). Adding a vendor transport
// (Vertex, Bedrock, ...) is one entry here: say which chat dialect its bodies are written in, and
// how to build the upstream request, read its errors and the usage of its JSON replies.

/** The chat wire formats the translators convert between (OpenAI chat is the pivot). */
export type ChatDialect = 'openai' | 'anthropic' | 'gemini';

/** A body for the channel in its own dialect: the client's bytes (passthrough) or a built one. */
export type ChatBody =
  | { kind: 'json'; raw: Buffer; value: Record<string, unknown> }
  | { kind: 'object'; value: Record<string, unknown> };

/** A channel as the builders see it: decrypted key, parsed settings and its `plugin` JSON. */

/**
 * What the transports use of the services (the whole services object satisfies it): the credential
 * caches some vendors sign or exchange with, and the box that opens a channel's key.
 */
export interface TransportServices {
  relay: { vertexTokens: VertexTokenCache; zhipuTokens: ZhipuTokenCache };
  secretBox: SecretBox;
}

export interface ChannelAccess extends OpenAiChannel {
  plugin: unknown;
  /** The channel's own timeouts and private CA (plugin `upstream`), when it sets any. */
  connection?: ConnectionSettings;
}

/**
 * A channel's `plugin.upstream` settings: `connect_timeout`, `first_byte_timeout` and
 * `idle_timeout` in seconds, `ca` a PEM certificate. Undefined when it sets none; values the
 * channel API would refuse are left out. `proxy` is the channel's own column.
 */
export function connectionSettings(plugin: unknown, proxy = ''): ConnectionSettings | undefined {
  const upstream = (plugin as { upstream?: unknown } | null)?.upstream;
  if (typeof upstream !== 'object' || upstream === null)
    return proxy.trim() ? { proxy: proxy.trim() } : undefined;
  const u = upstream as Record<string, unknown>;
  const ms = (v: unknown) => (typeof v === 'number' && v > 0 && Number.isFinite(v) ? v * 1000 : undefined);
  const timeouts: UpstreamTimeouts = {};
  const connect = ms(u.connect_timeout);
  const firstByte = ms(u.first_byte_timeout);
  const idle = ms(u.idle_timeout);
  if (connect !== undefined) timeouts.connectMs = connect;
  if (firstByte !== undefined) timeouts.firstByteMs = firstByte;
  if (idle !== undefined) timeouts.idleMs = idle;
  const out: ConnectionSettings = {};
  if (connect !== undefined || firstByte !== undefined || idle !== undefined) out.timeouts = timeouts;
  if (typeof u.ca === 'string' && u.ca.trim() !== '') out.ca = u.ca;
  if (proxy.trim()) out.proxy = proxy.trim();
  return out.timeouts || out.ca || out.proxy ? out : undefined;
}

/** An OpenAI-shaped request for a channel (the plugin travels with the channel). */
export interface ChannelRequestInput extends OpenAiRequestInput {
  channel: ChannelAccess;
}

/** Upstream response headers, as undici gives them. */
export type UpstreamHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * The upstream refused before a request could be sent (a credential exchange failed): the
 * pipeline treats it as that upstream error (failure policy, retry), not as an unreachable host.
 */
export class UpstreamRefused extends Error {
  constructor(readonly error: UpstreamError) {
    super(error.message);
  }
}

export interface ChatBuildInput {
  channel: ChannelAccess;
  upstreamModel: string;
  body: ChatBody;
  stream: boolean;
  /** Client headers a same-dialect upstream understands (Anthropic version and beta flags). */
  clientHeaders: Readonly<Record<string, string | undefined>>;
}

/**
 * Turns an upstream stream framing that is not SSE (Bedrock's binary event stream) into the SSE of
 * the transport's dialect, before any meter or translator reads it.
 */
export interface StreamReframer {
  write(chunk: Buffer): Buffer;
  end(): Buffer;
}

export interface ChatTransport {
  /** The dialect its chat bodies, replies and streams are written in, for this upstream model. */
  dialect(upstreamModel: string): ChatDialect;
  /** May be async (a transport that first fetches a short-lived access token, for instance). */
  build(input: ChatBuildInput, s: TransportServices): UpstreamRequest | Promise<UpstreamRequest>;
  /**
   * For upstreams whose stream is not SSE in the dialect's own framing, or not in a dialect at all
   * (Cohere: translated to OpenAI chunks). `model` is the name the client sees.
   */
  reframe?(model: string): StreamReframer;
  /** For upstreams whose JSON reply is not in the dialect (Cohere): the reply in the dialect. */
  toDialectJson?(raw: Buffer, model: string): Buffer;
  /** The upstream refused the channel's credential (401): drop what is cached for it. */
  refused?(channel: ChannelAccess, s: TransportServices): void;
  parseError(status: number, raw: Buffer, contentType: string, headers?: UpstreamHeaders): UpstreamError;
  /** Usage of a JSON reply as the upstream sent it (before `toDialectJson`). */
  jsonUsage(raw: Buffer): Usage | null;
  jsonText(raw: Buffer): string;
}

/** What the relay needs to answer a non-OpenAI vendor's reply to an OpenAI-shaped request. */
export interface OpenAiReplyInput {
  endpoint: OpenAiEndpoint;
  /** The model the client asked for (named in the answer). */
  model: string;
  /** The client's JSON body. */
  body: Record<string, unknown>;
  /** The relay's count of the prompt (for vendors that report no tokens). */
  promptTokens: number;
}

export interface ChannelTransport {
  /** Chat-shaped requests (any inbound dialect is translated to `dialect`). */
  chat?: ChatTransport;
  /** OpenAI's other endpoints (embeddings, images, audio, ...), sent as the client wrote them. */
  openAi?: (input: ChannelRequestInput, s: TransportServices) => UpstreamRequest | Promise<UpstreamRequest>;
  /** The OpenAI endpoints `openAi` serves, when not every one (a rerank-only vendor). */
  openAiEndpoints?: ReadonlySet<OpenAiEndpoint>;
  /** Its error bodies on those endpoints, when not OpenAI's. */
  openAiError?: (status: number, raw: Buffer, contentType: string) => UpstreamError;
  /**
   * Its JSON replies in the gateway's shape, with the usage the vendor reported (null: the relay
   * counts, marked estimated). Without it the reply passes through and is read as OpenAI's.
   */
  openAiReply?: (raw: Buffer, x: OpenAiReplyInput) => { body: Buffer; usage: Usage | null };
}

function jsonBody(body: ChatBody): { kind: 'json'; raw: Buffer; value: Record<string, unknown> } {
  if (body.kind === 'json') return body;
  return { kind: 'json', raw: Buffer.from(JSON.stringify(body.value)), value: body.value };
}

const openAiChat: ChatTransport = {
  dialect: () => 'openai',
  build: (x) =>
    buildOpenAiRequest({
      channel: x.channel,
      endpoint: 'chat/completions',
      upstreamModel: x.upstreamModel,
      body: jsonBody(x.body),
    }),
  parseError: parseUpstreamError,
  jsonUsage: readJsonUsage,
  jsonText: jsonCompletionText,
};

const anthropicChat: ChatTransport = {
  dialect: () => 'anthropic',
  build: (x) =>
    buildAnthropicRequest({
      channel: x.channel,
      endpoint: 'messages',
      upstreamModel: x.upstreamModel,
      body: x.body,
      clientVersion: x.clientHeaders['anthropic-version'],
      clientBeta: x.clientHeaders['anthropic-beta'],
    }),
  parseError: parseAnthropicError,
  jsonUsage: readAnthropicJsonUsage,
  jsonText: anthropicJsonText,
};

const geminiChat: ChatTransport = {
  dialect: () => 'gemini',
  build: (x) =>
    buildGeminiRequest({
      channel: x.channel,
      action: x.stream ? 'streamGenerateContent' : 'generateContent',
      upstreamModel: x.upstreamModel,
      body: x.body.kind === 'json' ? { kind: 'json', raw: x.body.raw } : x.body,
    }),
  parseError: parseGeminiError,
  jsonUsage: readGeminiJsonUsage,
  jsonText: geminiJsonText,
};

// Azure OpenAI speaks OpenAI's bodies under deployment paths (azure/request.ts), with its own
// error shape (content filter codes).
const azureChat: ChatTransport = {
  ...openAiChat,
  build: (x) =>
    buildAzureRequest({
      channel: x.channel,
      endpoint: 'chat/completions',
      upstreamModel: x.upstreamModel,
      body: jsonBody(x.body),
    }),
  parseError: parseAzureError,
};

/** The body with `stream` said as the relay decided (translated bodies may not carry it). */
function withStream(value: Record<string, unknown>, stream: boolean): Record<string, unknown> {
  if (stream) return value.stream === true ? value : { ...value, stream: true };
  if (value.stream === undefined) return value;
  const { stream: _stream, ...rest } = value;
  return rest;
}

const EMPTY = Buffer.alloc(0);

// Bedrock: Claude's Messages bodies, SigV4-signed, and a binary event stream that is reframed to
// Anthropic SSE before anything reads it.
const bedrockChat: ChatTransport = {
  dialect: () => 'anthropic',
  build: (x) =>
    buildBedrockRequest({
      channel: x.channel,
      upstreamModel: x.upstreamModel,
      body: { kind: x.body.kind, value: withStream(x.body.value, x.stream) },
      ...(x.clientHeaders['anthropic-beta'] ? { clientBeta: x.clientHeaders['anthropic-beta'] } : {}),
    }),
  reframe() {
    const decoder = new BedrockStreamDecoder();
    return {
      write: (chunk) => decoder.write(chunk),
      end() {
        // A frame cut off by the upstream is a broken stream, not a finished one.
        if (decoder.leftover > 0) throw new Error('the Bedrock event stream ended inside a frame');
        return EMPTY;
      },
    };
  },
  parseError: (status, raw, contentType, headers) => {
    const type = headers?.['x-amzn-errortype'];
    return parseBedrockError(status, raw, Array.isArray(type) ? type[0] : type, contentType);
  },
  jsonUsage: readAnthropicJsonUsage,
  jsonText: anthropicJsonText,
};

function isAnthropicMessage(raw: Buffer): boolean {
  return asRecord(parseJson(raw.toString('utf8')))?.type === 'message';
}

// Vertex AI: Gemini models in Gemini's format, Claude models in Anthropic's (per model), behind a
// short-lived access token exchanged for the channel's service account and cached by the services.
const vertexChat: ChatTransport = {
  dialect: (model) => (vertexPublisher(model) === 'anthropic' ? 'anthropic' : 'gemini'),
  async build(x, s) {
    try {
      return await buildVertexRequest(
        {
          channel: x.channel,
          upstreamModel: x.upstreamModel,
          body:
            x.body.kind === 'json'
              ? { kind: 'json', raw: x.body.raw, value: x.body.value }
              : { kind: 'object', value: x.body.value },
          stream: x.stream,
        },
        s.relay.vertexTokens,
      );
    } catch (err) {
      if (err instanceof VertexAuthError) throw new UpstreamRefused(err.toUpstreamError());
      throw err;
    }
  },
  refused(channel, s) {
    try {
      s.relay.vertexTokens.invalidate(parseServiceAccount(channel.key));
    } catch {
      // A key that does not parse has no cached token.
    }
  },
  parseError: parseVertexError,
  jsonUsage: (raw) => (isAnthropicMessage(raw) ? readAnthropicJsonUsage(raw) : readGeminiJsonUsage(raw)),
  jsonText: (raw) => (isAnthropicMessage(raw) ? anthropicJsonText(raw) : geminiJsonText(raw)),
};

function cohereAsOpenAi(raw: Buffer, model: string): Buffer {
  return Buffer.from(JSON.stringify(cohereToOpenAiResponse(parseJson(raw.toString('utf8')), { model })));
}

// Cohere Chat v2: built from OpenAI chat bodies; its replies and streams are turned into OpenAI's
// before the relay reads them, so every inbound dialect reaches it through the OpenAI pivot.
const cohereChat: ChatTransport = {
  dialect: () => 'openai',
  build: (x) =>
    buildCohereChatRequest({
      channel: x.channel,
      upstreamModel: x.upstreamModel,
      body: withStream(x.body.value, x.stream),
    }),
  reframe(model) {
    const t = new CohereToOpenAiStream({ model, includeUsage: true });
    return { write: (chunk) => t.write(chunk), end: () => t.end() };
  },
  toDialectJson: cohereAsOpenAi,
  parseError: parseCohereError,
  jsonUsage: (raw) => fromCohereUsage(asRecord(parseJson(raw.toString('utf8')))?.usage),
  jsonText: (raw) => jsonCompletionText(cohereAsOpenAi(raw, '')),
};

const RERANK_ONLY: ReadonlySet<OpenAiEndpoint> = new Set(['rerank']);

const cohere: ChannelTransport = {
  chat: cohereChat,
  openAi: (x) =>
    buildCohereRerankRequest({
      channel: x.channel,
      upstreamModel: x.upstreamModel,
      request: readRerankRequest(x.body.kind === 'json' ? x.body.value : {}),
    }),
  openAiEndpoints: RERANK_ONLY,
  openAiError: parseCohereError,
  // Cohere bills search units and reports no tokens: the relay's count is billed, as an estimate.
  openAiReply: (raw, x) => ({
    body: Buffer.from(
      JSON.stringify(cohereRerankToGateway(raw, readRerankRequest(x.body), x.model, x.promptTokens).response),
    ),
    usage: null,
  }),
};

const jina: ChannelTransport = {
  openAi: (x) =>
    buildJinaRerankRequest({
      channel: x.channel,
      upstreamModel: x.upstreamModel,
      request: readRerankRequest(x.body.kind === 'json' ? x.body.value : {}),
    }),
  openAiEndpoints: RERANK_ONLY,
  openAiReply: (raw, x) => {
    const out = jinaRerankToGateway(raw, readRerankRequest(x.body), x.model);
    return { body: Buffer.from(JSON.stringify(out.response)), usage: out.usage };
  },
};

// Azure Speech: OpenAI speech bodies become SSML; the audio streams back as it is synthesised and
// is billed on the input characters the relay counted.
const azureSpeech: ChannelTransport = {
  openAi: (x) =>
    buildAzureSpeechRequest({ channel: x.channel, body: x.body.kind === 'json' ? x.body.value : {} }).request,
  openAiEndpoints: new Set(['audio/speech']),
  openAiError: parseAzureError,
};

const TRANSPORTS: Readonly<Partial<Record<WireProtocol, ChannelTransport>>> = {
  openai: { chat: openAiChat, openAi: buildOpenAiRequest },
  azure: { chat: azureChat, openAi: buildAzureRequest, openAiError: parseAzureError },
  anthropic: { chat: anthropicChat },
  gemini: { chat: geminiChat },
  bedrock: { chat: bedrockChat },
  vertex: { chat: vertexChat },
  cohere,
  jina,
  'azure-speech': azureSpeech,
};

// OpenAI-compatible vendors whose auth differs from a Bearer key: their catalog protocol stays
// `openai` (same bodies, meters and errors) and the request builder is theirs.
const zhipu: ChannelTransport = {
  chat: {
    ...openAiChat,
    build: (x, s) =>
      buildZhipuRequest(
        {
          channel: x.channel,
          endpoint: 'chat/completions',
          upstreamModel: x.upstreamModel,
          body: jsonBody(x.body),
          plugin: x.channel.plugin,
        },
        s.relay.zhipuTokens,
      ),
  },
  openAi: (x, s) => buildZhipuRequest({ ...x, plugin: x.channel.plugin }, s.relay.zhipuTokens),
};

const qianfan: ChannelTransport = {
  chat: {
    ...openAiChat,
    build: (x) =>
      buildQianfanRequest({
        channel: x.channel,
        endpoint: 'chat/completions',
        upstreamModel: x.upstreamModel,
        body: jsonBody(x.body),
      }),
  },
  openAi: buildQianfanRequest,
};

const BY_TYPE: Readonly<Record<number, ChannelTransport>> = {
  [ZHIPU_CHANNEL_TYPE]: zhipu,
  [QIANFAN_CHANNEL_TYPE]: qianfan,
};

export function protocolOf(channelType: number): WireProtocol {
  return providerById(channelType)?.protocol ?? 'other';
}

/** The transport of a channel type, or undefined when its protocol is not served. */
export function transportFor(channelType: number): ChannelTransport | undefined {
  return BY_TYPE[channelType] ?? TRANSPORTS[protocolOf(channelType)];
}

/** Whether a channel type serves an OpenAI endpoint other than chat. */
export function servesOpenAiEndpoint(channelType: number, endpoint: OpenAiEndpoint): boolean {
  const t = transportFor(channelType);
  return t?.openAi !== undefined && (t.openAiEndpoints === undefined || t.openAiEndpoints.has(endpoint));
}

/** The selected channel cannot serve this request (misconfigured, endpoint disabled): try another. */
export class ChannelUnusable extends Error {}

function firstKeyLine(key: string): string {
  return key.split('\n')[0]?.trim() ?? '';
}

/** What a request builder needs of a channel: its decrypted key and parsed settings. */
export function channelAccess(s: TransportServices, c: RoutableChannel): ChannelAccess {
  let plugin: unknown = {};
  try {
    plugin = JSON.parse(c.plugin || '{}');
  } catch {
    plugin = {};
  }
  const access: ChannelAccess = {
    type: c.type,
    baseUrl: c.baseUrl,
    key: firstKeyLine(s.secretBox.decrypt(c.keySealed)),
    other: c.other,
    headers: c.modelHeaders,
    paths: customPathsFromPlugin(plugin),
    plugin,
  };
  const connection = connectionSettings(plugin, c.proxy);
  if (connection) access.connection = connection;
  access.addresses = new UpstreamAddresses(access);
  return access;
}
