import { providerById } from '@switchyard/domain';
import { editJsonObject } from '../json-splice.js';
import type { OpenAiChannel } from '../openai/request.js';
import { withChannelHeaders } from '../upstream-headers.js';
import { ChannelConfigError, type UpstreamRequest, upstreamRequest } from '../upstream-request.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** Sent when the client named none: the version every current Messages API feature is under. */
export const ANTHROPIC_DEFAULT_VERSION = '2023-06-01';

export type AnthropicEndpoint = 'messages' | 'messages/count_tokens' | 'models';

/** What the adapter needs of a channel (the OpenAI channel shape without its OpenAI-only fields). */
export type AnthropicChannel = Pick<OpenAiChannel, 'type' | 'baseUrl' | 'key' | 'headers'>;

export type AnthropicBody =
  | { kind: 'none' }
  /** The client's own Messages body (passthrough): `value` is `raw` parsed. */
  | { kind: 'json'; raw: Buffer; value: Record<string, unknown> }
  /** A body the gateway built (translated from another protocol). */
  | { kind: 'object'; value: object };

export interface AnthropicRequestInput {
  channel: AnthropicChannel;
  endpoint: AnthropicEndpoint;
  /** The model name the upstream must see (after the channel's model mapping). */
  upstreamModel: string;
  body: AnthropicBody;
  /** The client's `anthropic-version` and `anthropic-beta` headers, passed through when given. */
  clientVersion?: string;
  clientBeta?: string;
}

/** The API root (`.../v1`); a base URL that already ends in `/v1` is taken as it is. */
function apiRoot(channel: AnthropicChannel): URL {
  const base =
    channel.baseUrl.trim() || providerById(channel.type)?.defaultBaseUrl || ANTHROPIC_DEFAULT_BASE_URL;
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
  url.pathname = /\/v1$/.test(path) ? path : `${path}/v1`;
  return url;
}

function headerValue(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t && !/[\r\n\0]/.test(t) ? t : undefined;
}

/**
 * Headers for the upstream: the channel key as `x-api-key` (a `model_headers` entry cannot replace
 * it while the channel has a key, for the reason given in openai/request.ts), the client's
 * `anthropic-version` or the default, and the client's `anthropic-beta` flags.
 */
function buildHeaders(input: AnthropicRequestInput, body: Buffer | undefined): Record<string, string> {
  const { channel } = input;
  const headers: Record<string, string> = {
    'accept-encoding': 'identity',
    'anthropic-version': headerValue(input.clientVersion) ?? ANTHROPIC_DEFAULT_VERSION,
  };
  const beta = headerValue(input.clientBeta);
  if (beta) headers['anthropic-beta'] = beta;
  if (channel.key) headers['x-api-key'] = channel.key;
  if (body) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  return withChannelHeaders(headers, channel.headers, channel.key !== '', ['x-api-key', 'authorization']);
}

/**
 * The body to send. The client's bytes go out unchanged unless the model must change, and then
 * only the `model` member is spliced (see json-splice.ts); a body the gateway built is serialised.
 */
function planBody(body: AnthropicBody, upstreamModel: string): { bytes: Buffer; rewritten: boolean } | null {
  if (body.kind === 'none') return null;
  if (body.kind === 'object') {
    const value = { ...(body.value as Record<string, unknown>), model: upstreamModel };
    return { bytes: Buffer.from(JSON.stringify(value)), rewritten: true };
  }
  if (body.value.model === upstreamModel) return { bytes: body.raw, rewritten: false };
  const edited = editJsonObject(body.raw, body.value, {
    set: { model: JSON.stringify(upstreamModel) },
  });
  if (edited) return { bytes: edited, rewritten: true };
  return { bytes: Buffer.from(JSON.stringify({ ...body.value, model: upstreamModel })), rewritten: true };
}

/** Builds the upstream request of an Anthropic-protocol channel. */
export function buildAnthropicRequest(input: AnthropicRequestInput): UpstreamRequest {
  const root = apiRoot(input.channel);
  const path = `${root.pathname}/${input.endpoint}${root.search}`;
  const isGet = input.endpoint === 'models';
  const plan = isGet ? null : planBody(input.body, input.upstreamModel);
  const value = input.body.kind === 'none' ? undefined : (input.body.value as Record<string, unknown>);
  return upstreamRequest(
    isGet ? 'GET' : 'POST',
    root.origin,
    path,
    buildHeaders(input, plan?.bytes),
    plan?.bytes,
    plan?.rewritten ?? false,
    input.endpoint === 'messages' && value?.stream === true,
  );
}
