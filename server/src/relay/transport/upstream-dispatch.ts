import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { type ContentDecoding, DecodedBody } from './reply-decoding.js';
import type { BodySink, UpstreamBody } from './upstream-body.js';

// The relay's lean forward path to the upstream: undici's dispatch handler
// API instead of `request()`, so a reply's bytes reach the pipeline as plain callbacks, with no
// Readable stream, no async iterator and no promise per chunk between the socket and the client.

export interface UpstreamRequestOptions {
  origin: string;
  path: string;
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: Buffer | string | Readable | null;
  /** This call's limits (a channel's settings); the dispatcher's own where left out. */
  timeouts?: UpstreamTimeouts;
  /** A PEM CA certificate trusted for this call besides Node's bundled roots (a channel behind a private CA). */
  ca?: string;
  /** The channel's proxy URL: such a call goes through undici (outbound/outbound-agent.ts). */
  proxy?: string;
}

/** How long a call waits, in ms: for the connection, for the reply's head, between two pieces of its body. */
export interface UpstreamTimeouts {
  connectMs?: number;
  firstByteMs?: number;
  idleMs?: number;
}

/** The status and headers of an upstream reply, its body still arriving. */
export interface UpstreamReply {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
}

export type { BodySink, UpstreamBody } from './upstream-body.js';

/** What forwards a request: undici's dispatchers, or the relay's own client (http1-upstream.ts). */
export interface UpstreamDispatcher {
  dispatch(opts: UpstreamRequestOptions, handler: Dispatcher.DispatchHandler): boolean;
}

/** What a channel sets for its connections: its limits, the private CA it trusts, its proxy. */
export interface ConnectionSettings {
  timeouts?: UpstreamTimeouts;
  ca?: string;
  proxy?: string;
}

/**
 * Cancels one call while it waits for its reply or reads its whole body: the client went away.
 * One listener at a time (a call's attempts run one after another), so no EventTarget per call.
 */
export class CallCancel {
  reason: Error | undefined;
  private listener: ((reason: Error) => void) | undefined;

  cancel(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    const listener = this.listener;
    this.listener = undefined;
    listener?.(reason);
  }
  watch(listener: (reason: Error) => void): void {
    this.listener = listener;
  }
  unwatch(listener: (reason: Error) => void): void {
    if (this.listener === listener) this.listener = undefined;
  }
}

/**
 * Dispatches one request; resolves with the reply once its headers are in, rejects on transport
 * errors before that. `cancel` stops the call until its body has been read whole or handed to a
 * reader chunk by chunk (a stream's reader follows the client itself).
 */
export function sendUpstream(
  dispatcher: UpstreamDispatcher,
  req: UpstreamRequestOptions,
  cancel?: CallCancel,
  settings?: ConnectionSettings,
): Promise<UpstreamReply> {
  return new Promise((resolve, reject) => {
    if (cancel?.reason) {
      reject(cancel.reason);
      return;
    }
    const handler = new ReplyHandler(resolve, reject, cancel);
    const opts: UpstreamRequestOptions & { headersTimeout?: number; bodyTimeout?: number } = {
      origin: req.origin,
      path: req.path,
      method: req.method,
      headers: req.headers,
      body: req.body ?? null,
    };
    if (settings) {
      const limits = settings.timeouts;
      if (limits) {
        opts.timeouts = limits;
        // The same limits in undici's names, for a call the relay's client hands to undici.
        if (limits.firstByteMs !== undefined) opts.headersTimeout = limits.firstByteMs;
        if (limits.idleMs !== undefined) opts.bodyTimeout = limits.idleMs;
      }
      if (settings.ca !== undefined) opts.ca = settings.ca;
      if (settings.proxy) opts.proxy = settings.proxy;
    }
    dispatcher.dispatch(opts, handler);
  });
}

/**
 * The reply with its body decoded when the upstream compressed it (gzip, deflate, br) although
 * the gateway asked for none: the content-encoding and content-length headers go, since they
 * describe the compressed bytes. An identity reply is returned as it is, with nothing added per chunk.
 * Throws `UndecodableReply` for an encoding the gateway cannot read. A decoded body read whole
 * fails past `wholeLimit` bytes (reply-decoding.ts).
 */
export function decodedReply(reply: UpstreamReply, wholeLimit?: number): UpstreamReply {
  const header = reply.headers['content-encoding'];
  if (header === undefined) return reply;
  const codings = parseCodings(String(header));
  if (codings.length === 0) return reply;
  const headers = { ...reply.headers };
  delete headers['content-encoding'];
  delete headers['content-length'];
  return { statusCode: reply.statusCode, headers, body: new DecodedBody(reply.body, codings, wholeLimit) };
}

/** An encoding no decoder exists for: the upstream's fault, answered as an upstream error. */
export class UndecodableReply extends Error {
  readonly code = 'UPSTREAM_UNKNOWN_ENCODING';
  constructor(readonly encoding: string) {
    super(`The upstream answered with content-encoding "${encoding}", which the gateway cannot decode`);
    this.name = 'UndecodableReply';
  }
}

/** The codings in the order they were applied, identity left out. */
function parseCodings(header: string): ContentDecoding[] {
  const out: ContentDecoding[] = [];
  for (const part of header.split(',')) {
    const coding = part.trim().toLowerCase();
    if (coding === '' || coding === 'identity') continue;
    if (coding === 'gzip' || coding === 'x-gzip') out.push('gzip');
    else if (coding === 'deflate') out.push('deflate');
    else if (coding === 'br') out.push('br');
    else throw new UndecodableReply(coding);
  }
  return out;
}

/** A body already read whole: read again as it is. */
export class ReadBody implements UpstreamBody {
  constructor(private readonly bytes: Buffer) {}
  whole(max = Number.POSITIVE_INFINITY): Promise<Buffer> {
    return Promise.resolve(this.bytes.length > max ? this.bytes.subarray(0, max) : this.bytes);
  }
  each(sink: BodySink): Promise<void> {
    try {
      if (this.bytes.length > 0) sink.data(this.bytes);
    } catch (err) {
      return Promise.reject(err);
    }
    return Promise.resolve();
  }
  pause(): void {}
  resume(): void {}
  cancel(): void {}
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

  private readonly aborted: ((reason: Error) => void) | undefined;

  constructor(
    private readonly onReply: (reply: UpstreamReply) => void,
    private readonly onFailure: (err: Error) => void,
    private cancelled: CallCancel | undefined,
  ) {
    if (cancelled) {
      // The client left while the call waited for its reply or its whole body.
      this.aborted = (reason) => {
        this.cancelled = undefined;
        if (this.done) return;
        this.abortedWith = reason;
        this.controller?.abort(reason);
        if (!this.started) this.onFailure(reason);
        else this.fail(reason);
      };
      cancelled.watch(this.aborted);
    }
  }

  /** Why the call was cancelled before the dispatcher started it, if it was. */
  private abortedWith: Error | undefined;

  private unwatch(): void {
    const watched = this.cancelled;
    if (!watched) return;
    this.cancelled = undefined;
    watched.unwatch(this.aborted as (reason: Error) => void);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Cancelled while a dispatcher (undici's) still held the call in its queue.
    if (this.abortedWith) controller.abort(this.abortedWith);
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
    this.unwatch();
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.unwatch();
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
    // A reader of the body follows the client itself (it reads on for billing after it left).
    this.unwatch();
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
