import { emptyUsage, type Usage } from '../../billing/pricing/usage.js';
import { anthropicErrorBody, anthropicErrorFromObject } from '../anthropic/errors.js';
import type { AnthropicStopReason } from '../anthropic/message-types.js';
import { fromAnthropicUsage, mergeAnthropicUsage, toAnthropicUsage } from '../anthropic/usage.js';
import { errorFromObject, type UpstreamErrorFields } from '../openai/errors.js';
import { fromOpenAiUsage, isMeaningfulUsage, toOpenAiChatUsage } from '../usage.js';
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  isRecord,
  type JsonRecord,
  parseJson,
} from './json-reading.js';
import {
  anthropicIdFromOpenAi,
  anthropicStopToFinish,
  finishToAnthropicStop,
  openAiIdFromAnthropic,
} from './openai-anthropic-response.js';
import type { OpenAiChunk, OpenAiChunkDelta, OpenAiFinishReason } from './openai-chat-types.js';
import { dataEvent, namedEvent, type SseEvent } from './sse-framing.js';
import { SseStreamTranslator } from './stream-translator.js';

// Streams between Anthropic Messages events and OpenAI chat.completion.chunk events, both ways.
// Both are incremental state machines over an SSE reader, so a chunk boundary anywhere (inside an
// event, a line, a UTF-8 character) changes nothing in the output.

const DONE = 'data: [DONE]\n\n';

function streamError(payload: unknown, raw: Buffer): UpstreamErrorFields {
  return {
    message: raw.toString('utf8').slice(0, 500) || 'upstream stream error',
    type: 'upstream_error',
    code: null,
    param: null,
    ...(errorFromObject(payload) ?? {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Anthropic events -> OpenAI chunks (client speaks OpenAI, channel speaks Anthropic)

export interface AnthropicToOpenAiStreamOptions {
  /** The model name the client asked for; default: the upstream's. */
  model?: string;
  /** The client asked for `stream_options.include_usage`: end with the usage-only chunk. */
  includeUsage?: boolean;
  /** Unix seconds for `created`; default: now. */
  created?: number;
  /** The forced structured-output tool, whose input streams as the message text (response_format). */
  structuredTool?: string;
}

interface ToolBlock {
  /** Position among the tool calls (OpenAI's `tool_calls[].index`). */
  index: number;
  /** Input given whole at block start, sent as arguments when no fragments follow. */
  input: unknown;
  sentArguments: boolean;
  /** The structured-output tool: its input is sent as content, not as a tool call. */
  structured: boolean;
}

export class AnthropicToOpenAiStream extends SseStreamTranslator {
  private readonly includeUsage: boolean;
  private readonly created: number;
  private id = 'chatcmpl-';
  private model: string;
  private started = false;
  private readonly tools = new Map<number, ToolBlock>();
  private usageFields: JsonRecord | null = null;
  private finishSent = false;
  private readonly structuredTool: string | undefined;
  private realToolCalls = 0;

  constructor(options: AnthropicToOpenAiStreamOptions = {}) {
    super();
    this.includeUsage = options.includeUsage ?? false;
    this.created = options.created ?? Math.floor(Date.now() / 1000);
    this.model = options.model ?? '';
    this.structuredTool = options.structuredTool;
  }

  override get usage(): Usage | null {
    return this.usageFields ? fromAnthropicUsage(this.usageFields) : null;
  }

  override errorEvent(error: { status: number; message: string; type?: string }): Buffer {
    return Buffer.from(
      dataEvent({
        error: { message: error.message, type: error.type ?? 'upstream_error', code: null, param: null },
      }),
    );
  }

  private chunk(delta: OpenAiChunkDelta, finish: OpenAiFinishReason | null): string {
    const c: OpenAiChunk = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
    return dataEvent(c);
  }

  private text(out: string[], content: string): void {
    this.texts.push(content);
    out.push(this.chunk({ content }, null));
  }

  private reasoning(out: string[], reasoning: string): void {
    this.texts.push(reasoning);
    out.push(this.chunk({ reasoning_content: reasoning }, null));
  }

  private toolArguments(out: string[], tool: ToolBlock, args: string): void {
    tool.sentArguments = true;
    if (tool.structured) {
      this.text(out, args);
      return;
    }
    this.texts.push(args);
    out.push(this.chunk({ tool_calls: [{ index: tool.index, function: { arguments: args } }] }, null));
  }

  private start(out: string[], message: JsonRecord): void {
    if (this.started) return;
    this.started = true;
    this.id = openAiIdFromAnthropic(asString(message.id) ?? '');
    if (!this.model) this.model = asString(message.model) ?? '';
    out.push(this.chunk({ role: 'assistant', content: '' }, null));
  }

  protected override handle(event: SseEvent, out: string[]): void {
    const payload = asRecord(parseJson(event.data.toString('utf8')));
    const type = asString(payload?.type) ?? event.event;
    if (type === 'error') {
      this.error = anthropicErrorFromObject(payload) ?? streamError(payload, event.data);
      out.push(dataEvent({ error: this.error }));
      return;
    }
    if (!payload) return;
    switch (type) {
      case 'message_start': {
        const message = asRecord(payload.message) ?? {};
        this.usageFields = mergeAnthropicUsage(this.usageFields ?? {}, message.usage);
        this.start(out, message);
        return;
      }
      case 'content_block_start': {
        this.start(out, {});
        const block = asRecord(payload.content_block) ?? {};
        const at = asNumber(payload.index) ?? 0;
        if (
          block.type === 'tool_use' &&
          this.structuredTool !== undefined &&
          block.name === this.structuredTool
        ) {
          this.tools.set(at, { index: -1, input: block.input, sentArguments: false, structured: true });
        } else if (block.type === 'tool_use') {
          const tool: ToolBlock = {
            index: this.realToolCalls++,
            input: block.input,
            sentArguments: false,
            structured: false,
          };
          this.tools.set(at, tool);
          const name = asString(block.name) ?? '';
          this.texts.push(name);
          out.push(
            this.chunk(
              {
                tool_calls: [
                  {
                    index: tool.index,
                    id: asString(block.id) ?? '',
                    type: 'function',
                    function: { name, arguments: '' },
                  },
                ],
              },
              null,
            ),
          );
        } else if (block.type === 'text') {
          const text = asString(block.text);
          if (text) this.text(out, text);
        } else if (block.type === 'thinking') {
          const thinking = asString(block.thinking);
          if (thinking) this.reasoning(out, thinking);
        }
        return;
      }
      case 'content_block_delta': {
        const delta = asRecord(payload.delta) ?? {};
        const at = asNumber(payload.index) ?? 0;
        if (delta.type === 'text_delta') {
          const text = asString(delta.text);
          if (text) this.text(out, text);
        } else if (delta.type === 'thinking_delta') {
          const thinking = asString(delta.thinking);
          if (thinking) this.reasoning(out, thinking);
        } else if (delta.type === 'input_json_delta') {
          const tool = this.tools.get(at);
          const part = asString(delta.partial_json);
          if (tool && part) this.toolArguments(out, tool, part);
        }
        // signature_delta: signatures verify only at Anthropic and never reach another protocol.
        return;
      }
      case 'content_block_stop': {
        const tool = this.tools.get(asNumber(payload.index) ?? 0);
        if (tool && !tool.sentArguments && isRecord(tool.input) && Object.keys(tool.input).length > 0) {
          this.toolArguments(out, tool, JSON.stringify(tool.input));
        } else if (tool?.structured && !tool.sentArguments) this.toolArguments(out, tool, '{}');
        return;
      }
      case 'message_delta': {
        this.usageFields = mergeAnthropicUsage(this.usageFields ?? {}, payload.usage);
        const stop = asString(asRecord(payload.delta)?.stop_reason);
        if (stop && !this.finishSent) {
          this.finishSent = true;
          const finish =
            stop === 'tool_use' && this.realToolCalls === 0 && this.structuredTool !== undefined
              ? 'stop'
              : anthropicStopToFinish(stop);
          out.push(this.chunk({}, finish));
        }
        return;
      }
      case 'message_stop': {
        this.start(out, {});
        if (!this.finishSent) {
          this.finishSent = true;
          out.push(this.chunk({}, 'stop'));
        }
        const usage = this.usage;
        if (this.includeUsage && usage) {
          out.push(
            dataEvent({
              id: this.id,
              object: 'chat.completion.chunk',
              created: this.created,
              model: this.model,
              choices: [],
              usage: toOpenAiChatUsage(usage),
            }),
          );
        }
        out.push(DONE);
        this.completed = true;
        return;
      }
      default:
        // ping, and event types added later.
        return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAI chunks -> Anthropic events (client speaks Anthropic, channel speaks OpenAI)

export interface OpenAiToAnthropicStreamOptions {
  /** The model name the client asked for; default: the upstream's. */
  model?: string;
  /**
   * Prompt tokens to announce in `message_start` (the gateway's count): OpenAI reports usage only at
   * the end, and the final `message_delta` then carries the real figure.
   */
  estimatedInputTokens?: number;
}

interface OpenTool {
  block: number;
  id: string;
}

export class OpenAiToAnthropicStream extends SseStreamTranslator {
  private readonly estimatedInput: number;
  private model: string;
  private messageId = 'msg_';
  private started = false;
  private nextBlock = 0;
  /** The open text or thinking block: one at a time, closed when any other block opens. */
  private openText: { block: number; kind: 'text' | 'thinking' } | null = null;
  /**
   * Open tool_use blocks by OpenAI tool-call index. They stay open together until text or the end
   * arrives, so fragments of parallel calls that interleave still reach their own block.
   */
  private readonly openTools = new Map<number, OpenTool>();
  private toolCount = 0;
  private stop: AnthropicStopReason | null = null;
  private doneSeen = false;
  private upstreamUsage: Usage | null = null;

  constructor(options: OpenAiToAnthropicStreamOptions = {}) {
    super();
    this.model = options.model ?? '';
    this.estimatedInput = options.estimatedInputTokens ?? 0;
  }

  override get usage(): Usage | null {
    return this.upstreamUsage;
  }

  protected override atEnd(out: string[], fallbackUsage: Usage | null): void {
    // Vendors that end without `[DONE]` still finished if they gave a finish reason.
    if (!this.completed && (this.doneSeen || this.stop !== null)) this.finish(out, fallbackUsage);
  }

  override errorEvent(error: { status: number; message: string; type?: string }): Buffer {
    return Buffer.from(namedEvent('error', anthropicErrorBody(error)));
  }

  private emit(out: string[], name: string, payload: JsonRecord): void {
    out.push(namedEvent(name, { type: name, ...payload }));
  }

  private start(out: string[], chunk: JsonRecord): void {
    if (this.started) return;
    this.started = true;
    const id = asString(chunk.id);
    this.messageId = anthropicIdFromOpenAi(id ?? '');
    if (!this.model) this.model = asString(chunk.model) ?? '';
    this.emit(out, 'message_start', {
      message: {
        id: this.messageId,
        type: 'message',
        role: 'assistant',
        model: this.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: this.estimatedInput,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    });
  }

  private closeText(out: string[]): void {
    if (!this.openText) return;
    this.emit(out, 'content_block_stop', { index: this.openText.block });
    this.openText = null;
  }

  private closeTools(out: string[]): void {
    const blocks = [...this.openTools.values()].map((t) => t.block).sort((a, b) => a - b);
    for (const index of blocks) this.emit(out, 'content_block_stop', { index });
    this.openTools.clear();
  }

  private textDelta(out: string[], kind: 'text' | 'thinking', text: string): void {
    if (this.openText?.kind !== kind) {
      this.closeText(out);
      this.closeTools(out);
      const block = this.nextBlock++;
      this.openText = { block, kind };
      const contentBlock =
        kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' };
      this.emit(out, 'content_block_start', { index: block, content_block: contentBlock });
    }
    this.texts.push(text);
    const delta = kind === 'text' ? { type: 'text_delta', text } : { type: 'thinking_delta', thinking: text };
    this.emit(out, 'content_block_delta', { index: this.openText?.block ?? 0, delta });
  }

  private toolDelta(out: string[], call: JsonRecord): void {
    const index = asNumber(call.index) ?? 0;
    const fn = asRecord(call.function) ?? {};
    const id = asString(call.id);
    let tool = this.openTools.get(index);
    // Some vendors reuse index 0 for every call; a new id means a new call.
    if (tool && id && id !== tool.id) {
      this.emit(out, 'content_block_stop', { index: tool.block });
      this.openTools.delete(index);
      tool = undefined;
    }
    if (!tool) {
      this.closeText(out);
      tool = {
        block: this.nextBlock++,
        id: id ?? `toolu_${this.messageId.replace(/^msg_/, '')}_${this.toolCount}`,
      };
      this.toolCount++;
      this.openTools.set(index, tool);
      const name = asString(fn.name) ?? '';
      this.texts.push(name);
      this.emit(out, 'content_block_start', {
        index: tool.block,
        content_block: { type: 'tool_use', id: tool.id, name, input: {} },
      });
    }
    const args = asString(fn.arguments);
    if (args) {
      this.texts.push(args);
      this.emit(out, 'content_block_delta', {
        index: tool.block,
        delta: { type: 'input_json_delta', partial_json: args },
      });
    }
  }

  private finish(out: string[], fallback: Usage | null): void {
    this.start(out, {});
    this.closeText(out);
    this.closeTools(out);
    const usage = toAnthropicUsage(this.upstreamUsage ?? fallback ?? emptyUsage());
    this.emit(out, 'message_delta', {
      delta: { stop_reason: this.stop ?? 'end_turn', stop_sequence: null },
      usage,
    });
    this.emit(out, 'message_stop', {});
    this.completed = true;
  }

  protected override handle(event: SseEvent, out: string[]): void {
    if (this.completed) return;
    const text = event.data.toString('utf8').trim();
    if (text === '[DONE]') {
      this.doneSeen = true;
      // Without upstream usage the closing event waits for the relay's own count (see end()).
      if (this.upstreamUsage) this.finish(out, null);
      return;
    }
    const chunk = asRecord(parseJson(text));
    if (event.event === 'error' || (chunk?.error !== undefined && chunk?.error !== null)) {
      this.error = streamError(chunk, event.data);
      out.push(
        namedEvent(
          'error',
          anthropicErrorBody({ status: 500, message: this.error.message, type: this.error.type }),
        ),
      );
      return;
    }
    if (!chunk) return;
    this.start(out, chunk);
    if (isRecord(chunk.usage)) {
      const usage = fromOpenAiUsage(chunk.usage);
      if (isMeaningfulUsage(usage)) this.upstreamUsage = usage;
    }
    const choices = asArray(chunk.choices);
    const choice = asRecord(choices.find((c) => asNumber(asRecord(c)?.index) === 0) ?? choices[0]);
    if (!choice) return;
    const delta = asRecord(choice.delta) ?? {};
    const reasoning = asString(delta.reasoning_content) ?? asString(delta.reasoning);
    if (reasoning) this.textDelta(out, 'thinking', reasoning);
    const content = asString(delta.content);
    if (content) this.textDelta(out, 'text', content);
    for (const call of asArray(delta.tool_calls)) if (isRecord(call)) this.toolDelta(out, call);
    const legacy = asRecord(delta.function_call);
    if (legacy) this.toolDelta(out, { index: 0, function: legacy });
    const finish = asString(choice.finish_reason);
    if (finish) {
      this.stop = finishToAnthropicStop(finish);
      this.closeText(out);
      this.closeTools(out);
    }
  }
}
