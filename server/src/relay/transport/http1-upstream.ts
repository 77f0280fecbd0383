import type { IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import type { Dispatcher } from 'undici';
import { HTTP_TOKEN } from '../../http/header-syntax.js';
import type { AddressPolicy } from '../../outbound/address-policy.js';
import { Http1ReplyParser, type ReplyEvents } from './http1-reply-parser.js';
import type { TurnEnd } from './turn-end.js';
import type { UpstreamDispatcher, UpstreamRequestOptions, UpstreamTimeouts } from './upstream-dispatch.js';

// The relay's own HTTP/1.1 client for the calls it forwards, for speed. A forwarded call is one
// buffered request and one reply whose bytes go on to the client, so the client is a socket per
// call in flight, kept alive per origin, a request written in one system call (at the end of the
// event-loop turn, turn-end.ts) and a reply framed by http1-reply-parser.ts. Undici's general
// client (request queue, pipelining, wasm parser, per-request timers) costs more CPU a call for
// features these calls do not use. Everything else (a streamed upload, a protocol other than http
// and https) goes to undici.

export interface Http1UpstreamOptions {
  /** Carries what this client does not: requests with a streamed body, origins not http(s). */
  fallback: Dispatcher;
  /** Default 10 s (undici's). */
  connectTimeoutMs?: number;
  /** From the request written to the reply's head. Default 300 s (undici's). */
  headersTimeoutMs?: number;
  /** Between two pieces of the body, unless the relay paused the reply. Default 300 s (undici's). */
  bodyTimeoutMs?: number;
  /** An idle connection is closed after this long, or earlier when the upstream's Keep-Alive says so. Default 30 s. */
  keepAliveMs?: number;
  /** How often the timeouts above are checked. Default 1 s. */
  sweepMs?: number;
  /** Where requests written in one turn wait to go out together; the relay's replies share it. */
  turnEnd: TurnEnd;
  /** For https upstreams behind a private CA; by default Node's CA store is trusted, and certificates are checked. */
  tls?: Pick<tls.ConnectionOptions, 'ca'>;
  /** The outbound address policy (outbound/address-policy.ts): judges every connection's address. */
  policy?: Pick<AddressPolicy, 'lookup' | 'refusalBeforeLookup'>;
}

type CallLimits = Required<
  Pick<Http1UpstreamOptions, 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs'>
>;

/** A transport failure, with the codes undici gives the same failures (the relay reads them). */
export class UpstreamSocketError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'UpstreamSocketError';
  }
}

/** Request bodies up to this size go out in the same buffer as the head. */
const COPY_BODY_BYTES = 64 * 1024;
/** Framing is the client's own: these are never taken from the caller. */
const FRAMING_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
]);
/** Tab, visible ASCII and obs-text: a CR, LF or NUL would split the request. */
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const BAD_PATH = /[^\u0021-\u00ff]/;

export class Http1Upstream implements UpstreamDispatcher {
  private readonly origins = new Map<string, OriginPool | null>();
  /** The pools of the calls that bring a CA of their own, by CA (the channel's cached string), then origin. */
  private readonly originsByCa = new Map<string, Map<string, OriginPool | null>>();
  /** Every open connection, idle or busy, for the sweep. */
  readonly connections = new Set<UpstreamConnection>();
  readonly limits: Required<
    Pick<Http1UpstreamOptions, 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'keepAliveMs'>
  >;
  private readonly sweeper: NodeJS.Timeout;
  private closing = false;
  private drained: (() => void) | undefined;

  constructor(private readonly options: Http1UpstreamOptions) {
    this.limits = {
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      headersTimeoutMs: options.headersTimeoutMs ?? 300_000,
      bodyTimeoutMs: options.bodyTimeoutMs ?? 300_000,
      keepAliveMs: options.keepAliveMs ?? 30_000,
    };
    this.sweeper = setInterval(() => this.sweep(), options.sweepMs ?? 1000);
    this.sweeper.unref();
  }

  dispatch(opts: UpstreamRequestOptions, handler: Dispatcher.DispatchHandler): boolean {
    const body = opts.body ?? null;
    const pool = this.poolFor(opts.origin, opts.ca);
    if (!pool || opts.proxy || (body !== null && typeof body !== 'string' && !Buffer.isBuffer(body))) {
      return this.options.fallback.dispatch(opts, handler);
    }
    const control = new RequestControl(this.limitsFor(opts.timeouts));
    let bytes: Buffer | [Buffer, Buffer];
    try {
      if (this.closing) throw new UpstreamSocketError('the upstream client is closed', 'UND_ERR_CLOSED');
      if (pool.refused) throw pool.refused;
      bytes = requestBytes(opts, pool.host, body);
    } catch (err) {
      handler.onResponseError?.(control, err as Error);
      return false;
    }
    let conn = pool.idle.pop();
    while (conn && !conn.usable) conn = pool.idle.pop();
    conn ??= this.open(pool);
    conn.send(bytes, handler, control, opts.method === 'HEAD');
    return true;
  }

  /** A call's limits: the client's, or the ones the call brings (a channel's settings). */
  private limitsFor(timeouts: UpstreamTimeouts | undefined): CallLimits {
    const limits = this.limits;
    if (!timeouts) return limits;
    return {
      connectTimeoutMs: timeouts.connectMs ?? limits.connectTimeoutMs,
      headersTimeoutMs: timeouts.firstByteMs ?? limits.headersTimeoutMs,
      bodyTimeoutMs: timeouts.idleMs ?? limits.bodyTimeoutMs,
    };
  }

  /** Idle connections close now; busy ones once their reply is read. */
  close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    const all = [...this.origins.values()];
    for (const pools of this.originsByCa.values()) all.push(...pools.values());
    for (const pool of all) {
      if (!pool) continue;
      // Each leaves the idle list as it is destroyed.
      for (const conn of [...pool.idle]) conn.destroy();
    }
    if (this.connections.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.drained = resolve;
    });
  }

  /**
   * Corks `socket` until the end of this turn of the event loop (turn-end.ts): the requests written
   * in one turn go out together, and wake the upstream once.
   */
  holdForTurn(socket: net.Socket): void {
    socket.cork();
    this.options.turnEnd.defer(() => socket.uncork());
  }

  /** A connection finished its reply: kept for the next call unless it cannot be reused. */
  release(conn: UpstreamConnection, reusable: boolean): void {
    if (reusable && !this.closing) conn.pool.idle.push(conn);
    else conn.destroy();
  }

  forget(conn: UpstreamConnection): void {
    this.connections.delete(conn);
    const idle = conn.pool.idle;
    const at = idle.indexOf(conn);
    if (at >= 0) idle.splice(at, 1);
    if (this.connections.size === 0) this.drained?.();
  }

  private open(pool: OriginPool): UpstreamConnection {
    const conn = new UpstreamConnection(this, pool);
    this.connections.add(conn);
    return conn;
  }

  /** One pool per origin, and per origin and CA for the channels that trust a private CA. */
  private poolFor(origin: string, ca: string | undefined): OriginPool | null {
    let pools = this.origins;
    if (ca !== undefined) {
      let own = this.originsByCa.get(ca);
      if (!own) {
        own = new Map();
        this.originsByCa.set(ca, own);
      }
      pools = own;
    }
    let pool = pools.get(origin);
    if (pool === undefined) {
      pool = OriginPool.of(
        origin,
        ca === undefined ? this.options.tls : { ca: [...tls.rootCertificates, ca] },
        this.options.policy,
      );
      pools.set(origin, pool);
    }
    return pool;
  }

  private sweep(): void {
    const now = performance.now();
    for (const conn of this.connections) conn.checkTimeouts(now);
  }
}

/** Where one origin's connections go, and those of them waiting for a call. */
class OriginPool {
  readonly idle: UpstreamConnection[] = [];
  /** The TLS session to resume on the next connection. */
  private tlsSession: Buffer | undefined;
  /** Made once: a CA list given per connection would be parsed again for each. */
  private secureContext: tls.SecureContext | undefined;

  /** The outbound policy refuses this origin whatever it resolves to (an IP literal, a metadata name). */
  refused: Error | null = null;

  private constructor(
    readonly tls: boolean,
    private readonly tlsOptions: Http1UpstreamOptions['tls'],
    private readonly policy: Http1UpstreamOptions['policy'],
    readonly hostname: string,
    readonly port: number,
    /** The Host header: the origin's host, with its port unless it is the scheme's default. */
    readonly host: string,
  ) {}

  /** Null for an origin this client does not speak to (it goes to the fallback). */
  static of(
    origin: string,
    tlsOptions: Http1UpstreamOptions['tls'],
    policy: Http1UpstreamOptions['policy'],
  ): OriginPool | null {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return null;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username || url.password) return null;
    const secure = url.protocol === 'https:';
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const pool = new OriginPool(
      secure,
      tlsOptions,
      policy,
      hostname,
      Number(url.port) || (secure ? 443 : 80),
      url.host,
    );
    pool.refused = policy?.refusalBeforeLookup(hostname) ?? null;
    return pool;
  }

  connect(): net.Socket {
    const options = {
      host: this.hostname,
      port: this.port,
      noDelay: true,
      keepAlive: true,
      keepAliveInitialDelay: 60_000,
      // Node calls it for host names only; IP literals were judged when the pool was made.
      ...(this.policy ? { lookup: this.policy.lookup } : {}),
    };
    if (!this.tls) return net.connect(options);
    if (this.tlsOptions?.ca !== undefined) this.secureContext ??= tls.createSecureContext(this.tlsOptions);
    const socket = tls.connect({
      ...options,
      secureContext: this.secureContext,
      servername: net.isIP(this.hostname) ? undefined : this.hostname,
      ALPNProtocols: ['http/1.1'],
      session: this.tlsSession,
    });
    // A new connection resumes the last session the upstream gave: no full handshake (undici keeps
    // sessions too, and a burst of streams opens hundreds of connections at once).
    socket.on('session', (session: Buffer) => {
      this.tlsSession = session;
    });
    return socket;
  }
}

/** The request's head and body as they go on the wire. */
function requestBytes(
  opts: UpstreamRequestOptions,
  host: string,
  body: Buffer | string | null,
): Buffer | [Buffer, Buffer] {
  if (BAD_PATH.test(opts.path)) throw new TypeError('invalid request path');
  let head = `${opts.method} ${opts.path} HTTP/1.1\r\n`;
  let hasHost = false;
  const headers = opts.headers;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (FRAMING_HEADERS.has(lower)) continue;
    if (!HTTP_TOKEN.test(name)) throw new TypeError(`invalid header name: ${name}`);
    if (BAD_HEADER_VALUE.test(value)) throw new TypeError(`invalid value for header ${name}`);
    if (lower === 'host') hasHost = true;
    head += `${name}: ${value}\r\n`;
  }
  if (!hasHost) head += `host: ${host}\r\n`;
  const bodyBytes = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const method = opts.method;
  if (body !== null || method === 'POST' || method === 'PUT' || method === 'PATCH') {
    head += `content-length: ${bodyBytes}\r\n`;
  }
  head += '\r\n';
  if (bodyBytes > COPY_BODY_BYTES) {
    return [Buffer.from(head, 'latin1'), typeof body === 'string' ? Buffer.from(body) : (body as Buffer)];
  }
  const out = Buffer.allocUnsafe(head.length + bodyBytes);
  const at = out.write(head, 0, 'latin1');
  if (typeof body === 'string') out.write(body, at, 'utf8');
  else if (body) body.copy(out, at);
  return out;
}

/** The handle one call's handler holds: it acts only while its call is the connection's. */
class RequestControl implements Dispatcher.DispatchController {
  conn: UpstreamConnection | undefined;
  aborted = false;
  paused = false;
  reason: Error | null = null;

  constructor(readonly limits: CallLimits) {}

  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.conn?.abort(this, reason);
  }
  pause(): void {
    this.paused = true;
    this.conn?.pause(this);
  }
  resume(): void {
    this.paused = false;
    this.conn?.resume(this);
  }
}

enum Phase {
  Idle,
  AwaitingHead,
  ReadingBody,
  Closed,
}

/** One socket to an upstream, carrying one call at a time. */
class UpstreamConnection implements ReplyEvents {
  private readonly socket: net.Socket;
  /** Idle until `send`, which follows at once: a connection is opened for a call. */
  private phase = Phase.Idle;
  /** Whether the socket (TLS included) is established: a call may wait for it while it connects. */
  private connected = false;
  private handler: Dispatcher.DispatchHandler | undefined;
  private control: RequestControl | undefined;
  private parser: Http1ReplyParser | undefined;
  private lastActivity = performance.now();
  private keepAliveMs: number;

  constructor(
    private readonly client: Http1Upstream,
    readonly pool: OriginPool,
  ) {
    this.keepAliveMs = client.limits.keepAliveMs;
    const socket = pool.connect();
    this.socket = socket;
    socket.once(pool.tls ? 'secureConnect' : 'connect', () => {
      this.connected = true;
      this.lastActivity = performance.now();
    });
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('end', () => this.ended());
    socket.on('error', (err) => this.broken(err));
    socket.on('close', () => this.broken(new UpstreamSocketError('other side closed', 'UND_ERR_SOCKET')));
  }

  /** Whether an idle connection can take a call (its upstream may have closed it meanwhile). */
  get usable(): boolean {
    return this.phase === Phase.Idle && !this.socket.destroyed && this.socket.writable;
  }

  send(
    bytes: Buffer | [Buffer, Buffer],
    handler: Dispatcher.DispatchHandler,
    control: RequestControl,
    head: boolean,
  ): void {
    this.handler = handler;
    this.control = control;
    control.conn = this;
    this.parser = new Http1ReplyParser(this, head);
    this.phase = Phase.AwaitingHead;
    this.lastActivity = performance.now();
    handler.onRequestStart?.(control, {});
    if (control.aborted) return;
    this.client.holdForTurn(this.socket);
    if (Array.isArray(bytes)) {
      this.socket.write(bytes[0]);
      this.socket.write(bytes[1]);
    } else {
      this.socket.write(bytes);
    }
  }

  // ReplyEvents: the parser's reading of the current reply.
  head(statusCode: number, headers: IncomingHttpHeaders): void {
    this.phase = Phase.ReadingBody;
    const hint = headers['keep-alive'];
    if (hint !== undefined) this.keepAliveMs = keepAliveFrom(String(hint), this.client.limits.keepAliveMs);
    const control = this.control as RequestControl;
    this.handler?.onResponseStart?.(control, statusCode, headers);
  }
  data(chunk: Buffer): void {
    const control = this.control as RequestControl;
    if (!control.aborted) this.handler?.onResponseData?.(control, chunk);
  }

  abort(control: RequestControl, reason: Error): void {
    if (control !== this.control) return;
    this.fail(reason);
  }
  pause(control: RequestControl): void {
    if (control === this.control) this.socket.pause();
  }
  resume(control: RequestControl): void {
    if (control !== this.control) return;
    this.lastActivity = performance.now();
    this.socket.resume();
  }

  checkTimeouts(now: number): void {
    const limits = this.control?.limits ?? this.client.limits;
    const quiet = now - this.lastActivity;
    if (this.phase === Phase.Idle) {
      if (quiet >= this.keepAliveMs) this.destroy();
    } else if (!this.connected) {
      if (quiet >= limits.connectTimeoutMs) {
        this.fail(new UpstreamSocketError('connect timeout', 'UND_ERR_CONNECT_TIMEOUT'));
      }
    } else if (this.phase === Phase.AwaitingHead) {
      if (quiet >= limits.headersTimeoutMs) {
        this.fail(new UpstreamSocketError('headers timeout', 'UND_ERR_HEADERS_TIMEOUT'));
      }
    } else if (this.phase === Phase.ReadingBody && !this.control?.paused) {
      if (quiet >= limits.bodyTimeoutMs)
        this.fail(new UpstreamSocketError('body timeout', 'UND_ERR_BODY_TIMEOUT'));
    }
  }

  destroy(): void {
    if (this.phase === Phase.Closed) return;
    this.phase = Phase.Closed;
    this.socket.destroy();
    this.client.forget(this);
  }

  private read(chunk: Buffer): void {
    // Only a call in progress has a parser.
    const parser = this.parser;
    if (!parser) {
      // Bytes nobody asked for: the connection is out of step with its upstream.
      this.destroy();
      return;
    }
    this.lastActivity = performance.now();
    let extra: number;
    try {
      extra = parser.feed(chunk);
    } catch (err) {
      if (this.parser === parser) this.fail(err as Error);
      return;
    }
    // The handler may have aborted the call while it read.
    if (this.parser !== parser) return;
    if (parser.done) this.complete(parser.reusable && extra === 0);
  }

  /** The upstream finished sending: a reply framed by the connection's end is complete. */
  private ended(): void {
    const parser = this.parser;
    if (!parser) {
      this.destroy();
      return;
    }
    try {
      parser.closed();
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    this.complete(false);
  }

  private complete(reusable: boolean): void {
    const handler = this.handler;
    const control = this.control as RequestControl;
    this.detach();
    this.phase = Phase.Idle;
    this.lastActivity = performance.now();
    this.client.release(this, reusable && !control.aborted);
    if (!control.aborted) handler?.onResponseEnd?.(control, {});
  }

  /**
   * The socket failed or closed. A reply framed by the connection's end was completed on 'end',
   * which comes first; a call still waiting fails.
   */
  private broken(err: Error): void {
    if (this.phase === Phase.ReadingBody || this.phase === Phase.AwaitingHead) this.fail(err);
    else this.destroy();
  }

  /** The current call fails with `err`, and the connection is dropped. */
  private fail(err: Error): void {
    const handler = this.handler;
    const control = this.control;
    this.detach();
    this.destroy();
    if (handler && control) handler.onResponseError?.(control, err);
  }

  private detach(): void {
    if (this.control) this.control.conn = undefined;
    this.handler = undefined;
    this.control = undefined;
    this.parser = undefined;
  }
}

/** `Keep-Alive: timeout=N`: the upstream closes idle connections after N s, so they are dropped a second before. */
function keepAliveFrom(hint: string, fallbackMs: number): number {
  const m = /timeout=(\d+)/i.exec(hint);
  if (!m) return fallbackMs;
  return Math.min(fallbackMs, Math.max(1000, Number(m[1]) * 1000 - 1000));
}
