import type { OpenAiChannel } from '../openai/request.js';
import { ChannelConfigError, type UpstreamRequest, upstreamRequest } from '../upstream-request.js';
import { signSigV4 } from './sigv4.js';

// Claude on Amazon Bedrock: InvokeModel (`POST /model/{id}/invoke`) and
// InvokeModelWithResponseStream (`/model/{id}/invoke-with-response-stream`). The body is an
// Anthropic Messages body without `model` and `stream` (the URL carries both) and with
// `anthropic_version: "bedrock-2023-05-31"`; beta flags move from the header into
// `anthropic_beta`. Requests are signed with SigV4 (service `bedrock`), or carry a Bedrock API key
// as a Bearer token.

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
const SERVICE = 'bedrock';

export type BedrockChannel = Pick<OpenAiChannel, 'type' | 'baseUrl' | 'key' | 'headers'>;

export type BedrockCredentials =
  | { kind: 'sigv4'; region: string; accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  | { kind: 'apiKey'; region: string; apiKey: string };

/**
 * The channel key: `Region|AccessKeyID|SecretAccessKey[|SessionToken]` or `Region|APIKey` (the
 * catalog's key format).
 */
export function parseBedrockKey(key: string): BedrockCredentials {
  const parts = key
    .trim()
    .split('|')
    .map((s) => s.trim());
  const region = parts[0] ?? '';
  if (!/^[a-z]{2}(-gov)?-[a-z]+-\d+$/.test(region)) {
    throw new ChannelConfigError('the Bedrock key must start with a region, e.g. us-east-1|...');
  }
  if (parts.length === 2 && parts[1]) return { kind: 'apiKey', region, apiKey: parts[1] };
  if ((parts.length === 3 || parts.length === 4) && parts[1] && parts[2]) {
    const creds: BedrockCredentials = {
      kind: 'sigv4',
      region,
      accessKeyId: parts[1],
      secretAccessKey: parts[2],
    };
    if (parts[3]) creds.sessionToken = parts[3];
    return creds;
  }
  throw new ChannelConfigError(
    'the Bedrock key must be Region|AccessKeyID|SecretAccessKey[|SessionToken] or Region|APIKey',
  );
}

/**
 * Bedrock serves Claude under its own ids (`anthropic.claude-sonnet-4-20250514-v1:0`), inference
 * profiles (`us.anthropic....`) and profile ARNs; the channel's model mapping turns client names
 * into them. Anything else is not a Claude model and this adapter cannot speak to it.
 */
export function assertBedrockClaudeModel(model: string): void {
  if (!/claude/i.test(model) && !model.startsWith('arn:')) {
    throw new ChannelConfigError(`Bedrock channels serve Claude models only, not ${model}`);
  }
}

export type BedrockBody =
  /** The client's own Messages body. */
  | { kind: 'json'; value: Record<string, unknown> }
  /** A body the gateway built (translated from another protocol). */
  | { kind: 'object'; value: object };

export interface BedrockRequestInput {
  channel: BedrockChannel;
  /** The Bedrock model id (after the channel's model mapping). */
  upstreamModel: string;
  body: BedrockBody;
  /** The client's `anthropic-beta` header (comma-separated flags). */
  clientBeta?: string;
  /** Signing time; defaults to now. */
  now?: Date;
}

function endpoint(channel: BedrockChannel, region: string): URL {
  const base = channel.baseUrl.trim() || `https://bedrock-runtime.${region}.amazonaws.com`;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ChannelConfigError(`invalid base URL: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ChannelConfigError(`base URL must be http(s): ${base}`);
  }
  return url;
}

/** The Messages body as Bedrock takes it. */
export function bedrockBody(value: Record<string, unknown>, clientBeta?: string): Record<string, unknown> {
  const { model: _model, stream: _stream, ...rest } = value;
  const out: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest };
  out.anthropic_version = BEDROCK_ANTHROPIC_VERSION;
  const betas = (clientBeta ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (betas.length && out.anthropic_beta === undefined) out.anthropic_beta = betas;
  return out;
}

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

/** Builds the signed InvokeModel request (streaming when the body says `stream: true`). */
export function buildBedrockRequest(input: BedrockRequestInput): UpstreamRequest {
  const { channel, upstreamModel } = input;
  assertBedrockClaudeModel(upstreamModel);
  const creds = parseBedrockKey(channel.key);
  const url = endpoint(channel, creds.region);
  const value = input.body.value as Record<string, unknown>;
  const stream = value.stream === true;
  const body = Buffer.from(JSON.stringify(bedrockBody(value, input.clientBeta)));
  const action = stream ? 'invoke-with-response-stream' : 'invoke';
  const basePath = url.pathname.replace(/\/+$/, '');
  const path = `${basePath}/model/${encodeURIComponent(upstreamModel)}/${action}`;
  const headers: Record<string, string> = {};
  for (const [rawName, v] of Object.entries(channel.headers ?? {})) {
    const name = rawName.toLowerCase();
    if (!RESERVED_HEADERS.has(name) && !name.startsWith('x-amz-')) headers[name] = v;
  }
  headers['content-type'] = 'application/json';
  headers.accept = stream ? 'application/vnd.amazon.eventstream' : 'application/json';
  if (creds.kind === 'apiKey') {
    headers.authorization = `Bearer ${creds.apiKey}`;
  } else {
    const signed = signSigV4({ method: 'POST', host: url.host, path, headers, body }, creds, {
      region: creds.region,
      service: SERVICE,
      date: input.now ?? new Date(),
    });
    Object.assign(headers, signed.headers);
  }
  headers['content-length'] = String(body.length);
  headers['accept-encoding'] = 'identity';
  return upstreamRequest('POST', url.origin, path, headers, body, true, stream);
}
