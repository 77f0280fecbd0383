import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';

// Connections that go silent are closed; one address cannot hold more than its share. The Fastify
// routes and the relay's hot path share this one Node server, so both get the same rules.

export interface ConnectionLimits {
  /** Until the whole header block has arrived (also a connection that sends nothing at all). */
  headersTimeoutMs: number;
  /** Until the whole request, body included, has arrived (uploads: raise it for slow links). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection between two requests. */
  keepAliveTimeoutMs: number;
  /**
   * A connection on which nothing moved for this long while a reply was being written: a client
   * that stopped reading. A reply still waiting for its upstream is not cut (the relay's own
   * upstream timeouts govern that), and a stream that keeps sending is never idle. 0 = off.
   */
  idleTimeoutMs: number;
  /** Open connections per client address; trusted proxies are exempt. 0 = no cap. */
  maxConnectionsPerIp: number;
  trustedProxies: readonly string[];
}

/** Replies being written on each socket (a keep-alive socket carries one at a time; pipelining more). */
const inFlight = new WeakMap<Socket, number>();

/** Call for every request the server takes: the idle rule keeps sockets with a reply pending. */
export function markReply(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket;
  inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
  res.once('close', () => inFlight.set(socket, Math.max(0, (inFlight.get(socket) ?? 1) - 1)));
}

/**
 * Options for `http.createServer`: Node checks the header and request deadlines on this period
 * (its default, 30 s, would let a silent socket live well past a short timeout).
 */
export function serverOptions(limits: ConnectionLimits): { connectionsCheckingInterval: number } {
  const shortest = Math.min(limits.headersTimeoutMs || 30_000, limits.requestTimeoutMs || 30_000);
  return { connectionsCheckingInterval: Math.max(250, Math.min(30_000, Math.floor(shortest / 4))) };
}

export function guardConnections(server: Server, limits: ConnectionLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  if (limits.idleTimeoutMs > 0) {
    server.setTimeout(limits.idleTimeoutMs, (socket: Socket) => {
      const pending = inFlight.get(socket) ?? 0;
      // Bytes queued that the client is not taking, or no reply at all: the connection is dead weight.
      if (pending === 0 || socket.writableLength > 0) socket.destroy();
    });
  }

  if (limits.maxConnectionsPerIp > 0) {
    const trust =
      limits.trustedProxies.length > 0 ? proxyAddr.compile([...limits.trustedProxies]) : undefined;
    const open = new Map<string, number>();
    // A socket handed back to the server after an upgrade request (realtime-gateway.ts) counts once.
    const counted = new WeakSet<Socket>();
    server.on('connection', (socket: Socket) => {
      const ip = socket.remoteAddress ?? '';
      if (trust?.(ip, 0) || counted.has(socket)) return;
      counted.add(socket);
      const count = (open.get(ip) ?? 0) + 1;
      if (count > limits.maxConnectionsPerIp) {
        socket.destroy();
        return;
      }
      open.set(ip, count);
      socket.once('close', () => {
        const left = (open.get(ip) ?? 1) - 1;
        if (left <= 0) open.delete(ip);
        else open.set(ip, left);
      });
    });
  }
}
