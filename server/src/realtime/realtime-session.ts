import { LogType } from '@switchyard/domain';
import type { FastifyBaseLogger } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { Reservation } from '../billing/ledger/ledger.js';
import type { ModelPrice } from '../billing/pricing/price-book.js';
import { breakdownMetadata, computeQuota } from '../billing/pricing/quota-math.js';
import type { Usage } from '../billing/pricing/usage.js';
import type { RelayCaller } from '../relay/inbound/token-auth.js';
import type { Selection } from '../relay/routing/channel-selector.js';
import type { Services } from '../services.js';
import type { OpenedUpstream } from './realtime-upstream.js';
import { fromRealtimeUsage } from './realtime-usage.js';

// One relayed Realtime session: the client's WebSocket and the upstream's, joined. Billing holds one
// reserve at a time: each `response.done` with usage settles it at the response's exact cost (its
// own log row, through the ledger's journal) and a new reserve is taken for the next response. While
// that reserve is on its way, client events wait (nothing reaches the upstream unreserved) and so
// does a next `response.done` (it settles against it). A reserve refused cuts the session: an
// `error` event, then close code 1008. Whatever ends the session, the reserve it still holds goes back.

/** How long the upstream is still read after the client left, for a response in progress to be billed. */
export const REALTIME_DRAIN_MS = 30_000;
/** Bytes waiting for a slow peer before the other side is paused. */
const HIGH_WATER = 4 * 1024 * 1024;

export interface RealtimeSessionParts {
  s: Services;
  caller: RelayCaller;
  selection: Selection;
  price: ModelPrice;
  /** Quota each reserve holds. */
  reserveAmount: number;
  /** The first reserve, taken before the upgrade. */
  reservation: Reservation;
  client: WebSocket;
  upstream: OpenedUpstream;
  ip: string;
  requestId: string;
  log: FastifyBaseLogger;
  startedMs: number;
  firstByteMs: number;
}

interface Inbound {
  data: RawData;
  isBinary: boolean;
  /** Parsed once: the response.done's response, or null for every other event. */
  done?: { response: Record<string, unknown>; usage: Usage | null } | null;
}

/** A WebSocket close code another peer may be sent (1005, 1006 and 1015 are never sent). */
function sendableCode(code: number): boolean {
  return (
    (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) ||
    (code >= 3000 && code <= 4999)
  );
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

export class RealtimeSession {
  private reservation: Reservation | undefined;
  private reserving: Promise<void> | undefined;
  private readonly fromUpstream: Inbound[] = [];
  private readonly fromClient: Inbound[] = [];
  /** Responses created upstream and not done yet: the client's leaving waits for these. */
  private readonly open = new Map<string, number>();
  private clientGone = false;
  private upstreamGone = false;
  private finished = false;
  private drainTimer: NodeJS.Timeout | undefined;
  /** Set after a ping; a peer that has not answered by the next one is cut. */
  private clientAlive = true;
  private upstreamAlive = true;
  /** A stopping node: the session ends as soon as no response is in progress. */
  private stopping = false;
  /** A reserve was refused: the session is being cut; responses already done still settle (reserves of 0). */
  private exhausted = false;
  /** Writes to the client held for the end of the turn, in order; undefined when none are. */
  private clientOut: (() => void)[] | undefined;
  private endResolve!: () => void;
  /** Settles when the session is over and its last reserve given back. */
  readonly ended = new Promise<void>((resolve) => {
    this.endResolve = resolve;
  });
  private responses = 0;

  private readonly upstream: WebSocket;
  private readonly client: WebSocket;

  constructor(private readonly p: RealtimeSessionParts) {
    this.reservation = p.reservation;
    this.upstream = p.upstream.ws;
    this.client = p.client;
  }

  start(): void {
    const { client, upstream } = this;
    this.p.upstream.handOver((data, isBinary) => {
      this.fromUpstream.push({ data, isBinary });
      if (this.fromUpstream.length === 1) this.pumpUpstream();
    });
    client.on('message', (data, isBinary) => {
      this.fromClient.push({ data, isBinary });
      if (this.fromClient.length === 1) this.pumpClient();
    });
    upstream.on('pong', () => {
      this.upstreamAlive = true;
    });
    client.on('pong', () => {
      this.clientAlive = true;
    });
    upstream.on('close', (code, reason) => this.upstreamClosed(code, reason.toString()));
    upstream.on('error', (err) => {
      this.p.log.warn({ err }, 'realtime upstream socket failed');
    });
    client.on('close', () => this.clientClosed());
    client.on('error', (err) => {
      this.p.log.info({ err }, 'realtime client socket failed');
    });
  }

  /** Called every heartbeat: a peer that answered no ping since the last one is cut. */
  heartbeat(): void {
    const { client, upstream } = this;
    if (!this.clientGone) {
      if (!this.clientAlive) client.terminate();
      else {
        this.clientAlive = false;
        client.ping();
      }
    }
    if (!this.upstreamGone) {
      if (!this.upstreamAlive) upstream.terminate();
      else {
        this.upstreamAlive = false;
        upstream.ping();
      }
    }
  }

  /** The node is stopping: the session closes (1001) once no response is in progress, within `boundMs`. */
  stop(boundMs = REALTIME_DRAIN_MS): void {
    this.stopping = true;
    if (this.open.size === 0) {
      this.closeBoth(1001, 'server shutting down');
      return;
    }
    // A response that never ends does not hold the stop for ever.
    this.drainTimer = setTimeout(() => this.closeBoth(1001, 'server shutting down'), boundMs);
    this.drainTimer.unref();
  }

  /** Ends the session: the client is told why (an `error` event, after what it was already sent), then the code. */
  cut(code: number, error: { type: string; code: string; message: string }): void {
    if (this.clientOut) {
      this.clientOut.push(() => this.cut(code, error));
      return;
    }
    const { client } = this;
    if (!this.clientGone && client.readyState === client.OPEN) {
      client.send(
        JSON.stringify({
          type: 'error',
          event_id: `event_gw_${this.p.requestId}`,
          error: { ...error, param: null, event_id: null },
        }),
      );
    }
    this.closeBoth(code, error.message.slice(0, 120));
  }

  private closeBoth(code: number, reason: string): void {
    const { client, upstream } = this;
    if (!this.clientGone && client.readyState === client.OPEN) client.close(code, reason);
    if (!this.upstreamGone && upstream.readyState === upstream.OPEN)
      upstream.close(1000, 'client session ended');
    else if (!this.upstreamGone) upstream.terminate();
    this.maybeFinish();
  }

  private pumpUpstream(): void {
    const queue = this.fromUpstream;
    while (queue.length > 0 && !this.finished) {
      const head = queue[0]!;
      if (head.done === undefined) head.done = this.inspect(head);
      if (head.done?.usage && !this.reservation) {
        // Settled against the reserve on its way; the events behind wait with it.
        this.reserveIfNone();
        return;
      }
      queue.shift();
      if (head.done) {
        const responseId = String(head.done.response.id ?? '');
        const started = this.open.get(responseId);
        this.open.delete(responseId);
        if (head.done.usage) this.settle(head.done.response, head.done.usage, started);
        // After the settlement's journal write at the end of this turn (turn-end.ts): a process
        // killed in between has the bill on file before the client has the event.
        const { data, isBinary } = head;
        this.afterJournal(() => this.writeClient(data, isBinary));
        if ((this.clientGone || this.stopping) && this.open.size === 0) {
          this.afterJournal(() => this.closeBoth(1001, 'server shutting down'));
        }
        continue;
      }
      this.toClient(head.data, head.isBinary);
    }
  }

  private pumpClient(): void {
    const queue = this.fromClient;
    const { upstream } = this;
    if (this.exhausted) queue.length = 0;
    while (queue.length > 0 && !this.finished) {
      // Nothing goes upstream while no reserve is held: it could start a response nobody pays for.
      if (!this.reservation) {
        this.reserveIfNone();
        return;
      }
      const head = queue.shift()!;
      if (upstream.readyState !== upstream.OPEN) continue;
      upstream.send(head.data, { binary: head.isBinary }, () => this.resumeIfDrained(upstream, this.client));
      if (upstream.bufferedAmount > HIGH_WATER) this.client.pause();
    }
  }

  /**
   * Sends to the client now, or, while writes wait for the end of the turn (a settlement's journal
   * write goes first), behind them so the client's events keep their order.
   */
  private toClient(data: RawData, isBinary: boolean): void {
    if (this.clientOut) {
      this.clientOut.push(() => this.writeClient(data, isBinary));
      return;
    }
    this.writeClient(data, isBinary);
  }

  /** Runs `job` at the end of this turn, after the settlement journal's write, in order with other held writes. */
  private afterJournal(job: () => void): void {
    if (!this.clientOut) {
      const out: (() => void)[] = [];
      this.clientOut = out;
      this.p.s.relay.turnEnd.defer(() => {
        this.clientOut = undefined;
        for (const j of out) j();
      });
    }
    this.clientOut.push(job);
  }

  private writeClient(data: RawData, isBinary: boolean): void {
    const { client, upstream } = this;
    if (this.clientGone || client.readyState !== client.OPEN) return;
    client.send(data, { binary: isBinary }, () => this.resumeIfDrained(client, upstream));
    if (client.bufferedAmount > HIGH_WATER) upstream.pause();
  }

  private resumeIfDrained(written: WebSocket, paused: WebSocket): void {
    if (written.bufferedAmount <= HIGH_WATER / 2 && paused.isPaused) paused.resume();
  }

  /** Reads the events billing needs: response.created and response.done; null for the rest. */
  private inspect(m: Inbound): Inbound['done'] {
    if (m.isBinary) return null;
    const buf = toBuffer(m.data);
    m.data = buf;
    // A quoted type name inside a text delta is escaped (\"), so these only match real event names.
    const created = buf.includes('"response.created"');
    if (!created && !buf.includes('"response.done"')) return null;
    let event: { type?: unknown; response?: unknown };
    try {
      event = JSON.parse(buf.toString('utf8'));
    } catch {
      return null;
    }
    const response =
      typeof event.response === 'object' && event.response !== null
        ? (event.response as Record<string, unknown>)
        : {};
    if (event.type === 'response.created') {
      this.open.set(String(response.id ?? ''), this.p.s.clock.nowMs());
      return null;
    }
    if (event.type !== 'response.done') return null;
    return { response, usage: fromRealtimeUsage(response.usage) };
  }

  /** Takes the next reserve unless one is held or on its way. */
  private reserveIfNone(): void {
    if (this.reservation || this.reserving || this.finished) return;
    const { s, caller } = this.p;
    this.reserving = s.relay.ledger
      .reserve({
        userId: caller.user.id,
        tokenId: caller.token.id,
        tokenUnlimited: caller.token.unlimited_quota === 1,
        amount: this.exhausted ? 0 : this.p.reserveAmount,
      })
      .then(
        (outcome) => {
          this.reserving = undefined;
          if (!outcome.ok) {
            const user = outcome.reason === 'insufficient_user_quota';
            this.exhausted = true;
            this.cut(1008, {
              type: 'insufficient_quota',
              code: outcome.reason,
              message: user ? 'The account has run out of quota' : 'This API key has used up its quota',
            });
            // A response.done already waiting is billed as far as the balances go (the ledger's
            // shortfall rule) against a reserve of nothing.
            if (this.fromUpstream.length > 0) this.reserveIfNone();
            return;
          }
          this.reservation = outcome.reservation;
          this.pumpUpstream();
          this.pumpClient();
        },
        (err: unknown) => {
          this.reserving = undefined;
          this.p.log.error({ err }, 'realtime reserve failed');
          this.cut(1011, {
            type: 'server_error',
            code: 'internal_error',
            message: 'The gateway could not reserve quota',
          });
        },
      );
    s.relay.pending.track(this.reserving);
  }

  /** Bills one response at its reported usage, with its log row; the next reserve follows. */
  private settle(response: Record<string, unknown>, usage: Usage, startedMs: number | undefined): void {
    const { s, caller, selection } = this.p;
    const reservation = this.reservation!;
    this.reservation = undefined;
    this.responses++;
    const breakdown = computeQuota(this.p.price, caller.group.ratio, usage);
    const metadata: Record<string, unknown> = breakdownMetadata(breakdown);
    metadata.group_name = caller.group.symbol;
    metadata.upstream_model = selection.upstreamModel;
    metadata.requested_model = selection.billedModel;
    metadata.estimated = false;
    metadata.realtime_session = this.p.requestId;
    metadata.response_id = String(response.id ?? '');
    metadata.response_status = String(response.status ?? '');
    const nowMs = s.clock.nowMs();
    const began = startedMs ?? nowMs;
    // One relay call per response in the metrics, on the route of the session (status 101).
    s.ops?.metrics?.relay.settled(
      '/v1/realtime',
      selection.billedModel,
      selection.channel.id,
      101,
      nowMs - began,
      nowMs - began,
      this.responses === 1 ? this.p.firstByteMs : 0,
      breakdown.quota,
    );
    const work = s.relay.ledger
      .settle(
        reservation,
        breakdown.quota,
        {
          user_id: caller.user.id,
          created_at: Math.floor(began / 1000),
          type: LogType.Consume,
          content: '',
          username: caller.user.username,
          token_id: caller.token.id,
          token_name: caller.token.name,
          model_name: selection.billedModel,
          prompt_tokens: usage.inputTokens,
          completion_tokens: usage.outputTokens,
          channel_id: selection.channel.id,
          request_time: nowMs - began,
          first_response_time: this.responses === 1 ? this.p.firstByteMs : 0,
          is_stream: 1,
          source_ip: this.p.ip,
          group: caller.group.symbol,
          metadata: JSON.stringify(metadata),
        },
        { recordLog: s.options.current.LogConsumeEnabled },
      )
      .then(
        () => s.relay.quotaReminder.settled(caller.user.id),
        (err: unknown) => this.p.log.error({ err }, 'realtime settlement failed'),
      );
    s.relay.pending.track(work);
    this.reserveIfNone();
  }

  private upstreamClosed(code: number, reason: string): void {
    this.upstreamGone = true;
    const tell = () => {
      const { client } = this;
      if (this.clientGone || client.readyState !== client.OPEN) return;
      if (code === 1000 || (sendableCode(code) && code !== 1011)) {
        client.close(code, reason.slice(0, 120));
        return;
      }
      // Dropped: what a response in progress produced was never reported, so it is not billed.
      client.send(
        JSON.stringify({
          type: 'error',
          event_id: `event_gw_${this.p.requestId}`,
          error: {
            type: 'server_error',
            code: 'upstream_closed',
            message: `The upstream ended the session (${code})`,
            param: null,
            event_id: null,
          },
        }),
      );
      client.close(1011, 'upstream closed');
    };
    // After the events already on their way to the client.
    if (this.clientOut) this.clientOut.push(tell);
    else tell();
    this.maybeFinish();
  }

  private clientClosed(): void {
    this.clientGone = true;
    const { upstream } = this;
    if (upstream.isPaused) upstream.resume();
    if (this.upstreamGone) {
      this.maybeFinish();
      return;
    }
    // A response in progress is read to its end, bounded, so it is billed as the upstream reports it.
    if (this.open.size === 0) upstream.close(1000, 'client left');
    else {
      this.drainTimer = setTimeout(() => upstream.terminate(), REALTIME_DRAIN_MS);
      this.drainTimer.unref();
    }
    this.maybeFinish();
  }

  private maybeFinish(): void {
    if (this.finished) return;
    // A side closes on its own too (a cut, a terminate): its close event may still be on its way.
    if (this.client.readyState === this.client.CLOSED) this.clientGone = true;
    if (this.upstream.readyState === this.upstream.CLOSED) this.upstreamGone = true;
    if (!this.clientGone || !this.upstreamGone) return;
    if (this.reserving) {
      // A response.done waiting for this reserve is still billed; then the reserve goes back.
      void this.reserving.then(() => this.maybeFinish());
      return;
    }
    this.finished = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    const { s } = this.p;
    const left = this.reservation;
    this.reservation = undefined;
    const release = left
      ? s.relay.ledger.release(left).then(
          () => {},
          (err: unknown) => this.p.log.error({ err }, 'realtime release failed'),
        )
      : Promise.resolve();
    void release.then(() => this.endResolve());
  }
}
