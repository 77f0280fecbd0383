import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger } from 'fastify';
import { requestIdOf } from '../../http/request-ids.js';
import type { Services } from '../../services.js';
import { errorBodyFor } from '../dialect-errors.js';
import { type RelayError, relayErrors } from '../relay-error.js';
import { type RelayReply, type RelayRequest, relayCorsHeaders } from './relay-exchange.js';
import { asRelayError, type RelayPostRoute } from './relay-routes.js';
import { RequestLog } from './request-log.js';

// The relay's POST routes served straight from Node's 'request' event, ahead of Fastify, for speed:
// no router, hook chain, body parser or Fastify request and reply per call, a noticeable share of
// the main-thread time a relayed call costs. It answers as the Fastify routes do (request id, CORS,
// errors in the route's dialect, body limit, access log lines); what it does not serve (other
// methods and paths, a query string, a multipart upload) goes on to Fastify untouched.

export interface HotRelayOptions {
  /** The app's logger: each call logs through a child bound to its request id, made for its first line. */
  log: FastifyBaseLogger;
  nextRequestId: () => string;
  /** Proxies whose X-Forwarded-For is believed, as Fastify's `trustProxy` takes them. */
  trustedProxies: readonly string[];
  bodyLimit: number;
}

/** The client's address: the socket's, or behind trusted proxies the one they forwarded (as Fastify). */
function clientIpSource(trusted: readonly string[]): (req: IncomingMessage) => string {
  if (trusted.length === 0) return (req) => req.socket.remoteAddress ?? '';
  const trust = proxyAddr.compile([...trusted]);
  return (req) => {
    const chain = proxyAddr.all(req, trust);
    return chain[chain.length - 1] ?? '';
  };
}

function isMultipart(headers: IncomingHttpHeaders): boolean {
  const type = headers['content-type'];
  return type?.trimStart().toLowerCase().startsWith('multipart/') === true;
}

export class HotRelay {
  private readonly routes = new Map<string, RelayPostRoute>();
  readonly ipOf: (req: IncomingMessage) => string;

  constructor(
    readonly s: Services,
    readonly o: HotRelayOptions,
    routes: readonly RelayPostRoute[],
  ) {
    for (const r of routes) this.routes.set(r.path, r);
    this.ipOf = clientIpSource(o.trustedProxies);
  }

  /** Serves the request and returns true, or returns false and leaves it to Fastify. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST') return false;
    const route = this.routes.get(req.url ?? '');
    if (!route || isMultipart(req.headers)) return false;
    new HotCall(this, route, req, res).start();
    return true;
  }
}

const ACCESS_LOG_LEVELS = new Set(['trace', 'debug', 'info']);

/** The reply of a hot call as the relay writes it: the relay writes `raw` itself after hijack. */
class HotReply implements RelayReply {
  hijacked = false;
  private readonly set: Record<string, string> = {};

  constructor(
    readonly raw: ServerResponse,
    readonly request: HotCall,
  ) {}

  /** For the access log line, as Fastify's reply gives it. */
  get statusCode(): number {
    return this.raw.statusCode;
  }
  hijack(): this {
    this.hijacked = true;
    return this;
  }
  getHeaders(): Record<string, string> {
    return this.set;
  }
  header(name: string, value: string): this {
    this.set[name.toLowerCase()] = value;
    return this;
  }
}

/** One call on the hot path: its request as the relay and the access log read it. */
class HotCall implements RelayRequest {
  readonly id: string;
  readonly ip: string;
  body: Buffer | undefined;
  readonly query = undefined;
  readonly reply: HotReply;
  private requestLog: RequestLog | undefined;
  private readonly startedAt = performance.now();

  constructor(
    private readonly hot: HotRelay,
    private readonly route: RelayPostRoute,
    readonly raw: IncomingMessage,
    res: ServerResponse,
  ) {
    this.id = requestIdOf(raw.headers, hot.o.nextRequestId);
    this.ip = hot.ipOf(raw);
    this.reply = new HotReply(res, this);
    this.reply.header('x-request-id', this.id);
    for (const [name, value] of relayCorsHeaders()) this.reply.header(name, value);
  }

  get headers(): IncomingHttpHeaders {
    return this.raw.headers;
  }
  get log(): FastifyBaseLogger {
    this.requestLog ??= new RequestLog(this.hot.o.log, this.id);
    return this.requestLog;
  }
  get method(): string {
    return 'POST';
  }
  get url(): string {
    return this.raw.url ?? '';
  }
  get host(): string {
    return this.raw.headers.host ?? '';
  }
  get socket(): Socket {
    return this.raw.socket;
  }

  start(): void {
    const res = this.reply.raw;
    if (ACCESS_LOG_LEVELS.has(this.hot.o.log.level)) {
      this.log.info({ req: this }, 'incoming request');
      res.once('finish', () =>
        this.log.info(
          { res: this.reply, responseTime: performance.now() - this.startedAt },
          'request completed',
        ),
      );
    }
    const limit = this.hot.o.bodyLimit;
    if (Number(this.raw.headers['content-length'] ?? 0) > limit) {
      this.refuseBody();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        this.raw.off('data', onData);
        this.refuseBody();
        return;
      }
      chunks.push(chunk);
    };
    this.raw.on('data', onData);
    // A client gone mid-body is not answered: there is nobody to answer.
    this.raw.on('error', () => {});
    this.raw.on('end', () => {
      if (size > limit) return;
      this.body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      this.route.handle(this.hot.s, this, this.reply).then(
        () => {
          if (!this.reply.hijacked) this.fail(new Error('the relay route wrote no reply'));
        },
        (err: unknown) => this.fail(err),
      );
    });
  }

  /** Answers 413 and closes the connection: the rest of the body is not read. */
  private refuseBody(): void {
    this.reply.header('connection', 'close');
    this.answer(relayErrors.bodyTooLarge());
  }

  private fail(err: unknown): void {
    const error = asRelayError(err, this.log);
    const res = this.reply.raw;
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    this.answer(error);
  }

  private answer(error: RelayError): void {
    const body = JSON.stringify(errorBodyFor(this.route.dialect, error, this.id));
    const headers = this.reply.getHeaders();
    if (error.headers) Object.assign(headers, error.headers);
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = String(Buffer.byteLength(body));
    this.reply.raw.writeHead(error.status, headers);
    this.reply.raw.end(body);
  }
}
