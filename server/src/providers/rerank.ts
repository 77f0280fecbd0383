import {
  asArray,
  asBoolean,
  asCount,
  asRecord,
  asString,
  isRecord,
  type JsonRecord,
} from './translate/json-reading.js';
import { TranslationError } from './translate/translation-error.js';

// The rerank shape the gateway exposes at `POST /v1/rerank` (Jina's, which Cohere v1 and most
// OpenAI-style gateways share): `{model, query, documents, top_n?, return_documents?}` in,
// `{model, results: [{index, relevance_score, document?: {text}}], usage}` out. Adapters of other
// vendors translate to and from it.

export interface RerankRequest {
  model: string;
  query: string;
  /** The documents' texts, in the client's order (results index into this). */
  documents: string[];
  topN?: number;
  /** Echo each result's document; default true, as Jina does. */
  returnDocuments: boolean;
}

export interface RerankResult {
  index: number;
  relevance_score: number;
  document?: { text: string };
}

export interface RerankResponse {
  model: string;
  results: RerankResult[];
  usage: { prompt_tokens: number; total_tokens: number };
}

/** Reads a client's rerank body; a TranslationError (the client's 400) when it is not one. */
export function readRerankRequest(body: JsonRecord): RerankRequest {
  const model = asString(body.model);
  const query = asString(body.query);
  if (!model) throw new TranslationError('model is required');
  if (query === undefined) throw new TranslationError('query must be a string');
  if (!Array.isArray(body.documents) || body.documents.length === 0) {
    throw new TranslationError('documents must be a non-empty array');
  }
  const documents = asArray(body.documents).map((d, i) => {
    const text = typeof d === 'string' ? d : asString(asRecord(d)?.text);
    if (text === undefined) throw new TranslationError(`documents[${i}] must be a string or {text}`);
    return text;
  });
  const out: RerankRequest = {
    model,
    query,
    documents,
    returnDocuments: asBoolean(body.return_documents) ?? true,
  };
  const topN = asCount(body.top_n);
  if (topN !== undefined && topN > 0) out.topN = topN;
  return out;
}

/** Results sorted by score, cut to `top_n`, with documents echoed from the request when asked. */
export function rerankResults(
  request: RerankRequest,
  scored: { index: number; score: number; text?: string }[],
): RerankResult[] {
  const sorted = scored
    .filter((r) => r.index >= 0 && r.index < request.documents.length)
    .sort((a, b) => b.score - a.score)
    .slice(0, request.topN ?? scored.length);
  return sorted.map((r) => {
    const out: RerankResult = { index: r.index, relevance_score: r.score };
    if (request.returnDocuments) out.document = { text: r.text ?? request.documents[r.index] ?? '' };
    return out;
  });
}

export function isRerankResult(v: unknown): v is { index: number; relevance_score: number } {
  return isRecord(v) && typeof v.index === 'number' && typeof v.relevance_score === 'number';
}
