/** Receives a streamed body chunk by chunk. */
export interface BodySink {
  data(chunk: Buffer): void;
}

/**
 * The body of an upstream reply, read once: all of it (`whole`) or chunk by chunk (`each`).
 * Chunks that arrive before a reader is attached are kept for it.
 */
export interface UpstreamBody {
  /** Every byte; beyond `max` bytes the rest is read and dropped (error bodies). */
  whole(max?: number): Promise<Buffer>;
  /** Hands each chunk to `sink`; resolves when the body ends or `cancel` is called, rejects when it breaks. */
  each(sink: BodySink): Promise<void>;
  /** Holds the upstream (TCP back-pressure) until `resume`: the client reads slower than the upstream writes. */
  pause(): void;
  resume(): void;
  /** Stops reading and drops the connection; a pending `each` resolves. */
  cancel(): void;
}
