import type { Dispatcher } from 'undici';
import { buildOpenAiRequest, type OpenAiChannel } from './request.js';
import { getUpstreamJson, isRecord, UpstreamCallError } from './upstream-json.js';

/**
 * The model ids an OpenAI-compatible upstream lists at `GET <root>/models` (Azure: the resource's
 * model list), in the upstream's order without repeats. Accepts OpenAI's `{data:[{id}]}` and the
 * bare array some compatible servers send.
 */
export async function fetchModelList(dispatcher: Dispatcher, channel: OpenAiChannel): Promise<string[]> {
  const req = buildOpenAiRequest({ channel, endpoint: 'models', upstreamModel: '', body: { kind: 'none' } });
  const body = await getUpstreamJson(dispatcher, { url: req.url, headers: req.headers });
  return modelIdsOf(body);
}

/** The ids of a model-list body; throws UpstreamCallError when it is not one. */
export function modelIdsOf(body: unknown): string[] {
  const list = Array.isArray(body) ? body : isRecord(body) ? body.data : undefined;
  if (!Array.isArray(list)) throw new UpstreamCallError(200, 'the upstream answer is not a model list');
  const ids = new Set<string>();
  for (const item of list) {
    const id = isRecord(item) ? item.id : item;
    if (typeof id === 'string' && id.trim() !== '') ids.add(id.trim());
  }
  return [...ids];
}
