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
} from '../translate/json-reading.js';
import type {
  OpenAiChatResponse,
  OpenAiFinishReason,
  OpenAiResponseMessage,
  OpenAiToolCall,
} from '../translate/openai-chat-types.js';
import { TranslationError } from '../translate/translation-error.js';
import { toOpenAiChatUsage } from '../usage.js';
import { fromCohereUsage } from './usage.js';

// OpenAI chat/completions <-> Cohere Chat v2 (`POST /v2/chat`). v2 is close to OpenAI: the same
// roles, tools as `{type:"function", function:{...}}`, `tool_calls` on assistant messages and
// `tool_call_id` on tool results. What differs: content parts are typed text/image_url only, the
// reply's content is a list of typed parts (text, thinking), `tool_plan` is the model's note
// before calling tools, sampling fields are renamed (`p`, `stop_sequences`), `tool_choice` is
// `REQUIRED`/`NONE`, and finish reasons are upper-case words.

type CohereContent = string | JsonRecord[];

function convertContent(content: unknown, role: string): CohereContent {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  const parts: JsonRecord[] = [];
  for (const part of asArray(content)) {
    const p = asRecord(part);
    if (!p) continue;
    if (p.type === 'text') parts.push({ type: 'text', text: asString(p.text) ?? '' });
    else if (p.type === 'image_url' && role === 'user') {
      const url = asString(asRecord(p.image_url)?.url) ?? asString(p.image_url);
      if (url) parts.push({ type: 'image_url', image_url: { url } });
    } else {
      throw new TranslationError(
        `content parts of type ${describeValue(p.type)} are not supported by Cohere`,
      );
    }
  }
  return parts;
}

function convertMessage(message: unknown): JsonRecord {
  const m = asRecord(message);
  if (!m) throw new TranslationError('messages must be objects');
  const role = asString(m.role);
  switch (role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: convertContent(m.content, 'system') };
    case 'user':
      return { role: 'user', content: convertContent(m.content, 'user') };
    case 'assistant': {
      const out: JsonRecord = { role: 'assistant' };
      const calls = asArray(m.tool_calls).filter(isRecord);
      if (calls.length) {
        out.tool_calls = calls.map((c) => ({
          id: asString(c.id) ?? '',
          type: 'function',
          function: {
            name: asString(asRecord(c.function)?.name) ?? '',
            arguments: asString(asRecord(c.function)?.arguments) ?? '{}',
          },
        }));
      }
      const content = convertContent(m.content, 'assistant');
      // Cohere refuses an assistant message with neither content nor tool calls.
      if ((typeof content === 'string' ? content !== '' : content.length > 0) || !calls.length)
        out.content = content;
      return out;
    }
    case 'tool':
      return {
        role: 'tool',
        tool_call_id: asString(m.tool_call_id) ?? '',
        content: convertContent(m.content, 'tool'),
      };
    default:
      throw new TranslationError(`message role ${describeValue(role)} is not supported by Cohere`);
  }
}

/** An OpenAI chat/completions body as a Cohere v2 chat body. */
export function openAiToCohereChat(body: JsonRecord, model: string): JsonRecord {
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw new TranslationError('messages is required');
  if ((asCount(body.n) ?? 1) > 1) throw new TranslationError('Cohere returns one choice: n must be 1');
  const out: JsonRecord = { model, messages: body.messages.map(convertMessage) };
  const maxTokens = asCount(body.max_completion_tokens) ?? asCount(body.max_tokens);
  if (maxTokens !== undefined) out.max_tokens = maxTokens;
  for (const [from, to] of [
    ['temperature', 'temperature'],
    ['top_p', 'p'],
    ['seed', 'seed'],
    ['frequency_penalty', 'frequency_penalty'],
    ['presence_penalty', 'presence_penalty'],
  ] as const) {
    const v = asNumber(body[from]);
    if (v !== undefined) out[to] = v;
  }
  const stop =
    typeof body.stop === 'string' ? [body.stop] : asArray(body.stop).filter((s) => typeof s === 'string');
  if (stop.length) out.stop_sequences = stop;
  let tools = asArray(body.tools).filter(isRecord);
  const choice = body.tool_choice;
  if (choice === 'required') out.tool_choice = 'REQUIRED';
  else if (choice === 'none') out.tool_choice = 'NONE';
  else if (isRecord(choice)) {
    // Cohere cannot name one tool: offer only that one and require a call.
    const name = asString(asRecord(choice.function)?.name);
    tools = tools.filter((t) => asString(asRecord(t.function)?.name) === name);
    out.tool_choice = 'REQUIRED';
  }
  if (tools.length) {
    out.tools = tools.map((t) => {
      const f = asRecord(t.function) ?? {};
      const fn: JsonRecord = {
        name: asString(f.name) ?? '',
        parameters: asRecord(f.parameters) ?? { type: 'object', properties: {} },
      };
      if (typeof f.description === 'string') fn.description = f.description;
      return { type: 'function', function: fn };
    });
  }
  const format = asRecord(body.response_format);
  if (format?.type === 'json_object') out.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    const schema = asRecord(asRecord(format.json_schema)?.schema);
    out.response_format = schema ? { type: 'json_object', json_schema: schema } : { type: 'json_object' };
  }
  if (asBoolean(body.stream)) out.stream = true;
  return out;
}

export function cohereFinishToOpenAi(reason: unknown): OpenAiFinishReason {
  switch (reason) {
    case 'MAX_TOKENS':
    case 'ERROR_LIMIT':
      return 'length';
    case 'TOOL_CALL':
      return 'tool_calls';
    case 'ERROR_TOXIC':
      return 'content_filter';
    default:
      return 'stop';
  }
}

export interface CohereToOpenAiOptions {
  /** The model name the client asked for. */
  model: string;
  created?: number;
}

/** A Cohere v2 chat reply as an OpenAI chat.completion. */
export function cohereToOpenAiResponse(reply: unknown, options: CohereToOpenAiOptions): OpenAiChatResponse {
  const r = asRecord(reply) ?? {};
  const message = asRecord(r.message) ?? {};
  const texts: string[] = [];
  const thinking: string[] = [];
  for (const part of asArray(message.content)) {
    const p = asRecord(part);
    if (p?.type === 'text') texts.push(asString(p.text) ?? '');
    else if (p?.type === 'thinking') thinking.push(asString(p.thinking) ?? '');
  }
  const plan = asString(message.tool_plan);
  if (plan) thinking.push(plan);
  const calls: OpenAiToolCall[] = asArray(message.tool_calls)
    .filter(isRecord)
    .map((c) => ({
      id: asString(c.id) ?? '',
      type: 'function',
      function: {
        name: asString(asRecord(c.function)?.name) ?? '',
        arguments: asString(asRecord(c.function)?.arguments) ?? '{}',
      },
    }));
  const out: OpenAiResponseMessage = {
    role: 'assistant',
    content: texts.length ? texts.join('') : null,
    refusal: null,
  };
  if (thinking.length) out.reasoning_content = thinking.join('');
  if (calls.length) out.tool_calls = calls;
  const usage = fromCohereUsage(r.usage);
  const response: OpenAiChatResponse = {
    id: `chatcmpl-${asString(r.id) ?? ''}`,
    object: 'chat.completion',
    created: options.created ?? Math.floor(Date.now() / 1000),
    model: options.model,
    choices: [
      { index: 0, message: out, logprobs: null, finish_reason: cohereFinishToOpenAi(r.finish_reason) },
    ],
  };
  if (usage) response.usage = toOpenAiChatUsage(usage);
  return response;
}
