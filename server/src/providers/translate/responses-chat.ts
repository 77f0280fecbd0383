import { fromOpenAiUsage, type Usage } from '../usage.js';
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
} from './json-reading.js';
import type {
  OpenAiChatRequest,
  OpenAiContentPart,
  OpenAiMessage,
  OpenAiTool,
  OpenAiToolCall,
  OpenAiToolChoice,
} from './openai-chat-types.js';
import { TranslationError } from './translation-error.js';

// OpenAI's Responses API on a channel that only speaks chat/completions: the request becomes a
// chat body, and the chat reply becomes a Response object. The gateway keeps no conversation
// state, so `previous_response_id` (and stored items referenced by id) cannot be honoured.

// ---------------------------------------------------------------------------------------------
// Responses request -> chat request

function contentParts(content: unknown): string | OpenAiContentPart[] {
  if (typeof content === 'string') return content;
  const parts: OpenAiContentPart[] = [];
  for (const raw of asArray(content)) {
    const p = asRecord(raw);
    if (!p) continue;
    switch (p.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
        parts.push({ type: 'text', text: asString(p.text) ?? '' });
        break;
      case 'refusal':
        parts.push({ type: 'text', text: asString(p.refusal) ?? '' });
        break;
      case 'input_image': {
        const url = asString(p.image_url);
        if (!url)
          throw new TranslationError('input_image needs an image_url (file ids are not supported here)');
        const detail = asString(p.detail);
        parts.push({ type: 'image_url', image_url: detail ? { url, detail } : { url } });
        break;
      }
      case 'input_file': {
        const data = asString(p.file_data);
        if (!data) throw new TranslationError('input_file needs file_data (file ids are not supported here)');
        const filename = asString(p.filename);
        parts.push({ type: 'file', file: filename ? { file_data: data, filename } : { file_data: data } });
        break;
      }
      case 'input_audio': {
        const audio = asRecord(p.input_audio) ?? {};
        parts.push({
          type: 'input_audio',
          input_audio: { data: asString(audio.data) ?? '', format: asString(audio.format) ?? 'wav' },
        });
        break;
      }
      default:
        throw new TranslationError(`content part ${describeValue(p.type)} is not supported for this model`);
    }
  }
  return parts;
}

function textOf(content: string | OpenAiContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** Consecutive function calls belong to one assistant turn in chat/completions. */
function appendCall(messages: OpenAiMessage[], call: OpenAiToolCall): void {
  const last = messages.at(-1);
  if (last?.role === 'assistant' && (last.tool_calls?.length ?? 0) > 0) {
    last.tool_calls?.push(call);
    return;
  }
  if (last?.role === 'assistant' && !last.tool_calls) {
    last.tool_calls = [call];
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

function inputMessages(input: unknown): OpenAiMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const messages: OpenAiMessage[] = [];
  for (const raw of asArray(input)) {
    const item = asRecord(raw);
    if (!item) continue;
    const type = asString(item.type) ?? 'message';
    switch (type) {
      case 'message': {
        const role = asString(item.role) ?? 'user';
        const content = contentParts(item.content);
        if (role === 'assistant') messages.push({ role: 'assistant', content: textOf(content) });
        else if (role === 'system' || role === 'developer') messages.push({ role, content: textOf(content) });
        else messages.push({ role: 'user', content });
        break;
      }
      case 'function_call':
        appendCall(messages, {
          id: asString(item.call_id) ?? asString(item.id) ?? '',
          type: 'function',
          function: { name: asString(item.name) ?? '', arguments: asString(item.arguments) ?? '{}' },
        });
        break;
      case 'function_call_output': {
        const output = item.output;
        messages.push({
          role: 'tool',
          tool_call_id: asString(item.call_id) ?? '',
          content: typeof output === 'string' ? output : textOf(contentParts(output)),
        });
        break;
      }
      case 'reasoning':
        // Reasoning items carry encrypted state only the Responses API can read back.
        break;
      case 'item_reference':
        throw new TranslationError('item_reference needs stored responses, which this model cannot use');
      default:
        throw new TranslationError(`input item ${type} is not supported for this model`);
    }
  }
  return messages;
}

function chatTools(tools: unknown): OpenAiTool[] {
  const out: OpenAiTool[] = [];
  for (const raw of asArray(tools)) {
    const t = asRecord(raw);
    if (!t) continue;
    if (t.type !== 'function') {
      throw new TranslationError(
        `tool type ${describeValue(t.type)} is only available on the Responses API itself`,
      );
    }
    const fn: OpenAiTool['function'] = { name: asString(t.name) ?? '' };
    const description = asString(t.description);
    if (description) fn.description = description;
    if (isRecord(t.parameters)) fn.parameters = t.parameters;
    out.push({ type: 'function', function: fn });
  }
  return out;
}

function chatToolChoice(choice: unknown): OpenAiToolChoice | undefined {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  const c = asRecord(choice);
  const name = asString(c?.name);
  if (c?.type === 'function' && name) return { type: 'function', function: { name } };
  return undefined;
}

export interface ResponsesToChatOptions {
  /** The model the upstream must see. */
  model: string;
  /** Ask a streaming upstream for its usage chunk; default true. */
  includeUsage?: boolean;
}

/** The Responses API's request fields and their fate on a chat/completions channel. */
const RESPONSES_TO_CHAT_FIELDS: FieldRules = {
  model: 'mapped',
  input: 'mapped',
  instructions: 'mapped',
  max_output_tokens: 'mapped',
  temperature: 'mapped',
  top_p: 'mapped',
  tools: 'mapped',
  tool_choice: 'mapped',
  parallel_tool_calls: 'mapped',
  reasoning: 'mapped',
  text: 'mapped',
  user: 'mapped',
  safety_identifier: 'mapped',
  stream: 'mapped',
  previous_response_id: 'mapped',
  // Nothing is stored by a chat channel; a later previous_response_id is refused instead.
  store: 'moot',
  metadata: 'moot',
  prompt_cache_key: 'moot',
  stream_options: 'moot',
  service_tier: (v) => v === 'auto' || v === 'default',
  include: accepts.emptyArray,
  truncation: (v) => v === 'disabled',
  background: accepts.false,
  top_logprobs: accepts.zero,
  prompt: accepts.never,
  conversation: accepts.never,
  max_tool_calls: accepts.never,
};

/**
 * Refuses what a Responses request asks for that a chat/completions channel cannot give. Called only
 * when the call is translated: a channel serving the Responses API takes the body as it is.
 */
export function refuseResponsesFieldsForChat(body: JsonRecord): void {
  refuseUnsupportedFields(body, RESPONSES_TO_CHAT_FIELDS, "this model's channel (chat completions)");
}

/** A Responses API request body as a chat/completions body. */
export function responsesToChatRequest(body: JsonRecord, options: ResponsesToChatOptions): OpenAiChatRequest {
  if (asString(body.previous_response_id)) {
    throw new TranslationError(
      'previous_response_id needs stored responses; send the whole conversation in input',
    );
  }
  const messages: OpenAiMessage[] = [];
  const instructions = asString(body.instructions);
  if (instructions) messages.push({ role: 'system', content: instructions });
  messages.push(...inputMessages(body.input));
  const out: OpenAiChatRequest = { model: options.model, messages };
  const max = asCount(body.max_output_tokens);
  if (max !== undefined) out.max_tokens = max;
  const temperature = asNumber(body.temperature);
  if (temperature !== undefined) out.temperature = temperature;
  const topP = asNumber(body.top_p);
  if (topP !== undefined) out.top_p = topP;
  const tools = chatTools(body.tools);
  if (tools.length) {
    out.tools = tools;
    const choice = chatToolChoice(body.tool_choice);
    if (choice) out.tool_choice = choice;
    const parallel = asBoolean(body.parallel_tool_calls);
    if (parallel !== undefined) out.parallel_tool_calls = parallel;
  }
  const effort = asString(asRecord(body.reasoning)?.effort);
  if (effort) out.reasoning_effort = effort;
  const format = asRecord(asRecord(body.text)?.format);
  if (format?.type === 'json_object') out.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    const schema = asRecord(format.schema);
    const spec: { name: string; schema?: JsonRecord; strict?: boolean } = {
      name: asString(format.name) ?? 'output',
    };
    if (schema) spec.schema = schema;
    const strict = asBoolean(format.strict);
    if (strict !== undefined) spec.strict = strict;
    out.response_format = { type: 'json_schema', json_schema: spec };
  }
  const user = asString(body.user) ?? asString(body.safety_identifier);
  if (user) out.user = user;
  if (body.stream === true) {
    out.stream = true;
    if (options.includeUsage !== false) out.stream_options = { include_usage: true };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// chat reply -> Response object

/** The Responses API `usage` object for a Usage. */
export function toResponsesUsage(u: Usage): JsonRecord {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedReadTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

/** `chatcmpl-X` -> `resp_X`, so the pair stays traceable in logs. */
export function responseIdFromChat(id: string): string {
  return `resp_${id.replace(/^chatcmpl-/, '') || Date.now().toString(36)}`;
}

export interface ResponseShell {
  id: string;
  model: string;
  createdAt: number;
  /** Request fields a Response echoes back. */
  request: JsonRecord;
}

/** The fields every Response object carries, in the state given. */
export function responseObject(
  shell: ResponseShell,
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
  output: JsonRecord[],
  usage: Usage | null,
  incompleteReason?: string,
): JsonRecord {
  const r = shell.request;
  return {
    id: shell.id,
    object: 'response',
    created_at: shell.createdAt,
    status,
    error: null,
    incomplete_details: incompleteReason ? { reason: incompleteReason } : null,
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    model: shell.model,
    output,
    parallel_tool_calls: r.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: r.reasoning ?? { effort: null, summary: null },
    store: false,
    temperature: r.temperature ?? 1,
    text: r.text ?? { format: { type: 'text' } },
    tool_choice: r.tool_choice ?? 'auto',
    tools: r.tools ?? [],
    top_p: r.top_p ?? 1,
    truncation: 'disabled',
    usage: usage ? toResponsesUsage(usage) : null,
    metadata: r.metadata ?? {},
  };
}

/** Why a Response is incomplete, from a chat finish reason; undefined when it is complete. */
export function incompleteReasonOf(finish: unknown): string | undefined {
  if (finish === 'length') return 'max_output_tokens';
  if (finish === 'content_filter') return 'content_filter';
  return undefined;
}

/** A chat.completion (its first choice) as a Response object. */
export function chatToResponsesResponse(
  chat: JsonRecord,
  request: JsonRecord,
  options: { model: string; createdAt?: number },
): JsonRecord {
  const id = responseIdFromChat(asString(chat.id) ?? '');
  const suffix = id.slice('resp_'.length);
  const choice = asRecord(asArray(chat.choices)[0]) ?? {};
  const message = asRecord(choice.message) ?? {};
  const output: JsonRecord[] = [];
  const reasoning = asString(message.reasoning_content) ?? asString(message.reasoning);
  if (reasoning) {
    output.push({
      type: 'reasoning',
      id: `rs_${suffix}`,
      summary: [{ type: 'summary_text', text: reasoning }],
    });
  }
  const text = typeof message.content === 'string' ? message.content : '';
  const refusal = asString(message.refusal);
  if (text || refusal || asArray(message.tool_calls).length === 0) {
    output.push({
      type: 'message',
      id: `msg_${suffix}`,
      status: 'completed',
      role: 'assistant',
      content: refusal
        ? [{ type: 'refusal', refusal }]
        : [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    });
  }
  asArray(message.tool_calls).forEach((raw, i) => {
    const call = asRecord(raw);
    const fn = asRecord(call?.function);
    if (!call || !fn) return;
    output.push({
      type: 'function_call',
      id: `fc_${suffix}_${i}`,
      call_id: asString(call.id) ?? '',
      name: asString(fn.name) ?? '',
      arguments: asString(fn.arguments) ?? '',
      status: 'completed',
    });
  });
  const incomplete = incompleteReasonOf(choice.finish_reason);
  const shell = {
    id,
    model: options.model,
    createdAt: asNumber(chat.created) ?? options.createdAt ?? Math.floor(Date.now() / 1000),
    request,
  };
  return responseObject(
    shell,
    incomplete ? 'incomplete' : 'completed',
    output,
    fromOpenAiUsage(chat.usage),
    incomplete,
  );
}
