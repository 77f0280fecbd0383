import { buildOpenAiRequest, type OpenAiRequestInput } from '../openai/request.js';
import { asBoolean, asRecord, asString, type JsonRecord } from '../translate/json-reading.js';
import type { UpstreamRequest } from '../upstream-request.js';
import type { ZhipuTokenCache } from './token.js';

/** Zhipu GLM's channel type in the catalog (one-hub's number). */
export const ZHIPU_CHANNEL_TYPE = 16;

// Zhipu's v4 API is OpenAI-compatible apart from its auth (a signed token, token.ts) and its
// built-in tools, which the channel turns on in its plugin fields: a knowledge-base retrieval
// (`retrieval.knowledge_id`, `retrieval.prompt_template`) and web search (`web_search.enable`).
// They go into a chat request's `tools` beside the client's own functions.

/** The Zhipu tools the channel's plugin settings ask for. */
export function zhipuPluginTools(plugin: unknown): JsonRecord[] {
  const p = asRecord(plugin);
  const tools: JsonRecord[] = [];
  const retrieval = asRecord(p?.retrieval);
  const knowledgeId = asString(retrieval?.knowledge_id)?.trim();
  if (knowledgeId) {
    const r: JsonRecord = { knowledge_id: knowledgeId };
    const template = asString(retrieval?.prompt_template)?.trim();
    if (template) r.prompt_template = template;
    tools.push({ type: 'retrieval', retrieval: r });
  }
  if (asBoolean(asRecord(p?.web_search)?.enable))
    tools.push({ type: 'web_search', web_search: { enable: true } });
  return tools;
}

export interface ZhipuRequestInput extends OpenAiRequestInput {
  /** The channel's parsed `plugin` JSON. */
  plugin?: unknown;
}

/** An OpenAI-protocol request to Zhipu, signed, with the plugin's tools on chat requests. */
export function buildZhipuRequest(input: ZhipuRequestInput, tokens: ZhipuTokenCache): UpstreamRequest {
  const { plugin, ...rest } = input;
  const channel = { ...rest.channel, key: tokens.token(rest.channel.key) };
  let body = rest.body;
  const extra = rest.endpoint === 'chat/completions' ? zhipuPluginTools(plugin) : [];
  if (extra.length && body.kind === 'json') {
    const own = Array.isArray(body.value.tools) ? body.value.tools : [];
    const value = { ...body.value, tools: [...own, ...extra] };
    body = { kind: 'json', raw: Buffer.from(JSON.stringify(value)), value };
  }
  return buildOpenAiRequest({ ...rest, channel, body });
}
