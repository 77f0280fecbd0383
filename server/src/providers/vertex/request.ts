import type { OpenAiChannel } from '../openai/request.js';
import { ChannelConfigError, type UpstreamRequest, upstreamRequest } from '../upstream-request.js';
import { parseServiceAccount, type ServiceAccount, type VertexTokenCache } from './access-token.js';

// Vertex AI serves two model families under one project and region:
//   Gemini: .../publishers/google/models/{model}:generateContent | :streamGenerateContent?alt=sse
//           with the Gemini API body unchanged;
//   Claude: .../publishers/anthropic/models/{model}:rawPredict | :streamRawPredict with an
//           Anthropic Messages body minus `model`, plus `anthropic_version: "vertex-2023-10-16"`.
// The host is `{region}-aiplatform.googleapis.com` (`aiplatform.googleapis.com` for `global`),
// the path `/v1/projects/{project}/locations/{region}/...`; the channel's `other` field is
// `Region|ProjectID`, the project defaulting to the service account's own.

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

export type VertexChannel = Pick<OpenAiChannel, 'type' | 'baseUrl' | 'key' | 'other' | 'headers'>;
export type VertexPublisher = 'google' | 'anthropic';

/** Which family a model belongs to, so the relay picks the Gemini or the Anthropic translators. */
export function vertexPublisher(model: string): VertexPublisher {
  return /claude/i.test(model) ? 'anthropic' : 'google';
}

export interface VertexLocation {
  region: string;
  project: string;
}

/** `Region|ProjectID` from the channel's `other` field. */
export function parseVertexLocation(
  other: string,
  account: Pick<ServiceAccount, 'projectId'>,
): VertexLocation {
  const [rawRegion = '', rawProject = ''] = other.split('|').map((s) => s.trim());
  const region = rawRegion.toLowerCase();
  if (!region) throw new ChannelConfigError('set the Vertex AI region in the channel (Region|ProjectID)');
  if (!/^[a-z0-9-]+$/.test(region)) throw new ChannelConfigError(`invalid Vertex AI region: ${rawRegion}`);
  const project = rawProject || account.projectId;
  if (!project) throw new ChannelConfigError('the Vertex AI project is missing: give Region|ProjectID');
  if (!/^[a-z0-9.:-]+$/i.test(project)) throw new ChannelConfigError(`invalid Vertex AI project: ${project}`);
  return { region, project };
}

export type VertexBody =
  /** The client's own body in the model family's protocol: a Gemini body passes byte for byte. */
  | { kind: 'json'; raw: Buffer; value: Record<string, unknown> }
  /** A body the gateway built (translated from another protocol). */
  | { kind: 'object'; value: object };

export interface VertexRequestInput {
  channel: VertexChannel;
  /** The Vertex model id (after the channel's model mapping), e.g. `gemini-2.5-pro`, `claude-sonnet-4@20250514`. */
  upstreamModel: string;
  body: VertexBody;
  /** Gemini bodies do not say whether they stream; Claude bodies do, and this must agree. */
  stream: boolean;
  /** Gemini only: count tokens instead of generating. */
  countTokens?: boolean;
}

function origin(channel: VertexChannel, region: string): URL {
  const base =
    channel.baseUrl.trim() ||
    (region === 'global'
      ? 'https://aiplatform.googleapis.com'
      : `https://${region}-aiplatform.googleapis.com`);
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ChannelConfigError(`invalid base URL: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ChannelConfigError(`base URL must be http(s): ${base}`);
  return url;
}

/** The Claude body as Vertex takes it. */
export function vertexClaudeBody(value: Record<string, unknown>, stream: boolean): Record<string, unknown> {
  const { model: _model, ...rest } = value;
  const out: Record<string, unknown> = { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
  out.anthropic_version = VERTEX_ANTHROPIC_VERSION;
  if (stream) out.stream = true;
  else delete out.stream;
  return out;
}

const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'authorization',
  'accept-encoding',
]);

/** Builds a Vertex AI request; fetches (or reuses) the channel's access token. */
export async function buildVertexRequest(
  input: VertexRequestInput,
  tokens: VertexTokenCache,
): Promise<UpstreamRequest> {
  const { channel, upstreamModel, stream } = input;
  const account = parseServiceAccount(channel.key);
  const { region, project } = parseVertexLocation(channel.other, account);
  const url = origin(channel, region);
  const publisher = vertexPublisher(upstreamModel);
  let action: string;
  let body: Buffer;
  if (publisher === 'anthropic') {
    if (input.countTokens) throw new ChannelConfigError('countTokens is a Gemini method');
    action = stream ? 'streamRawPredict' : 'rawPredict';
    body = Buffer.from(JSON.stringify(vertexClaudeBody(input.body.value as Record<string, unknown>, stream)));
  } else {
    action = input.countTokens ? 'countTokens' : stream ? 'streamGenerateContent' : 'generateContent';
    body = input.body.kind === 'json' ? input.body.raw : Buffer.from(JSON.stringify(input.body.value));
  }
  const basePath = url.pathname.replace(/\/+$/, '');
  const query = action === 'streamGenerateContent' ? '?alt=sse' : '';
  const path =
    `${basePath}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(region)}` +
    `/publishers/${publisher}/models/${encodeURIComponent(upstreamModel)}:${action}${query}`;
  const token = await tokens.accessToken(account);
  const headers: Record<string, string> = {};
  for (const [rawName, v] of Object.entries(channel.headers ?? {})) {
    const name = rawName.toLowerCase();
    if (!RESERVED_HEADERS.has(name)) headers[name] = v;
  }
  Object.assign(headers, {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    'content-length': String(body.length),
    'accept-encoding': 'identity',
  });
  return upstreamRequest(
    'POST',
    url.origin,
    path,
    headers,
    body,
    publisher === 'anthropic' || input.body.kind === 'object',
    stream,
  );
}
