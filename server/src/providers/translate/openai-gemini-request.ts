import type {
  GeminiContent,
  GeminiFunctionDeclaration,
  GeminiGenerationConfig,
  GeminiPart,
  GeminiRequest,
  GeminiToolConfig,
} from '../gemini/content-types.js';
import { audioFormatOf, mediaTypeFromUrl, parseDataUrl, toDataUrl } from './data-url.js';
import { accepts, type FieldRules, refuseUnsupportedFields } from './field-rules.js';
import { fromGeminiSchema, toGeminiSchema } from './gemini-schema.js';
import {
  asArray,
  asCount,
  asNumber,
  asRecord,
  asString,
  isRecord,
  type JsonRecord,
  parseJson,
} from './json-reading.js';
import type {
  OpenAiChatRequest,
  OpenAiContentPart,
  OpenAiMessage,
  OpenAiResponseFormat,
  OpenAiTool,
  OpenAiToolCall,
  OpenAiToolChoice,
} from './openai-chat-types.js';
import {
  effortForGeminiThinking,
  geminiThinkingForEffort,
  geminiUsesThinkingLevel,
} from './reasoning-effort.js';
import { stableToolCallId } from './tool-call-ids.js';
import { TranslationError } from './translation-error.js';

// Request bodies between OpenAI chat/completions and Gemini generateContent, both ways.
//
// Gemini has no tool-call ids: a `functionResponse` answers the `functionCall` of the same name in
// the model turn before it. Going to Gemini, a tool message finds its function name through the
// `tool_call_id` of the assistant's call; coming from Gemini, calls get generated ids and each
// response is paired with the first unanswered call of its name (then by order).
//
// Gemini's REST API accepts its field names in camelCase and in snake_case (`inline_data`,
// `system_instruction`); clients use both, so inbound bodies are read either way.

/**
 * Gemini's documented stand-in signature for a replayed function call whose real thought signature
 * is unknown, as in a history that came through another protocol; Gemini 3 refuses such a call
 * without one.
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A field of a Gemini body under its camelCase or its snake_case name. */
function field(r: JsonRecord | undefined, name: string): unknown {
  if (!r) return undefined;
  return r[name] ?? r[snake(name)];
}

// ---------------------------------------------------------------------------------------------
// OpenAI -> Gemini

export interface OpenAiToGeminiOptions {
  /** The model the upstream will run (chooses between thinking levels and budgets). */
  model: string;
  /** Sign replayed function calls with SKIP_THOUGHT_SIGNATURE; default: for Gemini 3 and later. */
  thoughtSignatureSentinel?: boolean;
}

function imagePart(url: string): GeminiPart {
  const data = parseDataUrl(url);
  if (data) return { inlineData: { mimeType: data.mediaType, data: data.data } };
  if (/^https?:\/\//i.test(url))
    return { fileData: { mimeType: mediaTypeFromUrl(url) ?? 'image/jpeg', fileUri: url } };
  throw new TranslationError('image_url must be an http(s) URL or a data URL');
}

function userParts(content: unknown): GeminiPart[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  const parts: GeminiPart[] = [];
  for (const p of asArray(content)) {
    if (typeof p === 'string') {
      if (p) parts.push({ text: p });
      continue;
    }
    if (!isRecord(p)) continue;
    switch (p.type) {
      case 'text': {
        const text = asString(p.text);
        if (text) parts.push({ text });
        break;
      }
      case 'image_url': {
        const ref = p.image_url;
        const url = typeof ref === 'string' ? ref : asString(asRecord(ref)?.url);
        if (url) parts.push(imagePart(url));
        break;
      }
      case 'input_audio': {
        const audio = asRecord(p.input_audio) ?? {};
        const format = asString(audio.format) ?? 'wav';
        parts.push({ inlineData: { mimeType: `audio/${format}`, data: asString(audio.data) ?? '' } });
        break;
      }
      case 'file': {
        const data = parseDataUrl(asString(asRecord(p.file)?.file_data) ?? '');
        if (!data) throw new TranslationError('files must be sent inline as file_data on this channel');
        parts.push({ inlineData: { mimeType: data.mediaType, data: data.data } });
        break;
      }
      default:
        break;
    }
  }
  return parts;
}

function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return content ? [content] : [];
  const out: string[] = [];
  for (const p of asArray(content)) {
    if (typeof p === 'string' && p) out.push(p);
    else if (isRecord(p)) {
      const t = asString(p.text) ?? asString(p.refusal);
      if (t) out.push(t);
    }
  }
  return out;
}

function argsObject(args: unknown): Record<string, unknown> {
  if (isRecord(args)) return args;
  const parsed = parseJson(asString(args) ?? '');
  return isRecord(parsed) ? parsed : {};
}

/** A tool message's content as a functionResponse `response` (a JSON object is kept as it is). */
function responseObject(content: unknown): Record<string, unknown> {
  const text = textsOf(content).join('\n');
  const parsed = parseJson(text);
  return isRecord(parsed) ? parsed : { content: parsed !== undefined && text.trim() !== '' ? parsed : text };
}

class GeminiTurns {
  readonly contents: GeminiContent[] = [];

  push(role: 'user' | 'model', parts: GeminiPart[]): void {
    if (parts.length === 0) return;
    const last = this.contents[this.contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else this.contents.push({ role, parts: [...parts] });
  }
}

function functionDeclarations(tools: unknown, functions: unknown): GeminiFunctionDeclaration[] {
  const out: GeminiFunctionDeclaration[] = [];
  const add = (fn: JsonRecord | undefined) => {
    const name = asString(fn?.name);
    if (!fn || !name) return;
    const decl: GeminiFunctionDeclaration = { name };
    const description = asString(fn.description);
    if (description) decl.description = description;
    const params = toGeminiSchema(fn.parameters);
    // Gemini refuses an object schema without properties: a function without parameters omits them.
    if (isRecord(params.properties) && Object.keys(params.properties).length > 0) decl.parameters = params;
    out.push(decl);
  };
  for (const t of asArray(tools)) {
    const tool = asRecord(t);
    if (tool?.type === 'function') add(asRecord(tool.function));
  }
  for (const f of asArray(functions)) add(asRecord(f));
  return out;
}

function toolConfig(choice: unknown): GeminiToolConfig | undefined {
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (isRecord(choice)) {
    const name = asString(asRecord(choice.function)?.name) ?? asString(choice.name);
    if (name) return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [name] } };
  }
  return undefined;
}

function generationConfig(body: JsonRecord, model: string): GeminiGenerationConfig | undefined {
  const config: GeminiGenerationConfig = {};
  const temperature = asNumber(body.temperature);
  if (temperature !== undefined) config.temperature = temperature;
  const topP = asNumber(body.top_p);
  if (topP !== undefined) config.topP = topP;
  const maxTokens = asCount(body.max_completion_tokens) ?? asCount(body.max_tokens);
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  const stop =
    typeof body.stop === 'string' ? [body.stop] : asArray(body.stop).filter((s) => typeof s === 'string');
  if (stop.length) config.stopSequences = stop as string[];
  const n = asCount(body.n);
  if (n !== undefined && n > 1) config.candidateCount = n;
  const topK = asCount(body.top_k);
  if (topK !== undefined) config.topK = topK;
  const seed = asNumber(body.seed);
  if (seed !== undefined) config.seed = seed;
  const presence = asNumber(body.presence_penalty);
  if (presence !== undefined) config.presencePenalty = presence;
  const frequency = asNumber(body.frequency_penalty);
  if (frequency !== undefined) config.frequencyPenalty = frequency;
  const format = asRecord(body.response_format);
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    const schema = asRecord(asRecord(format.json_schema)?.schema);
    if (schema) config.responseSchema = toGeminiSchema(schema);
  }
  const effort = asString(body.reasoning_effort);
  if (effort) {
    const thinking = geminiThinkingForEffort(effort, model);
    if (thinking) config.thinkingConfig = thinking;
  }
  return Object.keys(config).length ? config : undefined;
}

/** Every OpenAI chat field and what becomes of it on a Gemini channel (docs/compatibility.md). */
const OPENAI_TO_GEMINI_FIELDS: FieldRules = {
  model: 'mapped',
  messages: 'mapped',
  max_tokens: 'mapped',
  max_completion_tokens: 'mapped',
  tools: 'mapped',
  functions: 'mapped',
  tool_choice: 'mapped',
  function_call: 'mapped',
  stop: 'mapped',
  temperature: 'mapped',
  top_p: 'mapped',
  top_k: 'mapped',
  n: 'mapped',
  seed: 'mapped',
  presence_penalty: 'mapped',
  frequency_penalty: 'mapped',
  response_format: 'mapped',
  reasoning_effort: 'mapped',
  stream: 'mapped',
  stream_options: 'mapped',
  // Gemini may call several functions in one turn and has no switch to stop it.
  parallel_tool_calls: (v) => v === true,
  logprobs: accepts.false,
  top_logprobs: accepts.zero,
  logit_bias: accepts.emptyObject,
  modalities: accepts.textOnly,
  audio: accepts.never,
  prediction: accepts.never,
  web_search_options: accepts.never,
  verbosity: accepts.never,
  // Abuse-monitoring ids and OpenAI-side storage and routing hints: nothing to carry at Gemini.
  user: 'moot',
  safety_identifier: 'moot',
  store: accepts.false,
  metadata: 'moot',
  service_tier: (v) => v === 'auto' || v === 'default',
  prompt_cache_key: 'moot',
};

/** An OpenAI chat/completions body as a Gemini generateContent body. */
export function openAiToGeminiRequest(body: JsonRecord, options: OpenAiToGeminiOptions): GeminiRequest {
  refuseUnsupportedFields(body, OPENAI_TO_GEMINI_FIELDS, 'Gemini channels');
  const sentinel = options.thoughtSignatureSentinel ?? geminiUsesThinkingLevel(options.model);
  const system: GeminiPart[] = [];
  const turns = new GeminiTurns();
  const nameByCallId = new Map<string, string>();
  for (const raw of asArray(body.messages)) {
    const m = asRecord(raw);
    if (!m) continue;
    switch (m.role) {
      case 'system':
      case 'developer':
        for (const text of textsOf(m.content)) system.push({ text });
        break;
      case 'user':
        turns.push('user', userParts(m.content));
        break;
      case 'assistant': {
        const parts: GeminiPart[] = textsOf(m.content).map((text) => ({ text }));
        const calls = [...asArray(m.tool_calls)];
        if (isRecord(m.function_call)) calls.push({ function: m.function_call });
        let first = true;
        for (const call of calls) {
          const c = asRecord(call);
          const fn = asRecord(c?.function);
          const name = asString(fn?.name);
          if (!c || !fn || !name) continue;
          const id = asString(c.id);
          if (id) nameByCallId.set(id, name);
          const part: GeminiPart = { functionCall: { name, args: argsObject(fn.arguments) } };
          // Gemini 3 checks the signature of the first call of a step only.
          if (sentinel && first) part.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
          first = false;
          parts.push(part);
        }
        turns.push('model', parts);
        break;
      }
      case 'tool':
      case 'function': {
        const name = nameByCallId.get(asString(m.tool_call_id) ?? '') ?? asString(m.name) ?? '';
        turns.push('user', [{ functionResponse: { name, response: responseObject(m.content) } }]);
        break;
      }
      default:
        break;
    }
  }
  const out: GeminiRequest = { contents: turns.contents };
  if (system.length) out.systemInstruction = { parts: system };
  const declarations = functionDeclarations(body.tools, body.functions);
  if (declarations.length) {
    out.tools = [{ functionDeclarations: declarations }];
    const config = toolConfig(body.tool_choice ?? body.function_call);
    if (config) out.toolConfig = config;
  }
  const config = generationConfig(body, options.model);
  if (config) out.generationConfig = config;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Gemini -> OpenAI

export interface GeminiToOpenAiOptions {
  /** The model the upstream must see. */
  model: string;
  /** The client called streamGenerateContent. */
  stream: boolean;
  /** Ask a streaming upstream for its usage chunk; default true. */
  includeUsage?: boolean;
  /** Where maxOutputTokens goes; default `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Translate thinkingConfig into `reasoning_effort`; default true. */
  reasoningEffort?: boolean;
}

interface PendingCall {
  id: string;
  name: string;
  answered: boolean;
}

function inlinePart(mimeType: string, data: string): OpenAiContentPart {
  const type = mimeType.toLowerCase();
  if (type.startsWith('image/')) return { type: 'image_url', image_url: { url: toDataUrl(type, data) } };
  if (type.startsWith('audio/')) {
    const format = audioFormatOf(type);
    if (!format) throw new TranslationError(`audio of type ${mimeType} is not supported by this channel`);
    return { type: 'input_audio', input_audio: { data, format } };
  }
  if (type.startsWith('text/')) return { type: 'text', text: Buffer.from(data, 'base64').toString('utf8') };
  const filename = type === 'application/pdf' ? 'document.pdf' : 'document';
  return { type: 'file', file: { filename, file_data: toDataUrl(type, data) } };
}

function contentPart(part: JsonRecord): OpenAiContentPart | null {
  const text = asString(part.text);
  if (text !== undefined) return text && part.thought !== true ? { type: 'text', text } : null;
  const inline = asRecord(field(part, 'inlineData'));
  if (inline)
    return inlinePart(
      asString(field(inline, 'mimeType')) ?? 'application/octet-stream',
      asString(inline.data) ?? '',
    );
  const file = asRecord(field(part, 'fileData'));
  if (file) {
    const uri = asString(field(file, 'fileUri')) ?? '';
    const mimeType = asString(field(file, 'mimeType')) ?? mediaTypeFromUrl(uri) ?? '';
    if (mimeType.startsWith('image/') && /^https?:\/\//i.test(uri))
      return { type: 'image_url', image_url: { url: uri } };
    throw new TranslationError('file references are not supported by this channel');
  }
  return null;
}

function responseText(response: unknown): string {
  if (isRecord(response)) {
    const keys = Object.keys(response);
    const only = keys.length === 1 ? keys[0] : undefined;
    if (only && ['content', 'result', 'output'].includes(only) && typeof response[only] === 'string') {
      return response[only] as string;
    }
  }
  return JSON.stringify(response ?? {});
}

function convertContents(contents: unknown): OpenAiMessage[] {
  const messages: OpenAiMessage[] = [];
  let pending: PendingCall[] = [];
  asArray(contents).forEach((raw, ci) => {
    const content = asRecord(raw);
    if (!content) return;
    const parts = asArray(content.parts).filter(isRecord);
    if (content.role === 'model') {
      const texts: string[] = [];
      const calls: OpenAiToolCall[] = [];
      pending = [];
      parts.forEach((part, pi) => {
        const call = asRecord(field(part, 'functionCall'));
        if (call) {
          const name = asString(call.name) ?? '';
          const id = asString(call.id) ?? stableToolCallId(`contents:${ci}`, pi);
          pending.push({ id, name, answered: false });
          calls.push({
            id,
            type: 'function',
            function: { name, arguments: JSON.stringify(call.args ?? {}) },
          });
          return;
        }
        // Thought summaries are the model's own; they are not replayed to another protocol.
        const text = asString(part.text);
        if (text && part.thought !== true) texts.push(text);
      });
      if (texts.length === 0 && calls.length === 0) return;
      const m: OpenAiMessage = { role: 'assistant', content: texts.length ? texts.join('') : null };
      if (calls.length) m.tool_calls = calls;
      messages.push(m);
      return;
    }
    const user: OpenAiContentPart[] = [];
    for (const part of parts) {
      const response = asRecord(field(part, 'functionResponse'));
      if (response) {
        const name = asString(response.name) ?? '';
        const id = asString(response.id);
        const call =
          pending.find((c) => !c.answered && id !== undefined && c.id === id) ??
          pending.find((c) => !c.answered && c.name === name) ??
          pending.find((c) => !c.answered);
        if (call) call.answered = true;
        messages.push({
          role: 'tool',
          tool_call_id: call?.id ?? stableToolCallId(`orphan:${ci}`, messages.length),
          content: responseText(response.response),
        });
        continue;
      }
      const converted = contentPart(part);
      if (converted) user.push(converted);
    }
    if (user.length === 0) return;
    const first = user[0];
    messages.push({ role: 'user', content: user.length === 1 && first?.type === 'text' ? first.text : user });
  });
  return messages;
}

function openAiTools(tools: unknown): OpenAiTool[] {
  const out: OpenAiTool[] = [];
  for (const t of asArray(tools)) {
    for (const d of asArray(field(asRecord(t), 'functionDeclarations'))) {
      const decl = asRecord(d);
      const name = asString(decl?.name);
      if (!decl || !name) continue;
      const jsonSchema = asRecord(field(decl, 'parametersJsonSchema'));
      const params =
        jsonSchema ?? (isRecord(decl.parameters) ? fromGeminiSchema(decl.parameters) : undefined);
      const fn: OpenAiTool['function'] = { name, parameters: params ?? { type: 'object', properties: {} } };
      const description = asString(decl.description);
      if (description) fn.description = description;
      out.push({ type: 'function', function: fn });
    }
  }
  return out;
}

function openAiToolChoice(config: unknown): OpenAiToolChoice | undefined {
  const calling = asRecord(field(asRecord(config), 'functionCallingConfig'));
  const mode = asString(calling?.mode)?.toUpperCase();
  if (mode === 'NONE') return 'none';
  if (mode === 'AUTO' || mode === 'VALIDATED') return 'auto';
  if (mode === 'ANY') {
    const names = asArray(field(calling, 'allowedFunctionNames')).filter(
      (n): n is string => typeof n === 'string',
    );
    const only = names.length === 1 ? names[0] : undefined;
    return only ? { type: 'function', function: { name: only } } : 'required';
  }
  return undefined;
}

function responseFormat(config: JsonRecord | undefined): OpenAiResponseFormat | undefined {
  const mime = asString(field(config, 'responseMimeType'));
  const jsonSchema = asRecord(field(config, 'responseJsonSchema'));
  const schema =
    jsonSchema ??
    (isRecord(field(config, 'responseSchema'))
      ? fromGeminiSchema(field(config, 'responseSchema'))
      : undefined);
  if (schema) return { type: 'json_schema', json_schema: { name: 'response', schema } };
  if (mime === 'application/json') return { type: 'json_object' };
  return undefined;
}

/** Gemini's request fields (camelCase; snake_case is read alike) and their fate on an OpenAI channel. */
const GEMINI_TO_OPENAI_FIELDS: FieldRules = {
  contents: 'mapped',
  systemInstruction: 'mapped',
  generationConfig: 'mapped',
  tools: 'mapped',
  toolConfig: 'mapped',
  // The thresholds cannot be applied by another provider's filters.
  safetySettings: accepts.emptyArray,
  cachedContent: accepts.never,
  labels: 'moot',
  model: 'mapped',
};

const GEMINI_CONFIG_TO_OPENAI_FIELDS: FieldRules = {
  temperature: 'mapped',
  topP: 'mapped',
  maxOutputTokens: 'mapped',
  stopSequences: 'mapped',
  candidateCount: 'mapped',
  seed: 'mapped',
  presencePenalty: 'mapped',
  frequencyPenalty: 'mapped',
  responseMimeType: (v) => v === 'text/plain' || v === 'application/json',
  responseSchema: 'mapped',
  responseJsonSchema: 'mapped',
  thinkingConfig: 'mapped',
  topK: accepts.never,
  responseLogprobs: accepts.false,
  logprobs: accepts.never,
  responseModalities: accepts.textOnly,
  speechConfig: accepts.never,
  imageConfig: accepts.never,
  mediaResolution: accepts.never,
  enableEnhancedCivicAnswers: accepts.never,
};

function camelKeys(record: JsonRecord): JsonRecord {
  const out: JsonRecord = {};
  for (const [k, v] of Object.entries(record))
    out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v;
  return out;
}

/**
 * Refuses what a Gemini request asks for that an OpenAI-shaped channel cannot give. Called only
 * when the call is translated: a Gemini channel takes the body as it is.
 */
export function refuseGeminiFieldsForOpenAi(body: JsonRecord): void {
  refuseUnsupportedFields(camelKeys(body), GEMINI_TO_OPENAI_FIELDS, "this model's channel (not Gemini)");
  const config = asRecord(field(body, 'generationConfig'));
  if (config) {
    refuseUnsupportedFields(
      camelKeys(config),
      GEMINI_CONFIG_TO_OPENAI_FIELDS,
      "this model's channel (not Gemini)",
    );
  }
}

/** A Gemini generateContent body as an OpenAI chat/completions body. */
export function geminiToOpenAiRequest(body: JsonRecord, options: GeminiToOpenAiOptions): OpenAiChatRequest {
  const messages: OpenAiMessage[] = [];
  const system = asArray(asRecord(field(body, 'systemInstruction'))?.parts)
    .map((p) => asString(asRecord(p)?.text) ?? '')
    .filter((t) => t !== '')
    .join('\n');
  if (system) messages.push({ role: 'system', content: system });
  messages.push(...convertContents(body.contents));
  const out: OpenAiChatRequest = { model: options.model, messages };

  const config = asRecord(field(body, 'generationConfig'));
  const temperature = asNumber(config?.temperature);
  if (temperature !== undefined) out.temperature = temperature;
  const topP = asNumber(field(config, 'topP'));
  if (topP !== undefined) out.top_p = topP;
  const maxTokens = asCount(field(config, 'maxOutputTokens'));
  if (maxTokens !== undefined) out[options.maxTokensField ?? 'max_tokens'] = maxTokens;
  const stop = asArray(field(config, 'stopSequences')).filter((s): s is string => typeof s === 'string');
  if (stop.length) out.stop = stop;
  const n = asCount(field(config, 'candidateCount'));
  if (n !== undefined && n > 1) out.n = n;
  const seed = asNumber(config?.seed);
  if (seed !== undefined) out.seed = seed;
  const presence = asNumber(field(config, 'presencePenalty'));
  if (presence !== undefined) out.presence_penalty = presence;
  const frequency = asNumber(field(config, 'frequencyPenalty'));
  if (frequency !== undefined) out.frequency_penalty = frequency;
  const format = responseFormat(config);
  if (format) out.response_format = format;
  if (options.reasoningEffort !== false) {
    const effort = effortForGeminiThinking(field(config, 'thinkingConfig'));
    if (effort) out.reasoning_effort = effort;
  }

  const tools = openAiTools(body.tools);
  if (tools.length) {
    out.tools = tools;
    const choice = openAiToolChoice(field(body, 'toolConfig'));
    if (choice) out.tool_choice = choice;
  }
  if (options.stream) {
    out.stream = true;
    if (options.includeUsage !== false) out.stream_options = { include_usage: true };
  }
  return out;
}
