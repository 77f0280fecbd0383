import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

// The relay's lean forward path to the upstream (design §4 'Speed'): undici's dispatch handler
// API instead of `request()`, so a reply's bytes reach the pipeline as plain callbacks, with no
// Readable stream, no async iterator and no promise per chunk between the socket and the client.

export interface UpstreamRequestOptions {
  origin: string;
  path: string;
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: Buffer | string | Readable | null;
}

/** The status and headers of an upstream reply, its body still arriving. */
export interface UpstreamReply {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
}

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

/** What forwards a request: undici's dispatchers, or the relay's own client (http1-upstream.ts). */
export interface UpstreamDispatcher {
  dispatch(opts: UpstreamRequestOptions, handler: Dispatcher.DispatchHandler): boolean;
}

/** Dispatches one request; resolves with the reply once its headers are in, rejects on transport errors before that. */
export function sendUpstream(
  dispatcher: UpstreamDispatcher,
  req: UpstreamRequestOptions,
): Promise<UpstreamReply> {
  return new Promise((resolve, reject) => {
    const handler = new ReplyHandler(resolve, reject);
    dispatcher.dispatch(
      {
        origin: req.origin,
        path: req.path,
        method: req.method,
        headers: req.headers,
        body: req.body ?? null,
      },
      handler,
    );
  });
}

class ReplyHandler implements Dispatcher.DispatchHandler, UpstreamBody {
  private controller: Dispatcher.DispatchController | undefined;
  private started = false;
  private done = false;
  private failure: Error | undefined;
  /** Chunks waiting for a reader, or all chunks for `whole`. */
  private chunks: Buffer[] = [];
  private size = 0;
  private max = Number.POSITIVE_INFINITY;
  private sink: BodySink | undefined;
  private settle: { resolve: () => void; reject: (err: Error) => void } | undefined;
  private wholeSettle: { resolve: (b: Buffer) => void; reject: (err: Error) => void } | undefined;

  constructor(
    private readonly onReply: (reply: UpstreamReply) => void,
    private readonly onFailure: (err: Error) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    // 1xx informational replies are not the reply.
    if (statusCode < 200) return;
    this.controller = controller;
    this.started = true;
    this.onReply({ statusCode, headers, body: this });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.done) return;
    if (this.sink) {
      try {
        this.sink.data(chunk);
      } catch (err) {
        this.fail(err as Error);
        this.controller?.abort(err as Error);
      }
      return;
    }
    if (this.size < this.max) {
      this.chunks.push(this.size + chunk.length > this.max ? chunk.subarray(0, this.max - this.size) : chunk);
    }
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    this.done = true;
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (!this.started) {
      this.onFailure(err);
      return;
    }
    this.fail(err);
  }

  whole(max = Number.POSITIVE_INFINITY): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    this.max = max;
    if (this.size > max) this.trimTo(max);
    if (this.done) return Promise.resolve(this.joined());
    return new Promise((resolve, reject) => {
      this.wholeSettle = { resolve, reject };
    });
  }

  each(sink: BodySink): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    this.sink = sink;
    const waiting = this.chunks;
    this.chunks = [];
    try {
      for (const chunk of waiting) sink.data(chunk);
    } catch (err) {
      this.controller?.abort(err as Error);
      return Promise.reject(err);
    }
    if (this.done) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  pause(): void {
    if (!this.done) this.controller?.pause();
  }

  resume(): void {
    if (!this.done) this.controller?.resume();
  }

  cancel(): void {
    if (this.done) return;
    this.done = true;
    this.sink = undefined;
    this.controller?.abort(new CancelledRead());
    this.finish();
  }

  private trimTo(max: number): void {
    const kept: Buffer[] = [];
    let size = 0;
    for (const c of this.chunks) {
      if (size >= max) break;
      kept.push(size + c.length > max ? c.subarray(0, max - size) : c);
      size += c.length;
    }
    this.chunks = kept;
  }

  private joined(): Buffer {
    const chunks = this.chunks;
    this.chunks = [];
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  }

  private finish(): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.resolve();
    const whole = this.wholeSettle;
    this.wholeSettle = undefined;
    whole?.resolve(this.joined());
  }

  private fail(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.failure = err;
    this.sink = undefined;
    const settle = this.settle;
    this.settle = undefined;
    settle?.reject(err);
    const whole = this.wholeSettle;
    this.wholeSettle = undefined;
    whole?.reject(err);
  }
}

/** The reason given to undici when the gateway stops reading a reply itself. */
class CancelledRead extends Error {
  constructor() {
    super('the gateway stopped reading the upstream reply');
  }
}
