import { providerById } from '@switchyard/domain';
import type { OpenAiChannel } from '../openai/request.js';
import { withChannelHeaders } from '../upstream-headers.js';
import { ChannelConfigError, type UpstreamRequest, upstreamRequest } from '../upstream-request.js';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';
export const GEMINI_DEFAULT_API_VERSION = 'v1beta';
const GEMINI_TYPE = 25;

/** `models` lists the models (GET); the others are `models/{model}:{action}` (POST). */
export type GeminiAction =
  | 'generateContent'
  | 'streamGenerateContent'
  | 'countTokens'
  | 'embedContent'
  | 'batchEmbedContents'
  | 'models';

/** What the adapter needs of a channel; `other` holds the API version. */
export type GeminiChannel = Pick<OpenAiChannel, 'type' | 'baseUrl' | 'key' | 'other' | 'headers'>;

export type GeminiBody =
  | { kind: 'none' }
  /** The client's own Gemini body (passthrough): its bytes go out unchanged, the model is in the URL. */
  | { kind: 'json'; raw: Buffer }
  /** A body the gateway built (translated from another protocol). */
  | { kind: 'object'; value: object };

export interface GeminiRequestInput {
  channel: GeminiChannel;
  action: GeminiAction;
  /** The model name the upstream must see (after the channel's model mapping). */
  upstreamModel: string;
  body: GeminiBody;
}

const VERSION_SEGMENT = /\/v\d+(?:alpha|beta)?\d*$/;

/** The versioned API root: a base URL that already ends in a version segment is taken as it is. */
function apiRoot(channel: GeminiChannel): URL {
  const base =
    channel.baseUrl.trim() || providerById(channel.type)?.defaultBaseUrl || GEMINI_DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ChannelConfigError(`invalid base URL: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ChannelConfigError(`base URL must be http(s): ${base}`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (VERSION_SEGMENT.test(path)) {
    url.pathname = path;
    return url;
  }
  const version =
    channel.other.trim() || providerById(GEMINI_TYPE)?.otherDefault || GEMINI_DEFAULT_API_VERSION;
  if (!/^[A-Za-z0-9._-]+$/.test(version)) throw new ChannelConfigError(`invalid API version: ${version}`);
  url.pathname = `${path}/${version}`;
  return url;
}

function buildHeaders(channel: GeminiChannel, body: Buffer | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'accept-encoding': 'identity' };
  if (channel.key) headers['x-goog-api-key'] = channel.key;
  if (body) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  return withChannelHeaders(headers, channel.headers, channel.key !== '', [
    'x-goog-api-key',
    'authorization',
  ]);
}

function bodyBytes(body: GeminiBody): { bytes: Buffer; rewritten: boolean } | null {
  if (body.kind === 'none') return null;
  if (body.kind === 'json') return { bytes: body.raw, rewritten: false };
  return { bytes: Buffer.from(JSON.stringify(body.value)), rewritten: true };
}

/**
 * Builds the upstream request of a Gemini-protocol channel: `{root}/{version}/models/{model}:{action}`
 * with the key in `x-goog-api-key`; streaming asks for SSE framing (`alt=sse`) instead of the
 * default JSON array.
 */
export function buildGeminiRequest(input: GeminiRequestInput): UpstreamRequest {
  const { channel, action } = input;
  const root = apiRoot(channel);
  const model = encodeURIComponent(input.upstreamModel.replace(/^models\//, ''));
  const params = new URLSearchParams(root.search);
  if (action === 'streamGenerateContent') params.set('alt', 'sse');
  const query = params.toString();
  const rel = action === 'models' ? 'models' : `models/${model}:${action}`;
  const path = `${root.pathname}/${rel}${query ? `?${query}` : ''}`;
  const isGet = action === 'models';
  const plan = isGet ? null : bodyBytes(input.body);
  return upstreamRequest(
    isGet ? 'GET' : 'POST',
    root.origin,
    path,
    buildHeaders(channel, plan?.bytes),
    plan?.bytes,
    plan?.rewritten ?? false,
    action === 'streamGenerateContent',
  );
}
