import type { Usage } from '../../billing/pricing/usage.js';
import type { UpstreamErrorFields } from '../openai/errors.js';
import {
  asNumber,
  asRecord,
  asString,
  isRecord,
  type JsonRecord,
  parseJson,
} from '../translate/json-reading.js';
import type { OpenAiChunk, OpenAiChunkDelta, OpenAiFinishReason } from '../translate/openai-chat-types.js';
import { dataEvent, type SseEvent, SseReader } from '../translate/sse-framing.js';
import type { StreamTranslator } from '../translate/stream-translator.js';
import { toOpenAiChatUsage } from '../usage.js';
import { cohereFinishToOpenAi } from './chat.js';
import { fromCohereUsage } from './usage.js';

// Cohere v2 chat stream -> OpenAI chat.completion.chunk events. Cohere names each event (`event:`
// and the payload's `type`): message-start, content-start/-delta/-end (text or thinking),
// tool-plan-delta, tool-call-start/-delta/-end, citation-*, message-end with the finish reason and
// usage. Chunk boundaries anywhere change nothing (the SSE reader reassembles events).

const EMPTY = Buffer.alloc(0);
const DONE = 'data: [DONE]\n\n';

export interface CohereToOpenAiStreamOptions {
  model: string;
  includeUsage?: boolean;
  created?: number;
}

export class CohereToOpenAiStream implements StreamTranslator {
  private readonly reader = new SseReader();
  private readonly includeUsage: boolean;
  private readonly created: number;
  private readonly model: string;
  private id = 'chatcmpl-';
  private started = false;
  private toolIndex = -1;
  private usageValue: Usage | null = null;
  private readonly texts: string[] = [];

  completed = false;
  error: UpstreamErrorFields | null = null;

  constructor(options: CohereToOpenAiStreamOptions) {
    this.model = options.model;
    this.includeUsage = options.includeUsage ?? false;
    this.created = options.created ?? Math.floor(Date.now() / 1000);
  }

  get usage(): Usage | null {
    return this.usageValue;
  }

  completionText(): string {
    return this.texts.join('');
  }

  write(chunk: Buffer): Buffer {
    const out: string[] = [];
    for (const event of this.reader.push(chunk)) this.handle(event, out);
    return out.length ? Buffer.from(out.join('')) : EMPTY;
  }

  /** Cohere always closes with `message-end` and its usage, so no fallback usage is written. */
  end(): Buffer {
    const out: string[] = [];
    for (const event of this.reader.end()) this.handle(event, out);
    return out.length ? Buffer.from(out.join('')) : EMPTY;
  }

  errorEvent(error: { status: number; message: string; type?: string }): Buffer {
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

  private usageChunk(usage: Usage): string {
    return dataEvent({
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [],
      usage: toOpenAiChatUsage(usage),
    });
  }

  private start(out: string[]): void {
    if (this.started) return;
    this.started = true;
    out.push(this.chunk({ role: 'assistant', content: '' }, null));
  }

  private handle(event: SseEvent, out: string[]): void {
    const payload = parseJson(event.data.toString('utf8'));
    if (!isRecord(payload)) return;
    const type = asString(payload.type) ?? event.event;
    const message = asRecord(asRecord(payload.delta)?.message);
    switch (type) {
      case 'message-start':
        this.id = `chatcmpl-${asString(payload.id) ?? ''}`;
        this.start(out);
        return;
      case 'content-delta': {
        this.start(out);
        const content = asRecord(message?.content);
        const text = asString(content?.text);
        const thinking = asString(content?.thinking);
        if (text) {
          this.texts.push(text);
          out.push(this.chunk({ content: text }, null));
        } else if (thinking) {
          this.texts.push(thinking);
          out.push(this.chunk({ reasoning_content: thinking }, null));
        }
        return;
      }
      case 'tool-plan-delta': {
        this.start(out);
        const plan = asString(message?.tool_plan);
        if (plan) {
          this.texts.push(plan);
          out.push(this.chunk({ reasoning_content: plan }, null));
        }
        return;
      }
      case 'tool-call-start': {
        this.start(out);
        const call = asRecord(message?.tool_calls) ?? {};
        const fn = asRecord(call.function) ?? {};
        const name = asString(fn.name) ?? '';
        const args = asString(fn.arguments) ?? '';
        this.texts.push(name, args);
        this.toolIndex = asNumber(payload.index) ?? this.toolIndex + 1;
        out.push(
          this.chunk(
            {
              tool_calls: [
                {
                  index: this.toolIndex,
                  id: asString(call.id) ?? '',
                  type: 'function',
                  function: { name, arguments: args },
                },
              ],
            },
            null,
          ),
        );
        return;
      }
      case 'tool-call-delta': {
        const args = asString(asRecord(asRecord(message?.tool_calls)?.function)?.arguments);
        if (args) {
          this.texts.push(args);
          out.push(
            this.chunk(
              {
                tool_calls: [
                  {
                    index: asNumber(payload.index) ?? Math.max(0, this.toolIndex),
                    function: { arguments: args },
                  },
                ],
              },
              null,
            ),
          );
        }
        return;
      }
      case 'message-end': {
        this.start(out);
        const delta = asRecord(payload.delta) ?? {};
        const reason = asString(delta.finish_reason);
        this.usageValue = fromCohereUsage(delta.usage) ?? this.usageValue;
        if (reason === 'ERROR') {
          this.error = {
            message: asString(asRecord(delta.error)?.message) ?? 'Cohere stream error',
            type: 'upstream_error',
            code: null,
            param: null,
          };
          return;
        }
        out.push(this.chunk({}, cohereFinishToOpenAi(reason)));
        if (this.includeUsage && this.usageValue) out.push(this.usageChunk(this.usageValue));
        out.push(DONE);
        this.completed = true;
        return;
      }
      default:
        if (isErrorPayload(payload)) {
          this.error = {
            message: asString(payload.message) ?? 'Cohere stream error',
            type: 'upstream_error',
            code: null,
            param: null,
          };
        }
        // content-start/-end, tool-call-end, citation events: nothing for an OpenAI client.
        return;
    }
  }
}

function isErrorPayload(p: JsonRecord): boolean {
  return p.type === undefined && typeof p.message === 'string';
}
