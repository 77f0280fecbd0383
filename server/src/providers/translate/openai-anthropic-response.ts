import { emptyUsage, type Usage } from '../../billing/pricing/usage.js';
import type {
  AnthropicMessage,
  AnthropicResponseBlock,
  AnthropicStopReason,
} from '../anthropic/message-types.js';
import { fromAnthropicUsage, toAnthropicUsage } from '../anthropic/usage.js';
import { fromOpenAiUsage, toOpenAiChatUsage } from '../usage.js';
import { asArray, asRecord, asString, isRecord, type JsonRecord, parseJson } from './json-reading.js';
import type {
  OpenAiChatResponse,
  OpenAiFinishReason,
  OpenAiResponseMessage,
  OpenAiToolCall,
} from './openai-chat-types.js';

// Non-streaming replies between Anthropic Messages and OpenAI chat/completions, both ways, and the
// stop-reason vocabulary both stream translators share.

export function anthropicStopToFinish(stop: unknown): OpenAiFinishReason {
  switch (stop) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, pause_turn (a server tool paused the turn: the answer so far is whole).
      return 'stop';
  }
}

export function finishToAnthropicStop(finish: unknown): AnthropicStopReason {
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/** `msg_...` <-> `chatcmpl-...`: each side sees ids in its own style, and the pair stays traceable. */
export function openAiIdFromAnthropic(id: string): string {
  return `chatcmpl-${id.replace(/^msg_/, '')}`;
}

export function anthropicIdFromOpenAi(id: string): string {
  return `msg_${id.replace(/^chatcmpl-/, '')}`;
}

export interface AnthropicToOpenAiResponseOptions {
  /** The model name the client asked for; default: the upstream's. */
  model?: string;
  /** Unix seconds for `created`; default: now. */
  created?: number;
  /** The forced structured-output tool, whose input is the message's JSON text (response_format). */
  structuredTool?: string;
}

/** An Anthropic Message as an OpenAI chat.completion. Thinking becomes `reasoning_content`, unsigned. */
export function anthropicToOpenAiResponse(
  message: JsonRecord,
  options: AnthropicToOpenAiResponseOptions = {},
): OpenAiChatResponse {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const calls: OpenAiToolCall[] = [];
  for (const b of asArray(message.content)) {
    if (!isRecord(b)) continue;
    if (b.type === 'text') texts.push(asString(b.text) ?? '');
    else if (b.type === 'thinking') reasoning.push(asString(b.thinking) ?? '');
    else if (
      b.type === 'tool_use' &&
      options.structuredTool !== undefined &&
      b.name === options.structuredTool
    ) {
      texts.push(JSON.stringify(b.input ?? {}));
    } else if (b.type === 'tool_use') {
      calls.push({
        id: asString(b.id) ?? '',
        type: 'function',
        function: { name: asString(b.name) ?? '', arguments: JSON.stringify(b.input ?? {}) },
      });
    }
  }
  const out: OpenAiResponseMessage = { role: 'assistant', content: texts.join(''), refusal: null };
  if (reasoning.length) out.reasoning_content = reasoning.join('');
  if (calls.length) {
    out.tool_calls = calls;
    if (out.content === '') out.content = null;
  }
  const response: OpenAiChatResponse = {
    id: openAiIdFromAnthropic(asString(message.id) ?? ''),
    object: 'chat.completion',
    created: options.created ?? Math.floor(Date.now() / 1000),
    model: options.model ?? asString(message.model) ?? '',
    choices: [
      {
        index: 0,
        message: out,
        logprobs: null,
        // The forced JSON tool ends the turn with tool_use; to the client the answer simply ended.
        finish_reason:
          message.stop_reason === 'tool_use' && calls.length === 0
            ? 'stop'
            : anthropicStopToFinish(message.stop_reason),
      },
    ],
  };
  const usage = fromAnthropicUsage(message.usage);
  if (usage) response.usage = toOpenAiChatUsage(usage);
  return response;
}

export interface OpenAiToAnthropicResponseOptions {
  /** The model name the client asked for; default: the upstream's. */
  model?: string;
}

/**
 * An OpenAI chat.completion (its first choice) as an Anthropic Message. Reasoning becomes a
 * thinking block with an empty signature: shown to the client, refused by Anthropic if replayed
 * there, and dropped by the gateway when replayed to an OpenAI channel.
 */
export function openAiToAnthropicResponse(
  response: JsonRecord,
  options: OpenAiToAnthropicResponseOptions = {},
): AnthropicMessage {
  const choice = asRecord(asArray(response.choices)[0]) ?? {};
  const message = asRecord(choice.message) ?? {};
  const content: AnthropicResponseBlock[] = [];
  const reasoning = asString(message.reasoning_content) ?? asString(message.reasoning);
  if (reasoning) content.push({ type: 'thinking', thinking: reasoning, signature: '' });
  const text = typeof message.content === 'string' ? message.content : '';
  if (text) content.push({ type: 'text', text });
  const refusal = asString(message.refusal);
  if (refusal) content.push({ type: 'text', text: refusal });
  for (const call of asArray(message.tool_calls)) {
    const c = asRecord(call);
    const fn = asRecord(c?.function);
    if (!c || !fn) continue;
    const args = parseJson(asString(fn.arguments) ?? '');
    content.push({
      type: 'tool_use',
      id: asString(c.id) ?? '',
      name: asString(fn.name) ?? '',
      input: isRecord(args) ? args : {},
    });
  }
  const usage: Usage = fromOpenAiUsage(response.usage) ?? emptyUsage();
  const finish = asString(choice.finish_reason);
  return {
    id: anthropicIdFromOpenAi(asString(response.id) ?? ''),
    type: 'message',
    role: 'assistant',
    model: options.model ?? asString(response.model) ?? '',
    content,
    stop_reason: finishToAnthropicStop(finish),
    stop_sequence: null,
    usage: toAnthropicUsage(usage),
  };
}
