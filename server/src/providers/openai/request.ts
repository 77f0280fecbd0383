import { pipeline, type Readable } from 'node:stream';
import { openAiCompatibleRoot, providerById, providerIdsWith } from '@switchyard/domain';
import { editJsonObject } from '../json-splice.js';
import { withChannelHeaders } from '../upstream-headers.js';
import { ChannelConfigError, type UpstreamRequest, upstreamRequest } from '../upstream-request.js';
import { multipartBoundary, multipartFieldTransform, rewriteMultipartField } from './multipart-field.js';

export const OPENAI_ENDPOINTS = [
  'chat/completions',
  'completions',
  'responses',
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
] as const;

export type OpenAiEndpoint = (typeof OPENAI_ENDPOINTS)[number];

/** Endpoints whose body is multipart/form-data. */
export const MULTIPART_ENDPOINTS: ReadonlySet<OpenAiEndpoint> = new Set([
  'images/edits',
  'images/variations',
  'audio/transcriptions',
  'audio/translations',
]);

/** Endpoints that take `stream_options.include_usage` when streaming. */
const USAGE_OPTION_ENDPOINTS: ReadonlySet<OpenAiEndpoint> = new Set(['chat/completions', 'completions']);

// What each channel type's upstream accepts is in the provider catalog (domain/src/providers.ts);
// the sets are built once, so the hot path's lookup stays a Set.has.
/** Channel types whose upstream honours `stream_options.include_usage`. */
export const INCLUDE_USAGE_CHANNEL_TYPES = providerIdsWith('streamUsageOption');
/** Channel types that take `max_completion_tokens` for every chat model. */
export const MAX_COMPLETION_TOKENS_CHANNEL_TYPES = providerIdsWith('maxCompletionTokens');
/** Channel types that take OpenAI's `reasoning_effort`. */
export const REASONING_EFFORT_CHANNEL_TYPES = providerIdsWith('reasoningEffort');

/**
 * Relay modes of the Custom channel's `plugin.customize` map (one-hub's relay-mode numbers) ->
 * endpoint.
 */
const CUSTOM_PATH_MODES: Readonly<Record<string, OpenAiEndpoint>> = {
  '1': 'chat/completions',
  '2': 'completions',
  '3': 'embeddings',
  '4': 'moderations',
  '5': 'images/generations',
  '6': 'images/edits',
  '7': 'images/variations',
  '9': 'audio/speech',
  '10': 'audio/transcriptions',
  '11': 'audio/translations',
  '16': 'responses',
};

const AZURE_TYPE = 3;
const AZURE_DEFAULT_API_VERSION = '2024-10-21';

/** What the adapter needs of a channel; the channel cache builds it once per channel. */
export interface OpenAiChannel {
  /** Catalog id (domain/src/providers.ts). */
  type: number;
  /** The channel's base URL; empty means the catalog default. */
  baseUrl: string;
  /** The decrypted key. Empty sends no credentials (a local server). */
  key: string;
  /** The channel's free `other` field: the Azure api-version. */
  other: string;
  /** Parsed `model_headers` (see parseModelHeaders). */
  headers?: Readonly<Record<string, string>>;
  /** Custom channel paths relative to the API root, or "disable" (see customPathsFromPlugin). */
  paths?: Readonly<Partial<Record<OpenAiEndpoint, string>>>;
  /** Overrides INCLUDE_USAGE_CHANNEL_TYPES for this channel. */
  includeUsage?: boolean;
  /**
   * The channel's upstream addresses, worked out once (the channel cache attaches them). Used only
   * when made for this very object: a copy with another type is resolved afresh.
   */
  addresses?: UpstreamAddresses;
}

export type InboundBody =
  | { kind: 'none' }
  /** `value` is `raw` parsed (the relay parses it once, for routing and counting). */
  | { kind: 'json'; raw: Buffer; value: Record<string, unknown> }
  /** `model` is the form's model field when the relay read it, so an unchanged model is not rewritten. */
  | { kind: 'multipart'; contentType: string; body: Buffer | Readable; model?: string; length?: number };

export interface OpenAiRequestInput {
  channel: OpenAiChannel;
  endpoint: OpenAiEndpoint;
  /** The model name the upstream must see (after the channel's model mapping). */
  upstreamModel: string;
  body: InboundBody;
}

export class UnsupportedEndpointError extends Error {
  constructor(
    readonly endpoint: OpenAiEndpoint,
    reason: string,
  ) {
    super(`endpoint ${endpoint} is not available on this channel: ${reason}`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The channel's `model_headers` JSON as a header map; invalid JSON, non-object values and header
 * names or values a request could not carry are dropped. Called when the channel cache is built.
 */
export function parseModelHeaders(json: string): Record<string, string> {
  if (!json.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return {};
  }
  if (!isRecord(parsed)) return {};
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(parsed)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) continue;
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') continue;
    const value = String(v);
    if (/[\r\n\0]/.test(value)) continue;
    out[name.toLowerCase()] = value;
  }
  return out;
}

/** The Custom channel's `plugin.customize` map as endpoint paths. */
export function customPathsFromPlugin(plugin: unknown): Partial<Record<OpenAiEndpoint, string>> {
  const customize = isRecord(plugin) ? plugin.customize : undefined;
  const out: Partial<Record<OpenAiEndpoint, string>> = {};
  if (!isRecord(customize)) return out;
  for (const [mode, path] of Object.entries(customize)) {
    const endpoint = CUSTOM_PATH_MODES[mode];
    if (endpoint && typeof path === 'string' && path.trim()) out[endpoint] = path.trim();
  }
  return out;
}

/** Whether a streaming request to this channel should carry `include_usage`. */
export function channelSupportsIncludeUsage(channel: OpenAiChannel): boolean {
  return channel.includeUsage ?? INCLUDE_USAGE_CHANNEL_TYPES.has(channel.type);
}

interface Resolved {
  root: URL;
  /** `root.origin`, which the URL builds anew on every read. */
  origin: string;
  key: string;
}

/** The API root URL and the key to send (Cloudflare-style `ACCOUNT|TOKEN` keys fill `{account_id}`). */
function resolveRoot(channel: OpenAiChannel): Resolved {
  const def = providerById(channel.type);
  let base = channel.baseUrl.trim() || def?.defaultBaseUrl || '';
  if (!base) throw new ChannelConfigError(`channel type ${channel.type} needs a base URL`);
  let key = channel.key;
  if (base.includes('{account_id}')) {
    const bar = key.indexOf('|');
    if (bar === -1) throw new ChannelConfigError('the key must be ACCOUNT_ID|API_TOKEN');
    base = base.replaceAll('{account_id}', encodeURIComponent(key.slice(0, bar)));
    key = key.slice(bar + 1);
  }
  const rootText = channel.type === AZURE_TYPE ? base.replace(/\/+$/, '') : openAiCompatibleRoot(base);
  let root: URL;
  try {
    root = new URL(rootText);
  } catch {
    throw new ChannelConfigError(`invalid base URL: ${base}`);
  }
  if (root.protocol !== 'http:' && root.protocol !== 'https:') {
    throw new ChannelConfigError(`base URL must be http(s): ${base}`);
  }
  return { root, origin: root.origin, key };
}

function joinPath(root: URL, rel: string): string {
  const basePath = root.pathname.replace(/\/+$/, '');
  return `${basePath}/${rel.replace(/^\/+/, '')}`;
}

function withQuery(path: string, rootSearch: string, extra?: string): string {
  const params = [rootSearch.replace(/^\?/, ''), extra ?? ''].filter((s) => s !== '');
  return params.length ? `${path}?${params.join('&')}` : path;
}

function buildPath(channel: OpenAiChannel, root: URL, endpoint: OpenAiEndpoint, model: string): string {
  if (channel.type === AZURE_TYPE) {
    const version = `api-version=${encodeURIComponent(channel.other.trim() || azureDefaultVersion())}`;
    if (endpoint === 'rerank') throw new UnsupportedEndpointError(endpoint, 'Azure OpenAI has no rerank');
    // Azure's model list and Responses API are resource-wide, not per deployment.
    if (endpoint === 'models') return withQuery(joinPath(root, 'openai/models'), root.search, version);
    if (endpoint === 'responses') return withQuery(joinPath(root, 'openai/responses'), root.search, version);
    const deployment = `openai/deployments/${encodeURIComponent(model)}/${endpoint}`;
    return withQuery(joinPath(root, deployment), root.search, version);
  }
  const custom = channel.paths?.[endpoint];
  if (custom !== undefined && custom.toLowerCase() === 'disable') {
    throw new UnsupportedEndpointError(endpoint, 'disabled in the channel settings');
  }
  return withQuery(joinPath(root, custom ?? endpoint), root.search);
}

/**
 * A channel's API root and endpoint paths, worked out on first use and kept: parsing the base URL
 * and joining paths cost more than the rest of building a request. A configuration error is kept
 * too, and thrown on every use. Azure paths name the model's deployment and are joined each time.
 */
export class UpstreamAddresses {
  private resolved: Resolved | ChannelConfigError | undefined;
  private readonly paths = new Map<OpenAiEndpoint, string>();

  constructor(readonly channel: OpenAiChannel) {}

  root(): Resolved {
    if (this.resolved === undefined) {
      try {
        this.resolved = resolveRoot(this.channel);
      } catch (err) {
        if (!(err instanceof ChannelConfigError)) throw err;
        this.resolved = err;
      }
    }
    if (this.resolved instanceof ChannelConfigError) throw this.resolved;
    return this.resolved;
  }

  path(endpoint: OpenAiEndpoint, model: string): string {
    const root = this.root().root;
    if (this.channel.type === AZURE_TYPE) return buildPath(this.channel, root, endpoint, model);
    let path = this.paths.get(endpoint);
    if (path === undefined) {
      path = buildPath(this.channel, root, endpoint, model);
      this.paths.set(endpoint, path);
    }
    return path;
  }
}

function azureDefaultVersion(): string {
  return providerById(AZURE_TYPE)?.otherDefault ?? AZURE_DEFAULT_API_VERSION;
}

/** Headers for the upstream: the key as a Bearer token (Azure: `api-key`), then `model_headers`. */
function buildHeaders(
  channel: OpenAiChannel,
  key: string,
  contentType: string | undefined,
  contentLength: number | undefined,
): Record<string, string> {
  // Identity encoding: usage is read from the reply's bytes, which compression would hide.
  const headers: Record<string, string> = { 'accept-encoding': 'identity' };
  const authHeader = channel.type === AZURE_TYPE ? 'api-key' : 'authorization';
  if (key) headers[authHeader] = channel.type === AZURE_TYPE ? key : `Bearer ${key}`;
  if (contentType) headers['content-type'] = contentType;
  if (contentLength !== undefined) headers['content-length'] = String(contentLength);
  return withChannelHeaders(headers, channel.headers, key !== '', ['authorization', 'api-key']);
}

interface JsonBodyPlan {
  body: Buffer;
  rewritten: boolean;
  stream: boolean;
  clientWantsUsage: boolean;
  dropUsageChunk: boolean;
}

/**
 * Decides the JSON body. The client's bytes go out untouched unless the model name differs,
 * `include_usage` must be added to a stream, or `stream_options` must go from a non-stream request
 * (OpenAI rejects it there). A needed change is spliced into the original bytes (json-splice.ts),
 * so the rest of a large body is neither re-serialised nor altered; a member the body lacks (the
 * usual `stream_options`) is only appended, without walking the others. Parse+stringify is only
 * the fallback for a body the splicer cannot lay out.
 */
function planJsonBody(
  channel: OpenAiChannel,
  endpoint: OpenAiEndpoint,
  upstreamModel: string,
  raw: Buffer,
  value: Record<string, unknown>,
): JsonBodyPlan {
  const set: Record<string, string> = {};
  const remove: string[] = [];
  const replacement: Record<string, unknown> = {};
  if (value.model !== upstreamModel) {
    set.model = JSON.stringify(upstreamModel);
    replacement.model = upstreamModel;
  }
  const stream = value.stream === true;
  let clientWantsUsage = false;
  let dropUsageChunk = false;
  if (USAGE_OPTION_ENDPOINTS.has(endpoint)) {
    const options = value.stream_options;
    clientWantsUsage = stream && isRecord(options) && options.include_usage === true;
    if (stream && !clientWantsUsage && channelSupportsIncludeUsage(channel)) {
      const next: Record<string, unknown> = isRecord(options) ? { ...options } : {};
      next.include_usage = true;
      set.stream_options = JSON.stringify(next);
      replacement.stream_options = next;
      dropUsageChunk = true;
    } else if (!stream && options !== undefined) {
      remove.push('stream_options');
    }
  }
  const plan = { stream, clientWantsUsage, dropUsageChunk };
  if (Object.keys(set).length === 0 && remove.length === 0) return { body: raw, rewritten: false, ...plan };
  const edited = editJsonObject(raw, value, { set, remove });
  if (edited) return { body: edited, rewritten: true, ...plan };
  const fallback: Record<string, unknown> = { ...value, ...replacement };
  for (const k of remove) delete fallback[k];
  return { body: Buffer.from(JSON.stringify(fallback)), rewritten: true, ...plan };
}

/** Builds the upstream request of an OpenAI-protocol channel (also Azure and Jina-style rerank). */
export function buildOpenAiRequest(input: OpenAiRequestInput): UpstreamRequest {
  const { channel, endpoint, upstreamModel, body } = input;
  const addresses =
    channel.addresses?.channel === channel ? channel.addresses : new UpstreamAddresses(channel);
  const { origin, key } = addresses.root();
  const path = addresses.path(endpoint, upstreamModel);
  if (endpoint === 'models' || body.kind === 'none') {
    const method = endpoint === 'models' ? 'GET' : 'POST';
    const headers = buildHeaders(channel, key, undefined, method === 'POST' ? 0 : undefined);
    return upstreamRequest(method, origin, path, headers, undefined, false, false);
  }
  if (body.kind === 'json') {
    const plan = planJsonBody(channel, endpoint, upstreamModel, body.raw, body.value);
    const headers = buildHeaders(channel, key, 'application/json', plan.body.length);
    return upstreamRequest(
      'POST',
      origin,
      path,
      headers,
      plan.body,
      plan.rewritten,
      plan.stream,
      plan.clientWantsUsage,
      plan.dropUsageChunk,
    );
  }
  const boundary = multipartBoundary(body.contentType);
  if (!boundary) throw new ChannelConfigError('multipart body without a boundary');
  const same = body.model === upstreamModel;
  let out: Buffer | Readable = body.body;
  let length: number | undefined = Buffer.isBuffer(body.body) ? body.body.length : body.length;
  if (!same) {
    if (Buffer.isBuffer(body.body)) {
      out = rewriteMultipartField(body.body, boundary, 'model', upstreamModel);
      length = out.length;
    } else {
      // pipeline, not pipe: a failing upload must fail the upstream body too. The error itself
      // reaches whoever consumes the returned stream.
      out = pipeline(body.body, multipartFieldTransform(boundary, 'model', upstreamModel), () => {});
      // The new length is known only once the field has passed: send it chunked.
      length = undefined;
    }
  }
  const headers = buildHeaders(channel, key, body.contentType, length);
  return upstreamRequest('POST', origin, path, headers, out, !same, false);
}
