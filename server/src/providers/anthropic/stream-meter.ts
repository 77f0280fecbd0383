import type { Usage } from '../../billing/pricing/usage.js';
import type { UpstreamErrorFields } from '../openai/errors.js';
import { CompletionTextSample } from '../text-sample.js';
import { asRecord, asString, isRecord, type JsonRecord, parseJson } from '../translate/json-reading.js';
import { type SseEvent, SseReader } from '../translate/sse-framing.js';
import { anthropicErrorFromObject } from './errors.js';
import { fromAnthropicUsage, mergeAnthropicUsage } from './usage.js';

// Reads an Anthropic Messages stream as its bytes pass to the client unchanged (same protocol on
// both sides). Every event names itself in its `event:` line, so only the few that matter are
// parsed: `message_start` (id, model, prompt usage), `message_delta` (stop reason, cumulative
// usage) and `error`. Content deltas are kept as raw bytes, and decoded only when the text must be
// counted because no usage arrived.

const DEFAULT_MAX_RETAINED_BYTES = 1024 * 1024;

export interface AnthropicStreamMeterOptions {
  maxRetainedBytes?: number;
}

const NOTHING_HELD = Buffer.alloc(0);

/** The generated text of a content event: text, thinking, tool names and tool input fragments. */
export function anthropicEventText(payload: unknown, out: string[]): void {
  if (!isRecord(payload)) return;
  const delta = asRecord(payload.delta);
  if (delta) {
    for (const k of ['text', 'thinking', 'partial_json'] as const) {
      const s = asString(delta[k]);
      if (s) out.push(s);
    }
  }
  const block = asRecord(payload.content_block);
  if (block) {
    for (const k of ['name', 'text', 'thinking'] as const) {
      const s = asString(block[k]);
      if (s) out.push(s);
    }
  }
}

export class AnthropicStreamMeter {
  private readonly reader = new SseReader();
  private readonly maxRetained: number;
  private usageFields: JsonRecord | null = null;
  private retained: Buffer[] = [];
  private retainedBytes = 0;
  private readonly texts = new CompletionTextSample();

  /** `message_stop` arrived: the upstream finished the message. */
  done = false;
  /** An `error` event arrived mid-stream. */
  error: UpstreamErrorFields | null = null;
  events = 0;
  messageId = '';
  model = '';
  stopReason: string | null = null;

  constructor(options: AnthropicStreamMeterOptions = {}) {
    this.maxRetained = options.maxRetainedBytes ?? DEFAULT_MAX_RETAINED_BYTES;
  }

  /** Usage from `message_start` merged with the last `message_delta`, or null when none came. */
  get usage(): Usage | null {
    return this.usageFields ? fromAnthropicUsage(this.usageFields) : null;
  }

  /** The generated text, for counting when the stream carried no usage. */
  completionText(): string {
    this.reduceRetained();
    return this.texts.text();
  }

  /** How much a count of `completionText()` is scaled by: only a sample of a long text is kept. */
  completionTextRatio(): number {
    this.reduceRetained();
    return this.texts.ratio();
  }

  /** Reads a chunk; returns it as it is (the meter never changes a byte). */
  write(chunk: Buffer): Buffer {
    for (const event of this.reader.push(chunk)) this.read(event);
    return chunk;
  }

  /** The upstream ended: reads an unterminated last event. Returns the bytes held back: none. */
  end(): Buffer {
    for (const event of this.reader.end()) this.read(event);
    return NOTHING_HELD;
  }

  private read(event: SseEvent): void {
    this.events++;
    let name = event.event;
    let payload: unknown;
    if (!name) {
      // Only relays that drop the `event:` lines get here: the payload's `type` says the same.
      payload = parseJson(event.data.toString('utf8'));
      name = asString(asRecord(payload)?.type) ?? '';
    }
    switch (name) {
      case 'content_block_start':
      case 'content_block_delta':
        this.retain(event.data);
        return;
      case 'message_start': {
        const message = asRecord(asRecord(payload ?? parseJson(event.data.toString('utf8')))?.message);
        if (!message) return;
        this.messageId = asString(message.id) ?? '';
        this.model = asString(message.model) ?? '';
        this.usageFields = mergeAnthropicUsage(this.usageFields ?? {}, message.usage);
        return;
      }
      case 'message_delta': {
        const p = asRecord(payload ?? parseJson(event.data.toString('utf8')));
        if (!p) return;
        this.stopReason = asString(asRecord(p.delta)?.stop_reason) ?? this.stopReason;
        this.usageFields = mergeAnthropicUsage(this.usageFields ?? {}, p.usage);
        return;
      }
      case 'message_stop':
        this.done = true;
        return;
      case 'error': {
        const p = payload ?? parseJson(event.data.toString('utf8'));
        this.error = anthropicErrorFromObject(p) ?? {
          message: event.data.toString('utf8').slice(0, 500) || 'upstream stream error',
          type: 'api_error',
          code: null,
          param: null,
        };
        return;
      }
      default:
        return;
    }
  }

  private retain(data: Buffer): void {
    this.retained.push(data);
    this.retainedBytes += data.length;
    if (this.retainedBytes > this.maxRetained) this.reduceRetained();
  }

  private reduceRetained(): void {
    for (const data of this.retained) anthropicEventText(parseJson(data.toString('utf8')), this.texts.pieces);
    this.retained = [];
    this.retainedBytes = 0;
    this.texts.settle();
  }
}
