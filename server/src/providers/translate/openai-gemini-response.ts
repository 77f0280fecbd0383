import { randomUUID } from 'node:crypto';
import { emptyUsage } from '../../billing/pricing/usage.js';
import type {
  GeminiCandidate,
  GeminiFinishReason,
  GeminiPart,
  GeminiResponse,
} from '../gemini/content-types.js';
import { fromGeminiUsage, toGeminiUsageMetadata } from '../gemini/usage.js';
import { fromOpenAiUsage, toOpenAiChatUsage } from '../usage.js';
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  isRecord,
  type JsonRecord,
  parseJson,
} from './json-reading.js';
import type {
  OpenAiChatResponse,
  OpenAiFinishReason,
  OpenAiResponseMessage,
  OpenAiToolCall,
} from './openai-chat-types.js';
import { stableToolCallId } from './tool-call-ids.js';

// Non-streaming replies between Gemini generateContent and OpenAI chat/completions, both ways, and
// the finish-reason vocabulary both stream translators share.

const FILTERED: ReadonlySet<string> = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/** Gemini has no finish reason for tool calls: a STOP after function calls is OpenAI's `tool_calls`. */
export function geminiFinishToOpenAi(reason: unknown, calledTools: boolean): OpenAiFinishReason {
  const r = asString(reason) ?? '';
  if (r === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(r)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

export function openAiFinishToGemini(finish: unknown): GeminiFinishReason {
  if (finish === 'length') return 'MAX_TOKENS';
  if (finish === 'content_filter') return 'SAFETY';
  return 'STOP';
}

/** The id seed of a Gemini reply: its `responseId`, or a fresh one when it has none. */
function geminiIdSeed(response: JsonRecord): string {
  return asString(response.responseId) ?? randomUUID();
}

export interface GeminiToOpenAiResponseOptions {
  /** The model name the client asked for; default: the upstream's `modelVersion`. */
  model?: string;
  /** Unix seconds for `created`; default: now. */
  created?: number;
}

function candidateMessage(
  candidate: JsonRecord,
  seed: string,
  choice: number,
): { message: OpenAiResponseMessage; calls: number } {
  const texts: string[] = [];
  const thoughts: string[] = [];
  const calls: OpenAiToolCall[] = [];
  for (const part of asArray(asRecord(candidate.content)?.parts)) {
    if (!isRecord(part)) continue;
    const call = asRecord(part.functionCall);
    if (call) {
      calls.push({
        id: asString(call.id) ?? stableToolCallId(`${seed}:${choice}`, calls.length),
        type: 'function',
        function: { name: asString(call.name) ?? '', arguments: JSON.stringify(call.args ?? {}) },
      });
      continue;
    }
    const text = asString(part.text);
    if (text === undefined) continue;
    (part.thought === true ? thoughts : texts).push(text);
  }
  const message: OpenAiResponseMessage = { role: 'assistant', content: texts.join(''), refusal: null };
  if (thoughts.length) message.reasoning_content = thoughts.join('');
  if (calls.length) {
    message.tool_calls = calls;
    if (message.content === '') message.content = null;
  }
  return { message, calls: calls.length };
}

/**
 * A Gemini GenerateContentResponse as an OpenAI chat.completion: one choice per candidate, thought
 * parts as `reasoning_content` (their signatures dropped), function calls with generated ids that
 * are stable for the reply. A prompt blocked before any candidate gives an empty filtered choice.
 */
export function geminiToOpenAiResponse(
  response: JsonRecord,
  options: GeminiToOpenAiResponseOptions = {},
): OpenAiChatResponse {
  const seed = geminiIdSeed(response);
  const candidates = asArray(response.candidates).filter(isRecord);
  const choices: OpenAiChatResponse['choices'] = candidates.map((c, i) => {
    const index = asNumber(c.index) ?? i;
    const { message, calls } = candidateMessage(c, seed, index);
    return { index, message, logprobs: null, finish_reason: geminiFinishToOpenAi(c.finishReason, calls > 0) };
  });
  if (choices.length === 0) {
    const blocked = asRecord(response.promptFeedback)?.blockReason !== undefined;
    choices.push({
      index: 0,
      message: { role: 'assistant', content: '', refusal: null },
      logprobs: null,
      finish_reason: blocked ? 'content_filter' : 'stop',
    });
  }
  const out: OpenAiChatResponse = {
    id: `chatcmpl-${seed}`,
    object: 'chat.completion',
    created: options.created ?? Math.floor(Date.now() / 1000),
    model: options.model ?? asString(response.modelVersion) ?? '',
    choices,
  };
  const usage = fromGeminiUsage(response.usageMetadata);
  if (usage) out.usage = toOpenAiChatUsage(usage);
  return out;
}

export interface OpenAiToGeminiResponseOptions {
  /** The model name the client asked for; default: the upstream's. */
  model?: string;
}

/** The Gemini parts of an OpenAI assistant message: reasoning as thought parts, then text, then calls. */
function messageParts(message: JsonRecord): GeminiPart[] {
  const parts: GeminiPart[] = [];
  const reasoning = asString(message.reasoning_content) ?? asString(message.reasoning);
  if (reasoning) parts.push({ text: reasoning, thought: true });
  const text = typeof message.content === 'string' ? message.content : '';
  if (text) parts.push({ text });
  for (const call of asArray(message.tool_calls)) {
    const fn = asRecord(asRecord(call)?.function);
    if (!fn) continue;
    const args = parseJson(asString(fn.arguments) ?? '');
    parts.push({ functionCall: { name: asString(fn.name) ?? '', args: isRecord(args) ? args : {} } });
  }
  return parts;
}

/** An OpenAI chat.completion as a Gemini GenerateContentResponse. */
export function openAiToGeminiResponse(
  response: JsonRecord,
  options: OpenAiToGeminiResponseOptions = {},
): GeminiResponse {
  const candidates: GeminiCandidate[] = asArray(response.choices)
    .filter(isRecord)
    .map((choice, i) => {
      const parts = messageParts(asRecord(choice.message) ?? {});
      return {
        content: { role: 'model', parts: parts.length ? parts : [{ text: '' }] },
        finishReason: openAiFinishToGemini(choice.finish_reason),
        index: asNumber(choice.index) ?? i,
      };
    });
  const model = options.model ?? asString(response.model) ?? '';
  return {
    candidates,
    usageMetadata: toGeminiUsageMetadata(fromOpenAiUsage(response.usage) ?? emptyUsage()),
    modelVersion: model,
    responseId: (asString(response.id) ?? '').replace(/^chatcmpl-/, ''),
  };
}
