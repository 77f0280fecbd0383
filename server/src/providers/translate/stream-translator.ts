import type { Usage } from '../../billing/usage.js';
import type { UpstreamErrorFields } from '../openai/errors.js';

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
