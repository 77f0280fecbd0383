import net from 'node:net';
import tls from 'node:tls';
import { SocksClient } from 'socks';
import { Client } from 'undici';
import type { AddressPolicy } from './address-policy.js';
import { type OutboundRoute, ProxySettingError } from './outbound-agent.js';

// A raw TCP or TLS socket to an upstream under a channel's route, for the connections that are not
// HTTP requests undici can carry (the Realtime API's WebSocket): direct under the address policy,
// with the channel's CA, or through its proxy (http(s)://: a CONNECT tunnel; socks5://: the proxy
// resolves the name). The same rules as outbound-agent.ts.

export interface SocketTarget {
  host: string;
  port: number;
  /** TLS to the upstream (wss://, https://). */
  secure: boolean;
}

export type SocketCallback = (err: Error | null, socket?: net.Socket) => void;

/** Where an upstream socket came from, for `connectSocket`'s callers and tests. */
export class SocketConnector {
  constructor(
    private readonly policy: AddressPolicy,
    private readonly timeoutMs = 10_000,
  ) {}

  /** Opens a socket to `target` under `route`; `callback` gets it once connected (TLS done), or the error. */
  connect(target: SocketTarget, route: OutboundRoute | undefined, callback: SocketCallback): void {
    let done = false;
    let pending: net.Socket | undefined;
    const finish = (err: Error | null, socket?: net.Socket) => {
      if (done) {
        socket?.destroy();
        return;
      }
      done = true;
      clearTimeout(timer);
      if (err) {
        pending?.destroy();
        callback(err);
      } else callback(null, socket);
    };
    const timer = setTimeout(() => {
      finish(
        Object.assign(new Error(`Connect Timeout Error (${target.host}:${target.port})`), {
          code: 'UND_ERR_CONNECT_TIMEOUT',
        }),
      );
    }, this.timeoutMs);
    timer.unref();
    const ca = route?.ca?.trim() ? [...tls.rootCertificates, route.ca] : undefined;
    const proxy = route?.proxy?.trim() ?? '';
    try {
      // An upstream named by an IP literal or a metadata name is judged here; through a proxy the
      // proxy resolves the rest, out of the policy's sight.
      this.policy.assertHost(target.host);
      if (!proxy) {
        pending = this.direct(target, ca, finish);
        return;
      }
      let url: URL;
      try {
        url = new URL(proxy);
      } catch {
        throw new ProxySettingError("The channel's proxy is not a URL");
      }
      this.policy.assertHost(url.hostname);
      if (url.protocol === 'http:' || url.protocol === 'https:') this.tunnel(url, target, ca, finish);
      else if (url.protocol === 'socks5:' || url.protocol === 'socks5h:' || url.protocol === 'socks:')
        pending = this.socks(url, target, ca, finish);
      else
        throw new ProxySettingError(
          `The channel's proxy uses ${url.protocol}; use http://, https:// or socks5://`,
        );
    } catch (err) {
      finish(err as Error);
    }
  }

  private direct(target: SocketTarget, ca: string[] | undefined, finish: SocketCallback): net.Socket {
    const { host, port } = target;
    if (target.secure) {
      const socket = tls.connect({
        host,
        port,
        servername: net.isIP(host) ? undefined : host,
        lookup: this.policy.lookup,
        ALPNProtocols: ['http/1.1'],
        ...(ca ? { ca } : {}),
      });
      socket.once('secureConnect', () => finish(null, socket));
      socket.once('error', (err) => finish(err));
      return socket;
    }
    const socket = net.connect({ host, port, lookup: this.policy.lookup });
    socket.once('connect', () => finish(null, socket));
    socket.once('error', (err) => finish(err));
    return socket;
  }

  /** TLS over a tunnel's socket when the upstream is secure. */
  private overTunnel(
    socket: net.Socket,
    target: SocketTarget,
    ca: string[] | undefined,
    finish: SocketCallback,
  ): void {
    if (!target.secure) {
      finish(null, socket);
      return;
    }
    const secure = tls.connect({
      socket,
      servername: net.isIP(target.host) ? undefined : target.host,
      ALPNProtocols: ['http/1.1'],
      ...(ca ? { ca } : {}),
    });
    secure.once('secureConnect', () => finish(null, secure));
    secure.once('error', (err) => {
      socket.destroy();
      finish(err);
    });
  }

  private tunnel(proxy: URL, target: SocketTarget, ca: string[] | undefined, finish: SocketCallback): void {
    const client = new Client(proxy.origin, {
      connect: { lookup: this.policy.lookup, timeout: this.timeoutMs } as Client.Options['connect'],
    });
    const authority = `${net.isIPv6(target.host) ? `[${target.host}]` : target.host}:${target.port}`;
    const headers: Record<string, string> = { host: authority };
    if (proxy.username) {
      const user = decodeURIComponent(proxy.username);
      const password = decodeURIComponent(proxy.password);
      headers['proxy-authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    }
    client.connect({ path: authority, headers }).then(
      ({ statusCode, socket }) => {
        // The tunnel's socket is the caller's now; the client that made it is done.
        void client.close().catch(() => {});
        if (statusCode !== 200) {
          socket.destroy();
          finish(new Error(`The proxy refused the tunnel to ${authority}: ${statusCode}`));
          return;
        }
        this.overTunnel(socket as net.Socket, target, ca, finish);
      },
      (err: Error) => {
        void client.destroy().catch(() => {});
        finish(err);
      },
    );
  }

  private socks(
    proxy: URL,
    target: SocketTarget,
    ca: string[] | undefined,
    finish: SocketCallback,
  ): net.Socket {
    const host = proxy.hostname.startsWith('[') ? proxy.hostname.slice(1, -1) : proxy.hostname;
    const port = Number(proxy.port) || 1080;
    const userId = proxy.username ? decodeURIComponent(proxy.username) : undefined;
    const password = proxy.password ? decodeURIComponent(proxy.password) : undefined;
    // The proxy's own address goes through the policy's lookup; the upstream's name is resolved by it.
    const raw = net.connect({ host, port, lookup: this.policy.lookup });
    raw.once('error', (err) => finish(err));
    raw.once('connect', () => {
      SocksClient.createConnection({
        command: 'connect',
        proxy: { host, port, type: 5, userId, password },
        destination: { host: target.host, port: target.port },
        existing_socket: raw,
      }).then(
        ({ socket }) => this.overTunnel(socket, target, ca, finish),
        (err: Error) => finish(err),
      );
    });
    return raw;
  }
}
