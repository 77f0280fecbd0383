import { providerById } from '@switchyard/domain';
import { emptyUsage, type Usage } from '../../billing/pricing/usage.js';
import type { OpenAiChannel } from '../openai/request.js';
import { isRerankResult, type RerankRequest, type RerankResponse, rerankResults } from '../rerank.js';
import { asArray, asCount, asRecord, asString, parseJson } from '../translate/json-reading.js';
import { ChannelConfigError, type UpstreamRequest, upstreamRequest } from '../upstream-request.js';

// Jina Reranker (`POST {base}/v1/rerank`, Bearer key). Its shape is the gateway's own, so the
// request is the client's with the mapped model, and the reply needs only its usage read
// (`usage.total_tokens`: every token is prompt) and its documents normalised to `{text}`.
// Errors are FastAPI's `{"detail": ...}`, which the generic parser reads.

export const JINA_DEFAULT_BASE_URL = 'https://api.jina.ai';

export type JinaChannel = Pick<OpenAiChannel, 'type' | 'baseUrl' | 'key' | 'headers'>;

const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'authorization',
  'accept-encoding',
]);

export function buildJinaRerankRequest(input: {
  channel: JinaChannel;
  upstreamModel: string;
  request: RerankRequest;
}): UpstreamRequest {
  const { channel, request } = input;
  const base = channel.baseUrl.trim() || providerById(channel.type)?.defaultBaseUrl || JINA_DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ChannelConfigError(`invalid base URL: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ChannelConfigError(`base URL must be http(s): ${base}`);
  const prefix = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  const path = `${prefix}/v1/rerank`;
  const value: Record<string, unknown> = {
    model: input.upstreamModel,
    query: request.query,
    documents: request.documents,
    return_documents: request.returnDocuments,
  };
  if (request.topN !== undefined) value.top_n = request.topN;
  const body = Buffer.from(JSON.stringify(value));
  const headers: Record<string, string> = {};
  for (const [rawName, v] of Object.entries(channel.headers ?? {})) {
    const name = rawName.toLowerCase();
    if (!RESERVED_HEADERS.has(name)) headers[name] = v;
  }
  Object.assign(headers, {
    authorization: `Bearer ${channel.key}`,
    'content-type': 'application/json',
    'content-length': String(body.length),
    'accept-encoding': 'identity',
  });
  return upstreamRequest('POST', url.origin, path, headers, body, true, false);
}

export interface JinaRerankReply {
  response: RerankResponse;
  /** Null when Jina sent no token count (the relay then counts). */
  usage: Usage | null;
}

export function jinaRerankToGateway(
  reply: Buffer | string,
  request: RerankRequest,
  model: string,
): JinaRerankReply {
  const parsed = asRecord(parseJson(typeof reply === 'string' ? reply : reply.toString('utf8'))) ?? {};
  const scored = asArray(parsed.results)
    .filter(isRerankResult)
    .map((r) => {
      const doc = (r as Record<string, unknown>).document;
      const text = typeof doc === 'string' ? doc : asString(asRecord(doc)?.text);
      return { index: r.index, score: r.relevance_score, ...(text !== undefined ? { text } : {}) };
    });
  const u = asRecord(parsed.usage);
  const tokens = asCount(u?.prompt_tokens) ?? asCount(u?.total_tokens);
  return {
    response: {
      model: asString(parsed.model) ?? model,
      results: rerankResults(request, scored),
      usage: { prompt_tokens: tokens ?? 0, total_tokens: tokens ?? 0 },
    },
    usage: tokens === undefined ? null : { ...emptyUsage(), inputTokens: tokens },
  };
}
