import type { Usage } from '../../billing/pricing/usage.js';
import type { UpstreamErrorFields } from '../openai/errors.js';
import { CompletionTextSample } from '../text-sample.js';
import { type SseEvent, SseReader } from './sse-framing.js';

/**
 * Turns an upstream SSE stream of one protocol into the client's SSE stream of another, as bytes
 * arrive: any chunking in gives the same bytes out. It reads the upstream's usage on the way, so
 * the relay bills from it exactly as from a passthrough meter.
 */
export interface StreamTranslator {
  /** Upstream bytes in; the client's bytes they complete (possibly empty). */
  write(chunk: Buffer): Buffer;
  /**
   * The upstream ended. Returns the client's last bytes: the closing events when the upstream
   * finished its answer, nothing when it broke off (then the relay sends `errorEvent`). Usage the
   * upstream never reported can be passed as `fallbackUsage` (the relay's own count) for the
   * closing events of a protocol that reports usage at the end.
   */
  end(fallbackUsage?: Usage | null): Buffer;
  /** An error event in the client's protocol, to end a stream the upstream broke off. */
  errorEvent(error: { status: number; message: string; type?: string }): Buffer;
  /** Usage the upstream reported, normalised; null when it reported none. */
  readonly usage: Usage | null;
  /** An error the upstream sent inside the stream. */
  readonly error: UpstreamErrorFields | null;
  /** The upstream finished its answer (a finish reason, `message_stop`, `[DONE]`). */
  readonly completed: boolean;
  /** The generated text, for counting when the upstream reported no usage. */
  completionText(): string;
  /** A long text is kept as a sample: its count times this estimates the whole. */
  completionTextRatio?(): number;
}

const EMPTY = Buffer.alloc(0);

/**
 * What every translator shares: the SSE reader its upstream bytes go through, the generated-text
 * sample, and the write/end loop that hands each whole event to `handle` and joins what it emits.
 */
export abstract class SseStreamTranslator implements StreamTranslator {
  private readonly reader = new SseReader();
  protected readonly texts = new CompletionTextSample();

  completed = false;
  error: UpstreamErrorFields | null = null;

  abstract get usage(): Usage | null;
  abstract errorEvent(error: { status: number; message: string; type?: string }): Buffer;
  /** One whole upstream event; what the client gets of it is pushed onto `out`. */
  protected abstract handle(event: SseEvent, out: string[]): void;
  /** The upstream ended after its last events: closing events, if the protocol wants any. */
  protected atEnd(_out: string[], _fallbackUsage: Usage | null): void {}

  completionText(): string {
    return this.texts.text();
  }

  completionTextRatio(): number {
    return this.texts.ratio();
  }

  write(chunk: Buffer): Buffer {
    const out: string[] = [];
    for (const event of this.reader.push(chunk)) this.handle(event, out);
    return joined(out);
  }

  end(fallbackUsage?: Usage | null): Buffer {
    const out: string[] = [];
    for (const event of this.reader.end()) this.handle(event, out);
    this.atEnd(out, fallbackUsage ?? null);
    return joined(out);
  }
}

function joined(out: string[]): Buffer {
  return out.length ? Buffer.from(out.join('')) : EMPTY;
}
