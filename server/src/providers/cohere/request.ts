import { providerById } from '@switchyard/domain';
import type { OpenAiChannel } from '../openai/request.js';
import type { RerankRequest } from '../rerank.js';
import type { JsonRecord } from '../translate/json-reading.js';
import { ChannelConfigError, type UpstreamRequest, upstreamRequest } from '../upstream-request.js';
import { openAiToCohereChat } from './chat.js';

// Requests of a Cohere channel: Chat v2 (`POST /v2/chat`) from an OpenAI chat body and Rerank v2
// (`POST /v2/rerank`) from the gateway's rerank body, with the key as a Bearer token.

export const COHERE_DEFAULT_BASE_URL = 'https://api.cohere.com';

export type CohereChannel = Pick<OpenAiChannel, 'type' | 'baseUrl' | 'key' | 'headers'>;

const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'authorization',
  'accept',
  'accept-encoding',
]);

function root(channel: CohereChannel): { origin: string; prefix: string } {
  const base =
    channel.baseUrl.trim() || providerById(channel.type)?.defaultBaseUrl || COHERE_DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ChannelConfigError(`invalid base URL: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ChannelConfigError(`base URL must be http(s): ${base}`);
  // A base URL given with its version (`https://api.cohere.com/v2`) is the same API root.
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '').replace(/\/v[12]$/, '') };
}

function post(channel: CohereChannel, rel: string, value: JsonRecord, stream: boolean): UpstreamRequest {
  const url = root(channel);
  const path = `${url.prefix}/${rel}`;
  const body = Buffer.from(JSON.stringify(value));
  const headers: Record<string, string> = {};
  for (const [rawName, v] of Object.entries(channel.headers ?? {})) {
    const name = rawName.toLowerCase();
    if (!RESERVED_HEADERS.has(name)) headers[name] = v;
  }
  Object.assign(headers, {
    authorization: `Bearer ${channel.key}`,
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'content-length': String(body.length),
    'accept-encoding': 'identity',
  });
  return upstreamRequest('POST', url.origin, path, headers, body, true, stream);
}

/** Chat v2 from an OpenAI chat/completions body. */
export function buildCohereChatRequest(input: {
  channel: CohereChannel;
  upstreamModel: string;
  body: JsonRecord;
}): UpstreamRequest {
  const value = openAiToCohereChat(input.body, input.upstreamModel);
  return post(input.channel, 'v2/chat', value, value.stream === true);
}

/** Rerank v2 from the gateway's rerank request. */
export function buildCohereRerankRequest(input: {
  channel: CohereChannel;
  upstreamModel: string;
  request: RerankRequest;
}): UpstreamRequest {
  const { request } = input;
  const value: JsonRecord = {
    model: input.upstreamModel,
    query: request.query,
    documents: request.documents,
  };
  if (request.topN !== undefined) value.top_n = request.topN;
  return post(input.channel, 'v2/rerank', value, false);
}
