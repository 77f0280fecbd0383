import net from 'node:net';
import tls from 'node:tls';
import { SocksClient } from 'socks';
import { Agent, buildConnector, Dispatcher, ProxyAgent } from 'undici';
import type { AddressPolicy } from './address-policy.js';

// Every undici connection the gateway opens to the outside world: direct (under the address
// policy), with a channel's private CA, or through a channel's proxy (http://, https://: CONNECT
// for https upstreams and absolute-form for http ones; socks5://: the proxy resolves the name).
// The relay's own client (relay/transport/http1-upstream.ts) carries the forwarded calls of channels with
// no proxy; everything else comes here.

/** How one channel reaches its upstream. */
export interface OutboundRoute {
  /** `http://`, `https://` or `socks5://` URL (user:password in it authenticates to the proxy). */
  proxy?: string | undefined;
  /** A PEM CA certificate trusted besides Node's bundled roots. */
  ca?: string | undefined;
}

/** A channel's proxy setting the gateway cannot use. */
export class ProxySettingError extends Error {
  readonly code = 'ERR_OUTBOUND_PROXY';
}

export interface OutboundAgentOptions {
  /** Connection limits of the direct pools (undici Agent options). */
  agent?: Agent.Options;
  /** Wait for a connection (TCP, TLS, proxy handshake), ms. Default 10 s. */
  connectTimeoutMs?: number;
}

type DispatchOptions = Dispatcher.DispatchOptions & { ca?: string; proxy?: string };

export class OutboundAgent extends Dispatcher {
  private readonly direct: Agent;
  /** One dispatcher per proxy and CA a channel uses, kept for its keep-alive pools. */
  private readonly routes = new Map<string, Dispatcher>();
  private readonly timeout: number;

  constructor(
    readonly policy: AddressPolicy,
    private readonly options: OutboundAgentOptions = {},
  ) {
    super();
    this.timeout = options.connectTimeoutMs ?? 10_000;
    this.direct = new Agent({ ...options.agent, connect: this.checked(undefined) });
  }

  /** The dispatcher for a channel's route; the direct one when it sets neither proxy nor CA. */
  for(route?: OutboundRoute): Dispatcher {
    const proxy = route?.proxy?.trim() || '';
    const ca = route?.ca?.trim() ? route.ca : undefined;
    if (!proxy && ca === undefined) return this.direct;
    const key = `${proxy}\n${ca ?? ''}`;
    let d = this.routes.get(key);
    if (!d) {
      try {
        d = proxy ? this.proxied(proxy, ca) : new Agent({ ...this.options.agent, connect: this.checked(ca) });
      } catch (err) {
        // A proxy that cannot be used fails each call with the reason, like a refused connection.
        d = new FailingDispatcher(err as Error);
      }
      this.routes.set(key, d);
    }
    return d;
  }

  /** Reads the call's `proxy` and `ca` (relay/transport/upstream-dispatch.ts puts a channel's there). */
  override dispatch(opts: DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const { ca, proxy, ...rest } = opts;
    const target = this.for({ ca, proxy });
    if (proxy) {
      try {
        this.checkTargetThroughProxy(String(rest.origin ?? ''));
      } catch (err) {
        return failDispatch(handler, err as Error);
      }
    }
    return target.dispatch(rest, handler);
  }

  override async close(): Promise<void> {
    await Promise.all([this.direct.close(), ...[...this.routes.values()].map((d) => d.close())]);
  }

  override async destroy(): Promise<void> {
    await Promise.all([this.direct.destroy(), ...[...this.routes.values()].map((d) => d.destroy())]);
  }

  /** A connector that refuses IP literals and metadata names first, then resolves under the policy. */
  private checked(ca: string | undefined): buildConnector.connector {
    const base = buildConnector({
      lookup: this.policy.lookup,
      timeout: this.timeout,
      ...(ca === undefined ? {} : { ca: [...tls.rootCertificates, ca] }),
    } as buildConnector.BuildOptions);
    return (opts, callback) => {
      const refused = this.policy.refusalBeforeLookup(opts.hostname);
      if (refused) {
        callback(refused, null);
        return;
      }
      base(opts, callback);
    };
  }

  /**
   * Through a proxy the upstream's name is resolved by the proxy, out of the policy's sight; what
   * can be judged here is an upstream given as an IP literal or a metadata host name.
   */
  private checkTargetThroughProxy(origin: string): void {
    let host: string;
    try {
      host = new URL(origin).hostname;
    } catch {
      return;
    }
    this.policy.assertHost(host);
  }

  private proxied(proxy: string, ca: string | undefined): Dispatcher {
    let url: URL;
    try {
      url = new URL(proxy);
    } catch {
      throw new ProxySettingError(`The channel's proxy "${redact(proxy)}" is not a URL`);
    }
    const protocol = url.protocol;
    // The proxy's own address is under the policy: an IP literal now, a name at each connection.
    this.policy.assertHost(url.hostname);
    const requestTls = ca === undefined ? {} : { ca: [...tls.rootCertificates, ca] };
    if (protocol === 'http:' || protocol === 'https:') {
      return new ProxyAgent({
        ...this.options.agent,
        uri: proxy,
        // Absolute-form requests for http upstreams; CONNECT tunnels for https ones.
        proxyTunnel: false,
        proxyTls: { lookup: this.policy.lookup, timeout: this.timeout } as buildConnector.BuildOptions,
        requestTls,
      });
    }
    if (protocol === 'socks5:' || protocol === 'socks5h:' || protocol === 'socks:') {
      return new Agent({ ...this.options.agent, connect: this.socksConnector(url, ca) });
    }
    throw new ProxySettingError(
      `The channel's proxy "${redact(proxy)}" uses ${protocol}; use http://, https:// or socks5://`,
    );
  }

  /** SOCKS5 with the upstream's name sent to the proxy (remote DNS), then TLS for https upstreams. */
  private socksConnector(proxy: URL, ca: string | undefined): buildConnector.connector {
    const proxyHost = proxy.hostname.startsWith('[') ? proxy.hostname.slice(1, -1) : proxy.hostname;
    const proxyPort = Number(proxy.port) || 1080;
    const userId = proxy.username ? decodeURIComponent(proxy.username) : undefined;
    const password = proxy.password ? decodeURIComponent(proxy.password) : undefined;
    return (opts, callback) => {
      let done = false;
      const finish = (err: Error | null, socket: net.Socket | tls.TLSSocket | null) => {
        if (done) {
          socket?.destroy();
          return;
        }
        done = true;
        clearTimeout(timer);
        if (err) callback(err, null);
        else callback(null, socket as net.Socket);
      };
      const timer = setTimeout(() => {
        raw.destroy();
        const err = Object.assign(
          new Error(`Connect Timeout Error (through the SOCKS proxy ${proxyHost}:${proxyPort})`),
          {
            code: 'UND_ERR_CONNECT_TIMEOUT',
          },
        );
        finish(err, null);
      }, this.timeout);
      timer.unref();
      const raw = net.connect({ host: proxyHost, port: proxyPort, lookup: this.policy.lookup });
      raw.once('error', (err) => finish(err, null));
      const https = opts.protocol === 'https:';
      const port = Number(opts.port) || (https ? 443 : 80);
      raw.once('connect', () => {
        SocksClient.createConnection({
          command: 'connect',
          proxy: { host: proxyHost, port: proxyPort, type: 5, userId, password },
          destination: { host: opts.hostname, port },
          existing_socket: raw,
        }).then(
          ({ socket }) => {
            if (!https) {
              finish(null, socket);
              return;
            }
            const secure = tls.connect({
              socket,
              servername: net.isIP(opts.hostname) ? undefined : (opts.servername ?? opts.hostname),
              ALPNProtocols: ['http/1.1'],
              ...(ca === undefined ? {} : { ca: [...tls.rootCertificates, ca] }),
            });
            secure.once('secureConnect', () => finish(null, secure));
            secure.once('error', (err) => finish(err, null));
          },
          (err: Error) => {
            raw.destroy();
            finish(err, null);
          },
        );
      });
    };
  }
}

/** Fails every call with the reason its route cannot be used. */
class FailingDispatcher extends Dispatcher {
  constructor(private readonly reason: Error) {
    super();
  }
  override dispatch(_opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return failDispatch(handler, this.reason);
  }
  override async close(): Promise<void> {}
  override async destroy(): Promise<void> {}
}

/** A proxy URL with its password hidden, for messages. */
function redact(proxy: string): string {
  return proxy.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

function failDispatch(handler: Dispatcher.DispatchHandler, err: Error): boolean {
  const h = handler as Dispatcher.DispatchHandler & { onError?: (err: Error) => void };
  // Both handler shapes undici knows: the controller one and the legacy one of `request()`.
  if (typeof h.onResponseError === 'function') h.onResponseError(null as never, err);
  else h.onError?.(err);
  return false;
}
