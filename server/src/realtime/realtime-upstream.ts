import type { IncomingMessage } from 'node:http';
import type net from 'node:net';
import { type RawData, WebSocket } from 'ws';
import type { SocketConnector } from '../outbound/socket-connector.js';
import { parseUpstreamError, type UpstreamError } from '../providers/openai/errors.js';
import { UpstreamAddresses } from '../providers/openai/request.js';
import type { ChannelAccess } from '../relay/channels/channel-transports.js';
import { describeTransportFailure } from '../relay/transport/transport.js';

// The upstream side of a Realtime session: `wss://<channel API root>/realtime?model=<upstream model>`
// with the channel's key as a Bearer token, over a socket made under the channel's route (proxy, CA,
// address policy). Opened before the client's upgrade is answered, so a refusal reaches the client
// as an HTTP error and another channel can still be tried.

const MAX_ERROR_BODY_BYTES = 64 * 1024;
const DEFAULT_CONNECT_MS = 10_000;

/** An upstream that did not open: its error as the relay reads upstream errors. */
export class RealtimeUpstreamFailure extends Error {
  constructor(
    readonly error: UpstreamError,
    /** No answer at all (connect, TLS, timeout): a transport failure. */
    readonly transport: boolean,
  ) {
    super(error.message);
  }
}

export interface UpstreamOpenRequest {
  channel: ChannelAccess;
  upstreamModel: string;
  /** `OpenAI-Beta: realtime=v1` when the client asked for the beta protocol. */
  beta: boolean;
  maxMessageBytes: number;
  connector: SocketConnector;
  /** Aborts the opening (the client left). */
  signal: AbortSignal;
}

/** The upstream's WebSocket URL for a channel, or the channel's configuration error. */
export function realtimeUrl(channel: ChannelAccess, upstreamModel: string): { url: URL; key: string } {
  const addresses =
    channel.addresses?.channel === channel ? channel.addresses : new UpstreamAddresses(channel);
  const { root, key } = addresses.root();
  const url = new URL(root.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/realtime`;
  url.searchParams.set('model', upstreamModel);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return { url, key };
}

function headersFor(channel: ChannelAccess, key: string, beta: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  // The channel's own headers first: the key and the protocol headers are the gateway's.
  for (const [name, value] of Object.entries(channel.headers ?? {})) headers[name.toLowerCase()] = value;
  if (key) headers.authorization = `Bearer ${key}`;
  if (beta) headers['openai-beta'] = 'realtime=v1';
  return headers;
}

function readBody(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_ERROR_BODY_BYTES) chunks.push(chunk);
      else res.destroy();
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('close', () => resolve(Buffer.concat(chunks)));
    res.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

/**
 * An upstream socket just opened. Its first events (session.created) may come before the session
 * that relays them is set up: they are kept until `handOver`.
 */
export class OpenedUpstream {
  private early: Array<[RawData, boolean]> | undefined = [];
  private readonly keep = (data: RawData, isBinary: boolean) => this.early?.push([data, isBinary]);

  constructor(readonly ws: WebSocket) {
    ws.on('message', this.keep);
    // An error before the session listens must not be an unhandled 'error' event.
    ws.on('error', () => {});
  }

  /** From now on `onMessage` gets every event, the kept ones first. */
  handOver(onMessage: (data: RawData, isBinary: boolean) => void): void {
    this.ws.off('message', this.keep);
    const early = this.early ?? [];
    this.early = undefined;
    this.ws.on('message', onMessage);
    for (const [data, isBinary] of early) onMessage(data, isBinary);
  }
}

/** Opens the upstream session; resolves with the open socket or rejects with RealtimeUpstreamFailure. */
export function openRealtimeUpstream(r: UpstreamOpenRequest): Promise<OpenedUpstream> {
  return new Promise((resolve, reject) => {
    let target: { url: URL; key: string };
    try {
      target = realtimeUrl(r.channel, r.upstreamModel);
    } catch (err) {
      reject(
        new RealtimeUpstreamFailure(
          {
            status: 500,
            message: (err as Error).message,
            type: 'channel_config_error',
            code: null,
            param: null,
          },
          false,
        ),
      );
      return;
    }
    const { url, key } = target;
    const secure = url.protocol === 'wss:';
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = Number(url.port) || (secure ? 443 : 80);
    const route = { proxy: r.channel.connection?.proxy, ca: r.channel.connection?.ca };
    const createConnection = (_opts: unknown, done: (err: Error | null, socket?: net.Socket) => void) => {
      r.connector.connect({ host, port, secure }, route, done);
      return undefined;
    };
    const ws = new WebSocket(url, {
      headers: headersFor(r.channel, key, r.beta),
      // A socket made under the channel's route; for wss its TLS is done by the connector.
      createConnection: createConnection as unknown as typeof net.createConnection,
      maxPayload: r.maxMessageBytes,
      perMessageDeflate: false,
      followRedirects: false,
    });
    let settled = false;
    // The whole opening, connection and handshake, within the connect timeout: ws's own handshake
    // timeout never fires on a socket handed over by createConnection's callback.
    const openMs = r.channel.connection?.timeouts?.connectMs ?? DEFAULT_CONNECT_MS;
    const timer = setTimeout(() => {
      fail(
        new RealtimeUpstreamFailure(
          {
            status: 0,
            message: `The upstream did not open the session within ${openMs} ms`,
            type: 'upstream_error',
            code: 'upstream_timeout',
            param: null,
          },
          true,
        ),
      );
    }, openMs);
    timer.unref();
    const fail = (failure: RealtimeUpstreamFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      r.signal.removeEventListener('abort', onAbort);
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
      reject(failure);
    };
    const onAbort = () =>
      fail(
        new RealtimeUpstreamFailure(
          { status: 499, message: 'The client left', type: 'client_closed', code: null, param: null },
          false,
        ),
      );
    r.signal.addEventListener('abort', onAbort);
    ws.once('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 502;
      void readBody(res).then((body) =>
        fail(
          new RealtimeUpstreamFailure(
            parseUpstreamError(status, body, String(res.headers['content-type'] ?? '')),
            false,
          ),
        ),
      );
    });
    ws.once('error', (err) => {
      const what = describeTransportFailure(err);
      fail(
        new RealtimeUpstreamFailure(
          { status: 0, message: what.message, type: 'upstream_error', code: what.code, param: null },
          true,
        ),
      );
    });
    ws.once('open', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      r.signal.removeEventListener('abort', onAbort);
      ws.removeAllListeners('error');
      ws.removeAllListeners('unexpected-response');
      resolve(new OpenedUpstream(ws));
    });
  });
}
