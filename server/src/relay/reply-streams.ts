import type { Usage } from '../billing/pricing/usage.js';
import { AnthropicStreamMeter } from '../providers/anthropic/stream-meter.js';
import { GeminiStreamMeter } from '../providers/gemini/stream-meter.js';
import { OpenAiStreamMeter } from '../providers/openai/stream-meter.js';
import { type SseEvent, SseReader } from '../providers/translate/sse-framing.js';
import type { StreamTranslator } from '../providers/translate/stream-translator.js';
import type { StreamReframer } from './channels/channel-transports.js';
import { brokenStreamEvent, type InboundDialect } from './dialect-errors.js';
import type { ReplyStream } from './relay-pipeline.js';

// The ways a streamed reply reaches the client: passed through (same dialect on both sides, bytes
// unchanged, usage read by the dialect's meter) or translated (one translator, or two through the
// OpenAI chat pivot).

const EMPTY = Buffer.alloc(0);

/** A reply stream's output as one Buffer, for a reader that needs it whole. */
function joined(bytes: Buffer | Buffer[]): Buffer {
  return Array.isArray(bytes) ? Buffer.concat(bytes) : bytes;
}

/** Whether an OpenAI chat/completions body asks for the usage chunk. */
export function clientWantsUsage(body: Record<string, unknown>): boolean {
  const o = body.stream_options;
  return typeof o === 'object' && o !== null && (o as Record<string, unknown>).include_usage === true;
}

// The reply streams are classes, not object literals with a `usage` getter: V8 puts such a literal
// in dictionary mode, its getter in an accessor pair of its own, which kept every stream and its
// meter alive until promoted to the old generation: heap growth that ended in full collections.

/** What reads a passthrough stream's usage: the dialect's meter. */
interface PassthroughMeter {
  /** The client's bytes for an upstream chunk (the OpenAI meter may leave out its usage chunk). */
  write(chunk: Buffer): Buffer | Buffer[];
  /** The upstream ended: the bytes the meter held back (only the OpenAI meter holds any). */
  end(): Buffer;
  readonly usage: Usage | null;
  completionText(): string;
  completionTextRatio(): number;
}

/** A stream whose client and channel speak the same dialect: bytes through, usage read on the way. */
class MeteredPassthrough implements ReplyStream {
  readonly wantsFallbackUsage = false;

  constructor(
    private readonly meter: PassthroughMeter,
    private readonly dialect: InboundDialect,
  ) {}

  get usage(): Usage | null {
    return this.meter.usage;
  }

  write(chunk: Buffer): Buffer | Buffer[] {
    return this.meter.write(chunk);
  }

  end(): Buffer {
    return this.meter.end();
  }

  brokenEvent(): Buffer {
    return brokenStreamEvent(this.dialect);
  }

  completionText(): string {
    return this.meter.completionText();
  }

  completionTextRatio(): number {
    return this.meter.completionTextRatio();
  }
}

/** OpenAI SSE through unchanged, but for the usage chunk the gateway asked for on its own. */
export function openAiPassthrough(clientWantsUsageChunk: boolean): ReplyStream {
  return new MeteredPassthrough(new OpenAiStreamMeter({ dropUsageChunk: !clientWantsUsageChunk }), 'openai');
}

/** Responses API events through unchanged (usage comes in `response.completed`). */
export function responsesPassthrough(): ReplyStream {
  return new MeteredPassthrough(new OpenAiStreamMeter(), 'responses');
}

export function anthropicPassthrough(): ReplyStream {
  return new MeteredPassthrough(new AnthropicStreamMeter(), 'anthropic');
}

export function geminiPassthrough(): ReplyStream {
  return new MeteredPassthrough(new GeminiStreamMeter(), 'gemini');
}

/**
 * Translators in a row: the first reads the upstream (and its usage), the last writes the
 * client's dialect. With two, the middle format is OpenAI chat chunks.
 */
class TranslatedStream implements ReplyStream {
  readonly wantsFallbackUsage = true;

  constructor(
    private readonly first: StreamTranslator,
    private readonly second: StreamTranslator | undefined,
  ) {}

  get usage(): Usage | null {
    return this.first.usage;
  }

  write(chunk: Buffer): Buffer {
    const mid = this.first.write(chunk);
    return this.second ? (mid.length ? this.second.write(mid) : EMPTY) : mid;
  }

  end(fallback: Usage | null): Buffer {
    const mid = this.first.end(fallback);
    if (!this.second) return mid;
    const a = mid.length ? this.second.write(mid) : EMPTY;
    const b = this.second.end(this.first.usage ?? fallback);
    return a.length && b.length ? Buffer.concat([a, b]) : a.length ? a : b;
  }

  brokenEvent(): Buffer {
    const last = this.second ?? this.first;
    return last.errorEvent({ status: 502, message: 'The upstream stream ended unexpectedly' });
  }

  completionText(): string {
    return this.first.completionText();
  }

  completionTextRatio(): number {
    return this.first.completionTextRatio?.() ?? 1;
  }
}

export function translatedStream(first: StreamTranslator, second?: StreamTranslator): ReplyStream {
  return new TranslatedStream(first, second);
}

/**
 * Gemini's streamGenerateContent without `alt=sse` answers one JSON array whose elements arrive as
 * they are generated. Upstreams are always asked for SSE; this re-frames the client's events.
 */
export class GeminiArrayFraming implements ReplyStream {
  private readonly reader = new SseReader();
  private opened = false;

  constructor(private readonly inner: ReplyStream) {}

  get wantsFallbackUsage() {
    return this.inner.wantsFallbackUsage;
  }

  get usage(): Usage | null {
    return this.inner.usage;
  }

  completionText(): string {
    return this.inner.completionText();
  }

  completionTextRatio(): number {
    return this.inner.completionTextRatio?.() ?? 1;
  }

  write(chunk: Buffer): Buffer {
    return this.frame(this.reader.push(joined(this.inner.write(chunk))));
  }

  end(fallback: Usage | null): Buffer {
    const events = [...this.reader.push(this.inner.end(fallback)), ...this.reader.end()];
    const body = this.frame(events);
    return Buffer.concat([body, Buffer.from(this.opened ? '\n]' : '[]')]);
  }

  brokenEvent(): Buffer {
    const events = this.reader.push(this.inner.brokenEvent());
    return Buffer.concat([this.frame(events), Buffer.from('\n]')]);
  }

  private frame(events: SseEvent[]): Buffer {
    if (events.length === 0) return EMPTY;
    const parts: string[] = [];
    for (const e of events) {
      parts.push(this.opened ? ',\r\n' : '[');
      this.opened = true;
      parts.push(e.data.toString('utf8'));
    }
    return Buffer.from(parts.join(''));
  }
}

/** The passthrough stream for a dialect whose client and channel speak it both. */
export function passthroughFor(dialect: InboundDialect, body: Record<string, unknown>): ReplyStream {
  switch (dialect) {
    case 'anthropic':
      return anthropicPassthrough();
    case 'gemini':
      return geminiPassthrough();
    case 'responses':
      return responsesPassthrough();
    default:
      return openAiPassthrough(clientWantsUsage(body));
  }
}

/** A reply stream read through a transport's reframer (its upstream framing is not SSE). */
class ReframedStream implements ReplyStream {
  constructor(
    private readonly inner: ReplyStream,
    private readonly reframer: StreamReframer,
  ) {}

  get wantsFallbackUsage(): boolean {
    return this.inner.wantsFallbackUsage;
  }

  get usage(): Usage | null {
    return this.inner.usage;
  }

  write(chunk: Buffer): Buffer | Buffer[] {
    const sse = this.reframer.write(chunk);
    return sse.length ? this.inner.write(sse) : EMPTY;
  }

  end(fallback: Usage | null): Buffer {
    const sse = this.reframer.end();
    const a = sse.length ? joined(this.inner.write(sse)) : EMPTY;
    const b = this.inner.end(fallback);
    return a.length && b.length ? Buffer.concat([a, b]) : a.length ? a : b;
  }

  brokenEvent(): Buffer {
    return this.inner.brokenEvent();
  }

  completionText(): string {
    return this.inner.completionText();
  }

  completionTextRatio(): number {
    return this.inner.completionTextRatio?.() ?? 1;
  }
}

export function reframed(inner: ReplyStream, reframer: StreamReframer): ReplyStream {
  return new ReframedStream(inner, reframer);
}
