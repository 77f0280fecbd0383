import { providerById, type WireProtocol } from '@switchyard/domain';
import type { Usage } from '../billing/usage.js';
import { parseAnthropicError } from '../providers/anthropic/errors.js';
import { anthropicJsonText, readAnthropicJsonUsage } from '../providers/anthropic/json-meter.js';
import { buildAnthropicRequest } from '../providers/anthropic/request.js';
import { parseGeminiError } from '../providers/gemini/errors.js';
import { geminiJsonText, readGeminiJsonUsage } from '../providers/gemini/json-meter.js';
import { buildGeminiRequest } from '../providers/gemini/request.js';
import { parseUpstreamError, type UpstreamError } from '../providers/openai/errors.js';
import { jsonCompletionText, readJsonUsage } from '../providers/openai/json-meter.js';
import {
  buildOpenAiRequest,
  customPathsFromPlugin,
  type OpenAiChannel,
  type OpenAiRequestInput,
  type UpstreamRequest,
} from '../providers/openai/request.js';
import type { Services } from '../services.js';
import type { RoutableChannel } from './routing/routable-channel.js';

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

export interface ChatBuildInput {
  channel: OpenAiChannel;
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
  build(input: ChatBuildInput, s: Services): UpstreamRequest | Promise<UpstreamRequest>;
  /** For upstreams whose stream is not SSE in the dialect's own framing. */
  reframe?(): StreamReframer;
  parseError(status: number, raw: Buffer, contentType: string): UpstreamError;
  jsonUsage(raw: Buffer): Usage | null;
  jsonText(raw: Buffer): string;
}

export interface ChannelTransport {
  /** Chat-shaped requests (any inbound dialect is translated to `dialect`). */
  chat?: ChatTransport;
  /** OpenAI's other endpoints (embeddings, images, audio, ...), sent as the client wrote them. */
  openAi?: (input: OpenAiRequestInput, s: Services) => UpstreamRequest | Promise<UpstreamRequest>;
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

const TRANSPORTS: Readonly<Partial<Record<WireProtocol, ChannelTransport>>> = {
  openai: { chat: openAiChat, openAi: buildOpenAiRequest },
  // Azure OpenAI speaks OpenAI's bodies under deployment paths; buildOpenAiRequest knows them.
  azure: { chat: openAiChat, openAi: buildOpenAiRequest },
  anthropic: { chat: anthropicChat },
  gemini: { chat: geminiChat },
};

export function protocolOf(channelType: number): WireProtocol {
  return providerById(channelType)?.protocol ?? 'other';
}

/** The transport of a channel type, or undefined when its protocol is not served. */
export function transportFor(channelType: number): ChannelTransport | undefined {
  return TRANSPORTS[protocolOf(channelType)];
}

/** The selected channel cannot serve this request (misconfigured, endpoint disabled): try another. */
export class ChannelUnusable extends Error {}

function firstKeyLine(key: string): string {
  return key.split('\n')[0]?.trim() ?? '';
}

/** What a request builder needs of a channel: its decrypted key and parsed settings. */
export function channelAccess(s: Services, c: RoutableChannel): OpenAiChannel {
  let plugin: unknown = {};
  try {
    plugin = JSON.parse(c.plugin || '{}');
  } catch {
    plugin = {};
  }
  return {
    type: c.type,
    baseUrl: c.baseUrl,
    key: firstKeyLine(s.secretBox.decrypt(c.keySealed)),
    other: c.other,
    headers: c.modelHeaders,
    paths: customPathsFromPlugin(plugin),
  };
}
