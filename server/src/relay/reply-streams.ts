import type { Usage } from '../billing/usage.js';
import { AnthropicStreamMeter } from '../providers/anthropic/stream-meter.js';
import { GeminiStreamMeter } from '../providers/gemini/stream-meter.js';
import { OpenAiStreamMeter } from '../providers/openai/stream-meter.js';
import { type SseEvent, SseReader } from '../providers/translate/sse-framing.js';
import type { StreamTranslator } from '../providers/translate/stream-translator.js';
import type { StreamReframer } from './channel-transports.js';
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

/** OpenAI SSE through unchanged, but for the usage chunk the gateway asked for on its own. */
export function openAiPassthrough(clientWantsUsageChunk: boolean): ReplyStream {
  const meter = new OpenAiStreamMeter({ dropUsageChunk: !clientWantsUsageChunk });
  return {
    write: (chunk) => meter.write(chunk),
    end: () => meter.end(),
    brokenEvent: () => brokenStreamEvent('openai'),
    wantsFallbackUsage: false,
    get usage() {
      return meter.usage;
    },
    completionText: () => meter.completionText(),
  };
}

/** Responses API events through unchanged (usage comes in `response.completed`). */
export function responsesPassthrough(): ReplyStream {
  const meter = new OpenAiStreamMeter();
  return {
    write: (chunk) => meter.write(chunk),
    end: () => meter.end(),
    brokenEvent: () => brokenStreamEvent('responses'),
    wantsFallbackUsage: false,
    get usage() {
      return meter.usage;
    },
    completionText: () => meter.completionText(),
  };
}

export function anthropicPassthrough(): ReplyStream {
  const meter = new AnthropicStreamMeter();
  return {
    write: (chunk) => meter.write(chunk),
    end: () => {
      meter.end();
      return EMPTY;
    },
    brokenEvent: () => brokenStreamEvent('anthropic'),
    wantsFallbackUsage: false,
    get usage() {
      return meter.usage;
    },
    completionText: () => meter.completionText(),
  };
}

export function geminiPassthrough(): ReplyStream {
  const meter = new GeminiStreamMeter();
  return {
    write: (chunk) => meter.write(chunk),
    end: () => {
      meter.end();
      return EMPTY;
    },
    brokenEvent: () => brokenStreamEvent('gemini'),
    wantsFallbackUsage: false,
    get usage() {
      return meter.usage;
    },
    completionText: () => meter.completionText(),
  };
}

/**
 * Translators in a row: the first reads the upstream (and its usage), the last writes the
 * client's dialect. With two, the middle format is OpenAI chat chunks.
 */
export function translatedStream(first: StreamTranslator, second?: StreamTranslator): ReplyStream {
  return {
    write(chunk) {
      const mid = first.write(chunk);
      return second ? (mid.length ? second.write(mid) : EMPTY) : mid;
    },
    end(fallback) {
      const mid = first.end(fallback);
      if (!second) return mid;
      const a = mid.length ? second.write(mid) : EMPTY;
      const b = second.end(first.usage ?? fallback);
      return a.length && b.length ? Buffer.concat([a, b]) : a.length ? a : b;
    },
    brokenEvent() {
      const last = second ?? first;
      return last.errorEvent({ status: 502, message: 'The upstream stream ended unexpectedly' });
    },
    wantsFallbackUsage: true,
    get usage() {
      return first.usage;
    },
    completionText: () => first.completionText(),
  };
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
export function reframed(inner: ReplyStream, reframer: StreamReframer): ReplyStream {
  return {
    write: (chunk) => {
      const sse = reframer.write(chunk);
      return sse.length ? inner.write(sse) : EMPTY;
    },
    end(fallback) {
      const sse = reframer.end();
      const a = sse.length ? joined(inner.write(sse)) : EMPTY;
      const b = inner.end(fallback);
      return a.length && b.length ? Buffer.concat([a, b]) : a.length ? a : b;
    },
    brokenEvent: () => inner.brokenEvent(),
    get wantsFallbackUsage() {
      return inner.wantsFallbackUsage;
    },
    get usage() {
      return inner.usage;
    },
    completionText: () => inner.completionText(),
  };
}
