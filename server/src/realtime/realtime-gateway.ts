import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { providerById } from '@switchyard/domain';
import type { FastifyBaseLogger } from 'fastify';
import { WebSocketServer } from 'ws';
import { type BearerKey, bearerKeyFromHeaders, parseBearerKey } from '../auth/api-keys.js';
import type { Reservation } from '../billing/ledger/ledger.js';
import { reserveAmount } from '../billing/pricing/quota-math.js';
import { hasUnstorableText } from '../db/storable-text.js';
import { requestIdOf } from '../http/request-ids.js';
import { SocketConnector } from '../outbound/socket-connector.js';
import { errorBodyFor } from '../relay/dialect-errors.js';
import { checkGroupRate } from '../relay/inbound/group-rate-limit.js';
import { asRelayError } from '../relay/inbound/relay-routes.js';
import type { RelayCaller } from '../relay/inbound/token-auth.js';
import { RelayError, relayErrors } from '../relay/relay-error.js';
import { priceOf, reserveForCaller } from '../relay/relay-pipeline.js';
import type { Selection } from '../relay/routing/channel-selector.js';
import type { Services } from '../services.js';
import { REALTIME_DRAIN_MS, RealtimeSession } from './realtime-session.js';
import { type OpenedUpstream, openRealtimeUpstream, RealtimeUpstreamFailure } from './realtime-upstream.js';

// `GET /v1/realtime?model=...` upgraded to a WebSocket and relayed to an OpenAI-protocol channel.
// Node hands a request with `Upgrade:` to the server's 'upgrade' event, not to 'request' (so neither
// the hot path nor Fastify sees it): app.ts sends that event here. Before the upgrade is answered the
// call takes the relay's steps (key, model, rate limit, session caps, channel, reserve, upstream
// opened); any refusal is an HTTP error in OpenAI's shape. Other upgrade requests (an `h2c` upgrade
// from curl, a WebSocket to another path) are answered as plain HTTP requests.

export const REALTIME_PATH = '/v1/realtime';
const KEY_PROTOCOL = 'openai-insecure-api-key.';
const BETA_PROTOCOL = 'openai-beta.realtime-v1';
/** A Sec-WebSocket-Key: 16 bytes in base64. */
const WS_KEY = /^[+/0-9A-Za-z]{21}[AQgw]==$/;
/** Pings both peers this often; one that has not answered the previous ping is cut. */
const HEARTBEAT_MS = 30_000;
/** Catalog protocols whose Realtime API is OpenAI's own URL and auth. */
const REALTIME_PROTOCOLS = new Set(['openai']);

export interface RealtimeGatewayOptions {
  log: FastifyBaseLogger;
  nextRequestId: () => string;
  ipOf: (req: IncomingMessage) => string;
  /** Gives the HTTP server a socket to parse anew: upgrade requests that are not Realtime sessions. */
  serveAgain: (socket: Duplex) => void;
}

/** The subprotocols a client offered (`Sec-WebSocket-Protocol`). */
function offeredProtocols(req: IncomingMessage): string[] {
  const raw = req.headers['sec-websocket-protocol'];
  if (!raw) return [];
  return String(raw)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

/** The key of a Realtime request: `Authorization`, else the browser clients' key subprotocol. */
export function realtimeKey(req: IncomingMessage): BearerKey | null {
  const fromHeader = bearerKeyFromHeaders(req.headers);
  if (fromHeader) return fromHeader;
  const offered = offeredProtocols(req).find((p) => p.startsWith(KEY_PROTOCOL));
  return offered ? parseBearerKey(offered.slice(KEY_PROTOCOL.length)) : null;
}

function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return req.method === 'GET' && String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

export class RealtimeGateway {
  private readonly wss: WebSocketServer;
  private readonly sessions = new Set<RealtimeSession>();
  private readonly perIp = new Map<string, number>();
  private readonly perToken = new Map<number, number>();
  private readonly connector: SocketConnector;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(
    private readonly s: Services,
    private readonly o: RealtimeGatewayOptions,
  ) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: s.config.realtime.maxMessageBytes,
      perMessageDeflate: false,
      // The key never comes back as the chosen protocol; `realtime` does when it was offered.
      handleProtocols: (protocols) => (protocols.has('realtime') ? 'realtime' : false),
    });
    this.connector = new SocketConnector(s.relay.upstream.policy);
  }

  /** The server's 'upgrade' event. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? '').split('?')[0]?.replace(/\/+$/, '');
    if (path !== REALTIME_PATH || !isWebSocketUpgrade(req)) {
      this.asPlainRequest(req, socket, head);
      return;
    }
    // Node leaves the socket's timeout on an upgraded connection; the heartbeat watches it instead.
    (socket as Duplex & { setTimeout?: (ms: number) => void }).setTimeout?.(0);
    socket.on('error', () => {});
    const requestId = requestIdOf(req.headers, this.o.nextRequestId);
    const log = this.o.log.child({ reqId: requestId });
    // What ws would refuse at the upgrade is refused before any reserve or upstream is taken.
    const version = String(req.headers['sec-websocket-version'] ?? '');
    if (
      !WS_KEY.test(String(req.headers['sec-websocket-key'] ?? '')) ||
      (version !== '8' && version !== '13')
    ) {
      this.refuse(socket, relayErrors.badRequest('Not a valid WebSocket handshake'), requestId);
      return;
    }
    this.open(req, socket, head, requestId, log).catch((err: unknown) => {
      this.refuse(socket, asRelayError(err, log), requestId);
    });
  }

  /** A stopping node: no new session; open ones close (1001) once no response is in progress. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const ended = [...this.sessions].map((session) => {
      // Within the node's drain time: what is cut after it is not waited for.
      session.stop(Math.min(REALTIME_DRAIN_MS, this.s.config.shutdownDrainMs));
      return session.ended;
    });
    await Promise.all(ended);
    this.wss.close();
  }

  /**
   * Hands an upgrade request that is no Realtime session back to the HTTP server as the plain
   * request it also is: its head is written again without `Upgrade` (and `Connection`'s upgrade
   * tokens) in front of what followed, and the server parses the socket anew, body and keep-alive
   * included.
   */
  private asPlainRequest(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
    const raw = req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!;
      const lower = name.toLowerCase();
      if (lower === 'upgrade' || lower === 'http2-settings') continue;
      let value = raw[i + 1]!;
      if (lower === 'connection') {
        value = value
          .split(',')
          .map((v) => v.trim())
          .filter((v) => !/^(upgrade|http2-settings)$/i.test(v))
          .join(', ');
        if (value === '') continue;
      }
      lines.push(`${name}: ${value}`);
    }
    socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
    this.o.serveAgain(socket);
  }

  private async open(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    requestId: string,
    log: FastifyBaseLogger,
  ): Promise<void> {
    const s = this.s;
    const r = s.relay;
    if (this.stopping) {
      throw new RelayError(503, 'server_error', 'server_stopping', 'This node is stopping; please reconnect');
    }
    const startedMs = s.clock.nowMs();
    const ip = this.o.ipOf(req);
    const caller = await r.auth.authenticate(realtimeKey(req), ip, r.tables.groups);
    const model = new URL(req.url ?? '/', 'http://gateway').searchParams.get('model')?.trim() ?? '';
    if (model === '') throw relayErrors.badRequest('model is required', 'model');
    if (hasUnstorableText(model))
      throw relayErrors.badRequest('model holds a NUL character or invalid UTF-8', 'model');
    if (caller.allowedModels && !caller.allowedModels.has(model)) throw relayErrors.modelNotAllowed(model);
    const rate = await checkGroupRate(
      s.limiter,
      r.bucket,
      caller.group.symbol,
      caller.group.api_rate,
      caller.user.id,
    );
    if (!rate.allowed) {
      const err = relayErrors.rateLimited(rate.retryAfterSeconds);
      err.headers = { 'retry-after': String(rate.retryAfterSeconds) };
      throw err;
    }
    const price = priceOf(s, model);
    if (!price) {
      if (!r.selector.hasChannel(caller.group.symbol, model))
        throw relayErrors.noChannelAtAll(caller.group.symbol, model);
      throw relayErrors.unpriced(model);
    }

    const release = this.admit(ip, caller.token.id);
    let reservation: Reservation | undefined;
    const left = new AbortController();
    const onGone = () => left.abort();
    socket.once('close', onGone);
    try {
      const estimate = reserveAmount({
        price,
        groupRatio: caller.group.ratio,
        promptTokens: 0,
        preConsumedQuota: s.options.current.PreConsumedQuota,
      });
      // Each response is billed after it happened: a reserve of at least 1 keeps an empty balance
      // from opening or going on with a session whose price is not free (PreConsumedQuota 0).
      const paid = price.type === 'times' ? price.input > 0 : price.input > 0 || price.output > 0;
      const amount = paid && caller.group.ratio > 0 ? Math.max(1, estimate) : estimate;
      reservation = await reserveForCaller(r.ledger, caller, amount);
      const beta =
        String(req.headers['openai-beta'] ?? '').includes('realtime=v1') ||
        offeredProtocols(req).includes(BETA_PROTOCOL);
      const { selection, upstream, firstByteMs } = await this.connectUpstream(
        caller,
        model,
        beta,
        left.signal,
        log,
        startedMs,
      );
      socket.off('close', onGone);
      if (left.signal.aborted) {
        upstream.ws.terminate();
        throw new RelayError(499, 'invalid_request_error', 'client_closed_request', 'The client left');
      }
      const held = reservation;
      reservation = undefined;
      let upgraded = false;
      this.wss.handleUpgrade(req, socket, head, (client) => {
        upgraded = true;
        const session = new RealtimeSession({
          s,
          caller,
          selection,
          price: priceOf(s, selection.billedModel) ?? price,
          reserveAmount: amount,
          reservation: held,
          client,
          upstream,
          ip,
          requestId,
          log,
          startedMs,
          firstByteMs,
        });
        this.sessions.add(session);
        this.startHeartbeat();
        session.start();
        const ended = session.ended.then(() => {
          this.sessions.delete(session);
          release();
        });
        r.pending.track(ended);
      });
      // ws answered the handshake itself (400: a bad Sec-WebSocket-Key or version) and called nothing back.
      if (!upgraded) {
        upstream.ws.terminate();
        release();
        await r.ledger.release(held);
      }
    } catch (err) {
      socket.off('close', onGone);
      release();
      if (reservation) await r.ledger.release(reservation);
      throw err;
    }
  }

  /** Counts the session against its address's and key's caps; the returned function gives its places back. */
  private admit(ip: string, tokenId: number): () => void {
    const { sessionsPerIp, sessionsPerToken } = this.s.config.realtime;
    const atIp = this.perIp.get(ip) ?? 0;
    const atToken = this.perToken.get(tokenId) ?? 0;
    if (sessionsPerIp > 0 && atIp >= sessionsPerIp) {
      throw new RelayError(
        429,
        'rate_limit_error',
        'too_many_sessions',
        `At most ${sessionsPerIp} Realtime sessions per client address`,
      );
    }
    if (sessionsPerToken > 0 && atToken >= sessionsPerToken) {
      throw new RelayError(
        429,
        'rate_limit_error',
        'too_many_sessions',
        `At most ${sessionsPerToken} Realtime sessions per API key`,
      );
    }
    this.perIp.set(ip, atIp + 1);
    this.perToken.set(tokenId, atToken + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const ipLeft = (this.perIp.get(ip) ?? 1) - 1;
      if (ipLeft <= 0) this.perIp.delete(ip);
      else this.perIp.set(ip, ipLeft);
      const tokenLeft = (this.perToken.get(tokenId) ?? 1) - 1;
      if (tokenLeft <= 0) this.perToken.delete(tokenId);
      else this.perToken.set(tokenId, tokenLeft);
    };
  }

  /**
   * Opens the upstream on a channel chosen as the relay chooses (priority, weight, freezes, model
   * mapping), trying others within RetryTimes when one fails before it answered with a session.
   */
  private async connectUpstream(
    caller: RelayCaller,
    model: string,
    beta: boolean,
    signal: AbortSignal,
    log: FastifyBaseLogger,
    startedMs: number,
  ): Promise<{ selection: Selection; upstream: OpenedUpstream; firstByteMs: number }> {
    const s = this.s;
    const r = s.relay;
    const o = s.options.current;
    const tried = new Set<number>();
    let attempts = 0;
    let lastError: RelayError | undefined;
    for (;;) {
      const selection = await r.selector.select({
        group: caller.group.symbol,
        model,
        exclude: tried,
        needsTools: false,
        pinnedChannelId: caller.pinChannelId,
        excludedChannelId: caller.excludeChannelId,
        now: s.clock.nowMs(),
      });
      if (!selection) {
        if (lastError) throw lastError;
        if (!r.selector.hasChannel(caller.group.symbol, model))
          throw relayErrors.noChannelAtAll(caller.group.symbol, model);
        throw relayErrors.noChannel(caller.group.symbol, model);
      }
      tried.add(selection.channel.id);
      if (!REALTIME_PROTOCOLS.has(providerById(selection.channel.type)?.protocol ?? '')) {
        lastError ??= new RelayError(
          503,
          'server_error',
          'no_available_channel',
          'No channel of this model serves the Realtime API (OpenAI-protocol channels only)',
          'model',
        );
        continue;
      }
      attempts++;
      try {
        const upstream = await openRealtimeUpstream({
          channel: r.access.get(selection.channel),
          upstreamModel: selection.upstreamModel,
          beta,
          maxMessageBytes: s.config.realtime.maxMessageBytes,
          connector: this.connector,
          signal,
        });
        return { selection, upstream, firstByteMs: s.clock.nowMs() - startedMs };
      } catch (err) {
        if (!(err instanceof RealtimeUpstreamFailure)) throw err;
        if (signal.aborted)
          throw new RelayError(499, 'invalid_request_error', 'client_closed_request', 'The client left');
        const e = err.error;
        log.warn(
          { channel: selection.channel.id, status: e.status, code: e.code },
          `realtime upstream failed: ${e.message}`,
        );
        lastError = clientErrorOf(e.status, e.message, e.type, e.code);
        // The client's own mistake (a 400) is not the channel's failure and is not retried.
        const channelFault =
          err.transport || e.status === 429 || e.status >= 500 || e.status === 401 || e.status === 403;
        if (!channelFault) throw lastError;
        await r.health.freeze(selection.channel.id, model, o.RetryCooldownSeconds);
        if (caller.pinChannelId !== undefined || attempts > o.RetryTimes) throw lastError;
      }
    }
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      for (const session of this.sessions) session.heartbeat();
      if (this.sessions.size === 0 && this.heartbeat) {
        clearInterval(this.heartbeat);
        this.heartbeat = undefined;
      }
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** An HTTP error on the socket before any upgrade, in OpenAI's error shape. */
  private refuse(socket: Duplex, err: RelayError, requestId: string): void {
    this.s.ops?.metrics?.relay.failed(REALTIME_PATH, err.status);
    if (socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(errorBodyFor('openai', err, requestId));
    const lines = [
      `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}`,
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${requestId}`,
      'connection: close',
    ];
    for (const [name, value] of Object.entries(err.headers ?? {})) lines.push(`${name}: ${value}`);
    socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
  }
}

/** What the client is told of an upstream that refused the session (as the relay tells it). */
function clientErrorOf(status: number, message: string, type: string, code: string | null): RelayError {
  if (status === 401 || status === 403)
    return new RelayError(
      502,
      'upstream_error',
      'upstream_auth_failed',
      'The upstream provider refused the gateway',
    );
  if (status === 429)
    return new RelayError(
      429,
      'rate_limit_error',
      'upstream_busy',
      'The upstream provider is busy; retry later',
    );
  if (status === 0 || status >= 500 || status < 400)
    return new RelayError(502, 'upstream_error', code ?? 'upstream_error', `Upstream error: ${message}`);
  return new RelayError(status, type || 'invalid_request_error', code, message);
}
