import { isRerankResult, type RerankRequest, type RerankResponse, rerankResults } from '../rerank.js';
import { asArray, asRecord, asString, parseJson } from '../translate/json-reading.js';

// Cohere Rerank v2 replies `{id, results: [{index, relevance_score}], meta: {billed_units:
// {search_units}}}`: no documents (v2 dropped `return_documents`) and no token counts. The gateway
// answer echoes the documents from the request and reports the prompt tokens the relay counted.

export interface CohereRerankReply {
  response: RerankResponse;
  /** What Cohere bills for the call. */
  searchUnits: number;
}

export function cohereRerankToGateway(
  reply: Buffer | string,
  request: RerankRequest,
  model: string,
  promptTokens: number,
): CohereRerankReply {
  const parsed = asRecord(parseJson(typeof reply === 'string' ? reply : reply.toString('utf8'))) ?? {};
  const scored = asArray(parsed.results)
    .filter(isRerankResult)
    .map((r) => ({ index: r.index, score: r.relevance_score }));
  const units = asRecord(asRecord(parsed.meta)?.billed_units)?.search_units;
  return {
    response: {
      model: asString(parsed.model) ?? model,
      results: rerankResults(request, scored),
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    },
    searchUnits: typeof units === 'number' ? units : 0,
  };
}
