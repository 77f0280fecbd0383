import type {
  AnthropicImageBlock,
  AnthropicMessageParam,
  AnthropicMessagesRequest,
  AnthropicRequestBlock,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolChoice,
  AnthropicToolResultBlock,
} from '../anthropic/message-types.js';
import { parseDataUrl, toDataUrl } from './data-url.js';
import { accepts, type FieldRules, refuseUnsupportedFields } from './field-rules.js';
import {
  asArray,
  asBoolean,
  asCount,
  asNumber,
  asRecord,
  asString,
  describeValue,
  isRecord,
  type JsonRecord,
  parseJson,
} from './json-reading.js';
import type {
  OpenAiChatRequest,
  OpenAiContentPart,
  OpenAiMessage,
  OpenAiTool,
  OpenAiToolCall,
  OpenAiToolChoice,
} from './openai-chat-types.js';
import { anthropicBudgetForEffort, effortForAnthropicThinking } from './reasoning-effort.js';
import { TranslationError } from './translation-error.js';

// Request bodies between OpenAI chat/completions and Anthropic Messages, both ways.
//
// The two differ in where things live: OpenAI puts system prompts among the messages, tool results
// in `tool` messages, tool calls in `tool_calls` with JSON-text arguments and reasoning in
// `reasoning_content`; Anthropic has one top-level `system`, `tool_result` blocks inside user turns
// (before any other content), `tool_use` blocks with parsed `input`, and signed `thinking` blocks.
// Thinking blocks never cross: their signatures only verify at Anthropic, and OpenAI-side reasoning
// has no signature Anthropic would accept.

export const DEFAULT_CLAUDE_MAX_TOKENS = 8192;
/** Default of the `ClaudeBudgetTokensPercentage` option. */
export const DEFAULT_THINKING_SHARE = 0.8;

export interface OpenAiToAnthropicOptions {
  /** The model the upstream must see. */
  model: string;
  /** The `ClaudeDefaultMaxTokens` option: per model, with a `default` key; used when the client set none. */
  defaultMaxTokens?: Readonly<Record<string, number>>;
  /** The `ClaudeBudgetTokensPercentage` option: share of max_tokens given to thinking at high effort. */
  thinkingShare?: number;
}

// ---------------------------------------------------------------------------------------------
// OpenAI -> Anthropic

function imageBlock(url: string): AnthropicImageBlock {
  const data = parseDataUrl(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } };
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw new TranslationError('image_url must be an http(s) URL or a data URL');
}

/** One OpenAI content part as Anthropic blocks (user turns and tool results). */
function partToBlocks(part: unknown): AnthropicRequestBlock[] {
  if (typeof part === 'string') return part ? [{ type: 'text', text: part }] : [];
  if (!isRecord(part)) return [];
  switch (part.type) {
    case 'text': {
      const text = asString(part.text) ?? '';
      return text ? [{ type: 'text', text }] : [];
    }
    case 'image_url': {
      const ref = part.image_url;
      const url = typeof ref === 'string' ? ref : asString(asRecord(ref)?.url);
      return url ? [imageBlock(url)] : [];
    }
    case 'file': {
      const file = asRecord(part.file) ?? {};
      const data = parseDataUrl(asString(file.file_data) ?? '');
      if (!data) throw new TranslationError('files must be sent inline as file_data on this channel');
      if (data.mediaType === 'text/plain') {
        const text = Buffer.from(data.data, 'base64').toString('utf8');
        return [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: text } }];
      }
      return [{ type: 'document', source: { type: 'base64', media_type: data.mediaType, data: data.data } }];
    }
    case 'input_audio':
      throw new TranslationError('audio input is not supported by this channel');
    default:
      return [];
  }
}

function contentToBlocks(content: unknown): AnthropicRequestBlock[] {
  if (typeof content === 'string') return partToBlocks(content);
  return asArray(content).flatMap(partToBlocks);
}

/** The text parts of a content value (system prompts, assistant text), in order. */
function contentTexts(content: unknown): string[] {
  if (typeof content === 'string') return content ? [content] : [];
  const out: string[] = [];
  for (const p of asArray(content)) {
    if (typeof p === 'string') out.push(p);
    else if (isRecord(p) && (p.type === 'text' || p.type === 'refusal')) {
      const t = asString(p.text) ?? asString(p.refusal);
      if (t) out.push(t);
    }
  }
  return out;
}

/** Tool-call arguments are JSON text; Anthropic wants the object. Text that is no object is kept whole. */
function argumentsToInput(args: unknown): Record<string, unknown> {
  if (isRecord(args)) return args;
  const text = asString(args) ?? '';
  if (!text.trim()) return {};
  const parsed = parseJson(text);
  return isRecord(parsed) ? parsed : { arguments: text };
}

function toolResultContent(content: unknown): AnthropicToolResultBlock['content'] {
  if (typeof content === 'string') return content || undefined;
  const blocks = contentToBlocks(content).filter(
    (b): b is AnthropicTextBlock | AnthropicImageBlock => b.type === 'text' || b.type === 'image',
  );
  if (blocks.length === 0) return undefined;
  if (blocks.every((b) => b.type === 'text'))
    return blocks.map((b) => (b as AnthropicTextBlock).text).join('\n');
  return blocks;
}

class AnthropicTurns {
  readonly messages: AnthropicMessageParam[] = [];
  /** Ids of legacy `function_call`s by function name, so a `function` message finds its call. */
  readonly legacyCalls = new Map<string, string[]>();
  private legacyCount = 0;

  /** Adds blocks to the conversation; consecutive turns of one role become one turn. */
  push(role: 'user' | 'assistant', blocks: AnthropicRequestBlock[]): void {
    if (blocks.length === 0) return;
    const last = this.messages[this.messages.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else this.messages.push({ role, content: [...blocks] });
  }

  legacyCallId(name: string): string {
    const id = `toolu_fn_${this.legacyCount++}`;
    const ids = this.legacyCalls.get(name) ?? [];
    ids.push(id);
    this.legacyCalls.set(name, ids);
    return id;
  }

  /** Anthropic wants a user turn's tool results before anything else in it. */
  finish(): AnthropicMessageParam[] {
    for (const m of this.messages) {
      if (m.role !== 'user') continue;
      const results = m.content.filter((b) => b.type === 'tool_result');
      if (results.length === 0) continue;
      m.content = [...results, ...m.content.filter((b) => b.type !== 'tool_result')];
    }
    return this.messages;
  }
}

function assistantBlocks(m: JsonRecord, turns: AnthropicTurns): AnthropicRequestBlock[] {
  const blocks: AnthropicRequestBlock[] = [];
  for (const text of contentTexts(m.content)) blocks.push({ type: 'text', text });
  const refusal = asString(m.refusal);
  if (refusal) blocks.push({ type: 'text', text: refusal });
  for (const call of asArray(m.tool_calls)) {
    const c = asRecord(call);
    const fn = asRecord(c?.function);
    if (!c || !fn) continue;
    blocks.push({
      type: 'tool_use',
      id: asString(c.id) ?? turns.legacyCallId(asString(fn.name) ?? ''),
      name: asString(fn.name) ?? '',
      input: argumentsToInput(fn.arguments),
    });
  }
  const legacy = asRecord(m.function_call);
  if (legacy) {
    const name = asString(legacy.name) ?? '';
    blocks.push({
      type: 'tool_use',
      id: turns.legacyCallId(name),
      name,
      input: argumentsToInput(legacy.arguments),
    });
  }
  return blocks;
}

function convertMessages(messages: unknown): {
  system: AnthropicTextBlock[];
  messages: AnthropicMessageParam[];
} {
  const system: AnthropicTextBlock[] = [];
  const turns = new AnthropicTurns();
  for (const raw of asArray(messages)) {
    const m = asRecord(raw);
    if (!m) continue;
    switch (m.role) {
      case 'system':
      case 'developer':
        // Anthropic has one system prompt; instructions given mid-conversation join it in order.
        for (const text of contentTexts(m.content)) system.push({ type: 'text', text });
        break;
      case 'user':
        turns.push('user', contentToBlocks(m.content));
        break;
      case 'assistant':
        turns.push('assistant', assistantBlocks(m, turns));
        break;
      case 'tool': {
        const block: AnthropicToolResultBlock = {
          type: 'tool_result',
          tool_use_id: asString(m.tool_call_id) ?? '',
        };
        const content = toolResultContent(m.content);
        if (content !== undefined) block.content = content;
        turns.push('user', [block]);
        break;
      }
      case 'function': {
        const name = asString(m.name) ?? '';
        const id = turns.legacyCalls.get(name)?.shift() ?? turns.legacyCallId(name);
        const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: id };
        const content = toolResultContent(m.content);
        if (content !== undefined) block.content = content;
        turns.push('user', [block]);
        break;
      }
      default:
        break;
    }
  }
  return { system, messages: turns.finish() };
}

function convertTools(tools: unknown, functions: unknown): AnthropicTool[] {
  const out: AnthropicTool[] = [];
  const add = (fn: JsonRecord | undefined) => {
    const name = asString(fn?.name);
    if (!fn || !name) return;
    const schema = asRecord(fn.parameters) ?? { type: 'object', properties: {} };
    const tool: AnthropicTool = {
      name,
      input_schema: schema.type === undefined ? { type: 'object', ...schema } : schema,
    };
    const description = asString(fn.description);
    if (description) tool.description = description;
    out.push(tool);
  };
  for (const t of asArray(tools)) {
    const tool = asRecord(t);
    if (tool?.type === 'function') add(asRecord(tool.function));
  }
  for (const f of asArray(functions)) add(asRecord(f));
  return out;
}

function convertToolChoice(choice: unknown, parallel: boolean | undefined): AnthropicToolChoice | undefined {
  let out: Exclude<AnthropicToolChoice, { type: 'none' }> | undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'required') out = { type: 'any' };
  else if (isRecord(choice)) {
    const name = asString(asRecord(choice.function)?.name) ?? asString(choice.name);
    if (name) out = { type: 'tool', name };
  }
  if (parallel === false) return { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}

function defaultMaxTokensFor(model: string, table: Readonly<Record<string, number>> | undefined): number {
  return table?.[model] ?? table?.default ?? DEFAULT_CLAUDE_MAX_TOKENS;
}

/**
 * Whether the conversation continues a tool loop: the last turn returns tool results to an
 * assistant turn that called tools. With thinking on, Anthropic wants that assistant turn to start
 * with its signed thinking block, which a translated history cannot have, so thinking stays off.
 */
function continuesToolLoop(messages: AnthropicMessageParam[]): boolean {
  const last = messages[messages.length - 1];
  const before = messages[messages.length - 2];
  return (
    last?.role === 'user' &&
    last.content.some((b) => b.type === 'tool_result') &&
    before?.role === 'assistant' &&
    before.content.some((b) => b.type === 'tool_use')
  );
}

function stopSequences(stop: unknown): string[] | undefined {
  const list = typeof stop === 'string' ? [stop] : asArray(stop).filter((s) => typeof s === 'string');
  // Anthropic refuses stop sequences made of whitespace only.
  const kept = (list as string[]).filter((s) => s.trim() !== '');
  return kept.length ? kept : undefined;
}

/** Every OpenAI chat field and what becomes of it on an Anthropic channel (docs/compatibility.md). */
const OPENAI_TO_ANTHROPIC_FIELDS: FieldRules = {
  model: 'mapped',
  messages: 'mapped',
  max_tokens: 'mapped',
  max_completion_tokens: 'mapped',
  tools: 'mapped',
  functions: 'mapped',
  tool_choice: 'mapped',
  function_call: 'mapped',
  parallel_tool_calls: 'mapped',
  stop: 'mapped',
  temperature: 'mapped',
  top_p: 'mapped',
  top_k: 'mapped',
  stream: 'mapped',
  // The translated stream always carries usage; the client's wish decides the last chunk.
  stream_options: 'mapped',
  user: 'mapped',
  safety_identifier: 'mapped',
  reasoning_effort: 'mapped',
  response_format: 'mapped',
  // Several choices would take several upstream calls; one is all an Anthropic call gives.
  n: accepts.one,
  frequency_penalty: accepts.zero,
  presence_penalty: accepts.zero,
  logit_bias: accepts.emptyObject,
  logprobs: accepts.false,
  top_logprobs: accepts.zero,
  seed: accepts.never,
  modalities: accepts.textOnly,
  audio: accepts.never,
  prediction: accepts.never,
  web_search_options: accepts.never,
  verbosity: accepts.never,
  // OpenAI-side storage and routing hints: nothing to store or route at Anthropic.
  store: accepts.false,
  metadata: 'moot',
  service_tier: (v) => v === 'auto' || v === 'default',
  prompt_cache_key: 'moot',
};

/** The tool a structured-output request forces, whose input is the JSON the client asked for. */
export const STRUCTURED_OUTPUT_TOOL = 'json_output';

/**
 * `response_format` as a forced tool (Anthropic's documented way to get JSON that follows a schema):
 * the tool's input schema is the client's schema, and the reply's tool input becomes the message
 * text. Undefined for plain text.
 */
function structuredOutputTool(format: unknown): AnthropicTool | undefined {
  const f = asRecord(format);
  if (!f) return undefined;
  if (f.type === 'text') return undefined;
  if (f.type === 'json_object') {
    return {
      name: STRUCTURED_OUTPUT_TOOL,
      description: 'Give the answer as a JSON object.',
      input_schema: { type: 'object', additionalProperties: true },
    };
  }
  if (f.type === 'json_schema') {
    const spec = asRecord(f.json_schema) ?? {};
    const schema = asRecord(spec.schema);
    if (!schema)
      throw new TranslationError('response_format.json_schema.schema is required', 'response_format');
    if (schema.type !== undefined && schema.type !== 'object') {
      throw new TranslationError(
        'response_format.json_schema.schema must describe an object on this channel',
        'response_format',
      );
    }
    const name = asString(spec.name);
    const description = asString(spec.description);
    return {
      name: STRUCTURED_OUTPUT_TOOL,
      description: [`Give the answer as JSON${name ? ` (${name})` : ''}.`, description]
        .filter(Boolean)
        .join(' '),
      input_schema: schema.type === undefined ? { type: 'object', ...schema } : schema,
    };
  }
  throw new TranslationError(
    `response_format type ${describeValue(f.type)} is not supported`,
    'response_format',
  );
}

/** The structured-output tool's name when the request asked for JSON, for the reply translators. */
export function structuredOutputOf(body: JsonRecord): string | undefined {
  const type = asRecord(body.response_format)?.type;
  return type === 'json_object' || type === 'json_schema' ? STRUCTURED_OUTPUT_TOOL : undefined;
}

/** An OpenAI chat/completions body as an Anthropic Messages body. */
export function openAiToAnthropicRequest(
  body: JsonRecord,
  options: OpenAiToAnthropicOptions,
): AnthropicMessagesRequest {
  refuseUnsupportedFields(body, OPENAI_TO_ANTHROPIC_FIELDS, 'Anthropic channels');
  const { system, messages } = convertMessages(body.messages);
  const maxTokens =
    asCount(body.max_completion_tokens) ??
    asCount(body.max_tokens) ??
    defaultMaxTokensFor(options.model, options.defaultMaxTokens);
  const out: AnthropicMessagesRequest = { model: options.model, max_tokens: maxTokens, messages };
  if (system.length) out.system = system;

  const tools = convertTools(body.tools, body.functions);
  if (tools.length) {
    out.tools = tools;
    const choice = convertToolChoice(
      body.tool_choice ?? body.function_call,
      asBoolean(body.parallel_tool_calls),
    );
    if (choice) out.tool_choice = choice;
  }
  const structured = structuredOutputTool(body.response_format);
  if (structured) {
    if (tools.length) {
      throw new TranslationError(
        'response_format together with tools is not supported on Anthropic channels',
        'response_format',
      );
    }
    out.tools = [structured];
    out.tool_choice = { type: 'tool', name: structured.name };
  }
  const topK = asCount(body.top_k);
  if (topK !== undefined) out.top_k = topK;

  const stop = stopSequences(body.stop);
  if (stop) out.stop_sequences = stop;
  const temperature = asNumber(body.temperature);
  // OpenAI's scale runs to 2, Anthropic's to 1.
  if (temperature !== undefined) out.temperature = Math.min(1, Math.max(0, temperature));
  const topP = asNumber(body.top_p);
  if (topP !== undefined) out.top_p = topP;
  if (body.stream === true) out.stream = true;
  const user = asString(body.user) ?? asString(body.safety_identifier);
  if (user) out.metadata = { user_id: user };

  const effort = asString(body.reasoning_effort);
  const forced = out.tool_choice?.type === 'any' || out.tool_choice?.type === 'tool';
  if (effort && !forced && !continuesToolLoop(messages)) {
    const budget = anthropicBudgetForEffort(
      effort,
      maxTokens,
      options.thinkingShare ?? DEFAULT_THINKING_SHARE,
    );
    if (budget !== null) {
      out.thinking = { type: 'enabled', budget_tokens: budget };
      // Thinking runs at a fixed temperature and accepts top_p only from 0.95 up.
      delete out.temperature;
      if (out.top_p !== undefined && out.top_p < 0.95) delete out.top_p;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Anthropic -> OpenAI

export interface AnthropicToOpenAiOptions {
  /** The model the upstream must see. */
  model: string;
  /** Ask a streaming upstream for its usage chunk (`stream_options.include_usage`); default true. */
  includeUsage?: boolean;
  /** Where max_tokens goes: `max_completion_tokens` for OpenAI's reasoning models; default `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Translate thinking into `reasoning_effort`; default true. Off for upstreams that reject the field. */
  reasoningEffort?: boolean;
}

/** Anthropic's request fields and their fate on an OpenAI-shaped channel (docs/compatibility.md). */
const ANTHROPIC_TO_OPENAI_FIELDS: FieldRules = {
  model: 'mapped',
  messages: 'mapped',
  system: 'mapped',
  max_tokens: 'mapped',
  temperature: 'mapped',
  top_p: 'mapped',
  stop_sequences: 'mapped',
  tools: 'mapped',
  tool_choice: 'mapped',
  thinking: 'mapped',
  output_config: 'mapped',
  metadata: 'mapped',
  stream: 'mapped',
  top_k: accepts.never,
  service_tier: 'moot',
  container: accepts.never,
  mcp_servers: accepts.never,
  context_management: accepts.never,
};

/**
 * Refuses what an Anthropic request asks for that an OpenAI-shaped channel cannot give. Called only
 * when the call is translated: an Anthropic channel takes the body as it is.
 */
export function refuseAnthropicFieldsForOpenAi(body: JsonRecord): void {
  refuseUnsupportedFields(body, ANTHROPIC_TO_OPENAI_FIELDS, "this model's channel (not Anthropic)");
}

/** Anthropic blocks that mean something to an OpenAI user message, as content parts. */
function blockToParts(block: JsonRecord): OpenAiContentPart[] {
  switch (block.type) {
    case 'text': {
      const text = asString(block.text) ?? '';
      return text ? [{ type: 'text', text }] : [];
    }
    case 'image': {
      const source = asRecord(block.source) ?? {};
      if (source.type === 'base64') {
        const url = toDataUrl(asString(source.media_type) ?? 'image/png', asString(source.data) ?? '');
        return [{ type: 'image_url', image_url: { url } }];
      }
      if (source.type === 'url')
        return [{ type: 'image_url', image_url: { url: asString(source.url) ?? '' } }];
      throw new TranslationError('images must be sent inline or by URL on this channel');
    }
    case 'document': {
      const source = asRecord(block.source) ?? {};
      if (source.type === 'text') {
        const text = asString(source.data) ?? '';
        return text ? [{ type: 'text', text }] : [];
      }
      if (source.type === 'content')
        return asArray(source.content).flatMap((b) => (isRecord(b) ? blockToParts(b) : []));
      if (source.type === 'base64') {
        const mediaType = asString(source.media_type) ?? 'application/pdf';
        const filename =
          asString(block.title) ?? (mediaType === 'application/pdf' ? 'document.pdf' : 'document');
        return [
          { type: 'file', file: { filename, file_data: toDataUrl(mediaType, asString(source.data) ?? '') } },
        ];
      }
      throw new TranslationError('documents must be sent inline on this channel');
    }
    case 'search_result': {
      const texts = asArray(block.content).flatMap((b) => (isRecord(b) ? blockToParts(b) : []));
      const title = asString(block.title);
      return title ? [{ type: 'text', text: title }, ...texts] : texts;
    }
    default:
      // thinking, redacted_thinking and server-tool blocks have no OpenAI counterpart.
      return [];
  }
}

function partsContent(parts: OpenAiContentPart[]): string | OpenAiContentPart[] {
  // A lone text part goes out as a plain string, which every OpenAI-compatible vendor accepts.
  const first = parts[0];
  if (parts.length === 1 && first?.type === 'text') return first.text;
  return parts;
}

function toolResultText(content: unknown): { text: string; images: OpenAiContentPart[] } {
  if (typeof content === 'string') return { text: content, images: [] };
  const texts: string[] = [];
  const images: OpenAiContentPart[] = [];
  for (const b of asArray(content)) {
    if (!isRecord(b)) continue;
    for (const part of blockToParts(b)) {
      if (part.type === 'text') texts.push(part.text);
      else images.push(part);
    }
  }
  return { text: texts.join('\n'), images };
}

function userMessages(content: unknown): OpenAiMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const out: OpenAiMessage[] = [];
  const parts: OpenAiContentPart[] = [];
  for (const b of asArray(content)) {
    if (!isRecord(b)) continue;
    if (b.type === 'tool_result') {
      const { text, images } = toolResultText(b.content);
      const prefix = b.is_error === true ? 'Error: ' : '';
      out.push({ role: 'tool', tool_call_id: asString(b.tool_use_id) ?? '', content: `${prefix}${text}` });
      // OpenAI tool messages carry text only; images a tool returned follow as user content.
      parts.push(...images);
      continue;
    }
    parts.push(...blockToParts(b));
  }
  if (parts.length) out.push({ role: 'user', content: partsContent(parts) });
  return out;
}

function assistantMessage(content: unknown): OpenAiMessage | null {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: string[] = [];
  const calls: OpenAiToolCall[] = [];
  for (const b of asArray(content)) {
    if (!isRecord(b)) continue;
    if (b.type === 'text') {
      const t = asString(b.text);
      if (t) texts.push(t);
    } else if (b.type === 'tool_use') {
      calls.push({
        id: asString(b.id) ?? '',
        type: 'function',
        function: { name: asString(b.name) ?? '', arguments: JSON.stringify(b.input ?? {}) },
      });
    }
  }
  if (texts.length === 0 && calls.length === 0) return null;
  const m: OpenAiMessage = { role: 'assistant', content: texts.length ? texts.join('') : null };
  if (calls.length) m.tool_calls = calls;
  return m;
}

function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  return asArray(system)
    .map((b) => (isRecord(b) && b.type === 'text' ? (asString(b.text) ?? '') : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function openAiTools(tools: unknown): OpenAiTool[] {
  const out: OpenAiTool[] = [];
  for (const t of asArray(tools)) {
    const tool = asRecord(t);
    // Client tools have an input_schema; server tools (web search, code execution) run at Anthropic.
    if (!tool || (tool.type !== undefined && tool.type !== 'custom') || !isRecord(tool.input_schema))
      continue;
    const fn: OpenAiTool['function'] = { name: asString(tool.name) ?? '', parameters: tool.input_schema };
    const description = asString(tool.description);
    if (description) fn.description = description;
    out.push({ type: 'function', function: fn });
  }
  return out;
}

function openAiToolChoice(choice: unknown): OpenAiToolChoice | undefined {
  const c = asRecord(choice);
  switch (c?.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool': {
      const name = asString(c.name);
      return name ? { type: 'function', function: { name } } : undefined;
    }
    default:
      return undefined;
  }
}

/** An Anthropic Messages body as an OpenAI chat/completions body. */
export function anthropicToOpenAiRequest(
  body: JsonRecord,
  options: AnthropicToOpenAiOptions,
): OpenAiChatRequest {
  const messages: OpenAiMessage[] = [];
  const system = systemText(body.system);
  if (system) messages.push({ role: 'system', content: system });
  for (const raw of asArray(body.messages)) {
    const m = asRecord(raw);
    if (m?.role === 'user') messages.push(...userMessages(m.content));
    else if (m?.role === 'assistant') {
      const a = assistantMessage(m.content);
      if (a) messages.push(a);
    }
  }
  const out: OpenAiChatRequest = { model: options.model, messages };
  const maxTokens = asCount(body.max_tokens);
  if (maxTokens !== undefined) out[options.maxTokensField ?? 'max_tokens'] = maxTokens;
  const temperature = asNumber(body.temperature);
  if (temperature !== undefined) out.temperature = temperature;
  const topP = asNumber(body.top_p);
  if (topP !== undefined) out.top_p = topP;
  const stop = asArray(body.stop_sequences).filter((s): s is string => typeof s === 'string');
  if (stop.length) out.stop = stop;

  const tools = openAiTools(body.tools);
  if (tools.length) {
    out.tools = tools;
    const choice = openAiToolChoice(body.tool_choice);
    if (choice) out.tool_choice = choice;
    if (asRecord(body.tool_choice)?.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
  }
  if (options.reasoningEffort !== false) {
    const effort = effortForAnthropicThinking(body.thinking, body.output_config);
    if (effort) out.reasoning_effort = effort;
  }
  const format = asRecord(asRecord(body.output_config)?.format);
  if (format?.type === 'json_schema' && isRecord(format.schema)) {
    out.response_format = {
      type: 'json_schema',
      json_schema: { name: 'output', schema: format.schema, strict: true },
    };
  }
  const user = asString(asRecord(body.metadata)?.user_id);
  if (user) out.user = user;
  if (body.stream === true) {
    out.stream = true;
    if (options.includeUsage !== false) out.stream_options = { include_usage: true };
  }
  return out;
}
