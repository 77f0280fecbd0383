import { asArray, asCount, asRecord, asString, isRecord, type JsonRecord } from './json-reading.js';
import { TranslationError } from './translation-error.js';

// Gemini's embedContent / batchEmbedContents <-> OpenAI's /v1/embeddings, for Gemini clients whose
// model is served by an OpenAI-protocol embedding channel.

export type GeminiEmbedAction = 'embedContent' | 'batchEmbedContents';

/** The text of a Gemini `content`: its text parts joined; anything else cannot be embedded as text. */
function contentText(content: unknown, where: string): string {
  const parts = asArray(asRecord(content)?.parts);
  const texts: string[] = [];
  for (const p of parts) {
    const text = asString(asRecord(p)?.text);
    if (text === undefined)
      throw new TranslationError(`${where}: only text parts can be embedded here`, where);
    texts.push(text);
  }
  if (texts.length === 0) throw new TranslationError(`${where} has no text to embed`, where);
  return texts.join('\n');
}

/** The single requests of either action, in order. */
function embedRequests(action: GeminiEmbedAction, body: JsonRecord): JsonRecord[] {
  if (action === 'embedContent') return [body];
  const requests = asArray(body.requests).filter(isRecord);
  if (requests.length === 0)
    throw new TranslationError('requests must hold at least one request', 'requests');
  return requests;
}

/** The texts a Gemini embedding request embeds (what is counted and billed). */
export function geminiEmbedTexts(action: GeminiEmbedAction, body: JsonRecord): string[] {
  return embedRequests(action, body).map((r, i) =>
    contentText(r.content, action === 'embedContent' ? 'content' : `requests[${i}].content`),
  );
}

/**
 * A Gemini embedding request as an OpenAI embeddings body. `outputDimensionality` becomes
 * `dimensions` (one value for the whole batch); `taskType` and `title` tune Gemini's own models
 * and have no OpenAI counterpart, so they are not sent.
 */
export function geminiToOpenAiEmbeddings(
  action: GeminiEmbedAction,
  body: JsonRecord,
  model: string,
): JsonRecord {
  const requests = embedRequests(action, body);
  const dims = new Set(requests.map((r) => asCount(r.outputDimensionality ?? r.output_dimensionality)));
  if (dims.size > 1) {
    throw new TranslationError(
      'outputDimensionality must be the same for every request here',
      'outputDimensionality',
    );
  }
  const out: JsonRecord = { model, input: geminiEmbedTexts(action, body), encoding_format: 'float' };
  const [dimensions] = [...dims];
  if (dimensions !== undefined) out.dimensions = dimensions;
  return out;
}

/** An OpenAI embeddings reply in the shape of the Gemini action's reply. */
export function openAiEmbeddingsToGemini(action: GeminiEmbedAction, reply: JsonRecord): JsonRecord {
  const data = asArray(reply.data)
    .filter(isRecord)
    .sort((a, b) => (asCount(a.index) ?? 0) - (asCount(b.index) ?? 0));
  const vectors = data.map((d) => {
    if (!Array.isArray(d.embedding)) throw new TranslationError('the upstream sent no float embedding');
    return { values: d.embedding as number[] };
  });
  if (action === 'embedContent') return { embedding: vectors[0] ?? { values: [] } };
  return { embeddings: vectors };
}
