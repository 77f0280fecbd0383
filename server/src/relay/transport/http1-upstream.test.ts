import { readFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { Agent } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Http1Upstream, type Http1UpstreamOptions } from './http1-upstream.js';
import { TurnEnd } from './turn-end.js';
import { CallCancel, sendUpstream, type UpstreamRequestOptions } from './upstream-dispatch.js';

const cert = readFileSync(new URL('../testdata/localhost-cert.pem', import.meta.url));
const key = readFileSync(new URL('../testdata/localhost-key.pem', import.meta.url));

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket: net.Socket;
}

/** A real HTTP server that records each request and answers through `answer`. */
async function upstream(
  answer: (req: IncomingMessage, res: ServerResponse, body: string) => void,
  secure = false,
): Promise<{ origin: string; seen: Seen[]; sockets: Set<net.Socket>; server: http.Server }> {
  const seen: Seen[] = [];
  const sockets = new Set<net.Socket>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        socket: req.socket,
      });
      answer(req, res, body);
    });
  };
  const server = secure ? https.createServer({ cert, key }, handler) : http.createServer(handler);
  const port = await listen(server, sockets, secure ? 'secureConnection' : 'connection');
  return { origin: `${secure ? 'https' : 'http'}://127.0.0.1:${port}`, seen, sockets, server };
}

/** A TCP server that hands each connection to `onSocket` as it is: for replies no HTTP server sends. */
async function rawUpstream(onSocket: (s: net.Socket) => void): Promise<string> {
  const server = net.createServer(onSocket);
  return `http://127.0.0.1:${await listen(server, new Set(), 'connection')}`;
}

/**
 * Listens on a free port, keeping the open connections (as `event` gives them) in `sockets`; the
 * test's cleanup destroys them and closes the server. Returns the port.
 */
async function listen(
  server: net.Server,
  sockets: Set<net.Socket>,
  event: 'connection' | 'secureConnection',
): Promise<number> {
  server.on(event, (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(r);
      }),
  );
  return (server.address() as AddressInfo).port;
}

function client(options: Partial<Http1UpstreamOptions> = {}): Http1Upstream {
  const fallback = new Agent();
  // A held write that throws is a test failure: rethrown, it is an uncaught error.
  const turnEnd = new TurnEnd((err) => {
    throw err;
  });
  const c = new Http1Upstream({ fallback, sweepMs: 20, turnEnd, ...options });
  cleanups.push(async () => {
    await c.close();
    await fallback.close();
  });
  return c;
}

function post(
  origin: string,
  body: string | Buffer = '{"model":"m"}',
  headers: Record<string, string> = {},
): UpstreamRequestOptions {
  return {
    origin,
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Http1Upstream', () => {
  it('writes the request as given, frames it itself, and carries the next call on the same connection', async () => {
    const up = await upstream((_req, res, body) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ echo: body }));
    });
    const c = client();
    const body = Buffer.from('{"model":"gpt","messages":[{"role":"user","content":"héllo"}]}');
    const first = await sendUpstream(
      c,
      post(up.origin, body, { authorization: 'Bearer sk-1', 'Content-Length': '3', connection: 'close' }),
    );
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('application/json');
    expect(JSON.parse((await first.body.whole()).toString())).toEqual({ echo: body.toString() });
    const second = await sendUpstream(c, post(up.origin, 'x'));
    expect((await second.body.whole()).toString()).toBe('{"echo":"x"}');

    expect(up.seen.map((s) => [s.method, s.url])).toEqual([
      ['POST', '/v1/chat/completions'],
      ['POST', '/v1/chat/completions'],
    ]);
    const h = up.seen[0]?.headers;
    expect(h?.host).toBe(up.origin.slice('http://'.length));
    expect(h?.authorization).toBe('Bearer sk-1');
    expect(h?.['content-length']).toBe(String(body.length));
    expect(h?.connection).toBeUndefined();
    expect(up.seen[0]?.socket).toBe(up.seen[1]?.socket);
    expect(c.connections.size).toBe(1);
  });

  it('opens one connection per call in flight and keeps them all', async () => {
    const up = await upstream((_req, res) => setTimeout(() => res.end('ok'), 30));
    const c = client();
    const replies = await Promise.all([1, 2, 3].map(() => sendUpstream(c, post(up.origin))));
    expect(await Promise.all(replies.map(async (r) => (await r.body.whole()).toString()))).toEqual([
      'ok',
      'ok',
      'ok',
    ]);
    expect(up.sockets.size).toBe(3);
    await Promise.all([1, 2, 3].map(async () => (await sendUpstream(c, post(up.origin))).body.whole()));
    expect(up.sockets.size).toBe(3);
  });

  it('holds the requests written in one turn of the event loop and sends them together when it ends', async () => {
    const up = await upstream((_req, res, body) => res.end(`got ${body}`));
    const c = client();
    await Promise.all([1, 2, 3].map(async () => (await sendUpstream(c, post(up.origin))).body.whole()));
    const uncork = vi.spyOn(net.Socket.prototype, 'uncork');
    cleanups.push(() => uncork.mockRestore());
    const replies = ['a', 'b', 'c'].map((body) => sendUpstream(c, post(up.origin, body)));
    expect(uncork).not.toHaveBeenCalled();
    await new Promise((r) => setImmediate(r));
    expect(uncork).toHaveBeenCalledTimes(3);
    const bodies = await Promise.all(replies.map(async (r) => (await (await r).body.whole()).toString()));
    expect(bodies).toEqual(['got a', 'got b', 'got c']);
    expect(up.sockets.size).toBe(3);
  });

  it('streams a chunked reply piece by piece, holding the upstream while paused', async () => {
    let release: () => void = () => {};
    const up = await upstream((req, res) => {
      if (req.url === '/again') {
        res.end('ok');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      release = () => {
        res.write('data: 2\n\n');
        res.end('data: [DONE]\n\n');
      };
    });
    const c = client({ bodyTimeoutMs: 100 });
    const reply = await sendUpstream(c, post(up.origin));
    expect(reply.headers['transfer-encoding']).toBe('chunked');
    const got: string[] = [];
    const done = reply.body.each({ data: (chunk) => got.push(chunk.toString()) });
    await sleep(20);
    expect(got).toEqual(['data: 1\n\n']);
    // Paused longer than the body timeout: a pause is the gateway's own, not a stalled upstream.
    reply.body.pause();
    await sleep(250);
    release();
    reply.body.resume();
    await done;
    expect(got.join('')).toBe('data: 1\n\ndata: 2\n\ndata: [DONE]\n\n');
    // The connection is kept for the next call.
    const again = await sendUpstream(c, { ...post(up.origin), path: '/again' });
    expect((await again.body.whole()).toString()).toBe('ok');
    expect(up.seen[0]?.socket).toBe(up.seen[1]?.socket);
  });

  it('does not reuse a connection the reply closes or that carried more than the reply', async () => {
    const up = await upstream((_req, res) => {
      res.setHeader('connection', 'close');
      res.end('bye');
    });
    const c = client();
    expect((await (await sendUpstream(c, post(up.origin))).body.whole()).toString()).toBe('bye');
    expect((await (await sendUpstream(c, post(up.origin))).body.whole()).toString()).toBe('bye');
    expect(up.seen[0]?.socket).not.toBe(up.seen[1]?.socket);

    let connections = 0;
    const raw = await rawUpstream((s) => {
      connections++;
      s.once('data', () =>
        s.write('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb'),
      );
    });
    expect((await (await sendUpstream(c, post(raw))).body.whole()).toString()).toBe('a');
    expect((await (await sendUpstream(c, post(raw))).body.whole()).toString()).toBe('a');
    expect(connections).toBe(2);
  });

  it('reads a body that runs to the end of the connection', async () => {
    const raw = await rawUpstream((s) => {
      s.once('data', () => {
        s.write('HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\n');
        setTimeout(() => s.end('data: 2\n\n'), 10);
      });
    });
    const c = client();
    const reply = await sendUpstream(c, post(raw));
    expect((await reply.body.whole()).toString()).toBe('data: 1\n\ndata: 2\n\n');
    await sleep(20);
    expect(c.connections.size).toBe(0);
  });

  it('closes idle connections after the keep-alive time, and after the upstream closed them', async () => {
    const up = await upstream((_req, res) => res.end('ok'));
    const c = client({ keepAliveMs: 100 });
    await (await sendUpstream(c, post(up.origin))).body.whole();
    expect(up.sockets.size).toBe(1);
    // Polled, not slept: on a loaded machine the sweep may run late, but it must run.
    const closed = { timeout: 5000, interval: 10 };
    await vi.waitFor(() => expect(up.sockets.size).toBe(0), closed);
    expect(c.connections.size).toBe(0);

    // The upstream drops idle connections itself after 50 ms: the next call takes a new one.
    up.server.keepAliveTimeout = 50;
    await (await sendUpstream(c, post(up.origin))).body.whole();
    await vi.waitFor(() => expect(c.connections.size).toBe(0), closed);
    expect((await (await sendUpstream(c, post(up.origin))).body.whole()).toString()).toBe('ok');
  });

  it("keeps idle connections no longer than the upstream's Keep-Alive timeout allows, less a second", async () => {
    const up = await upstream((_req, res) => {
      res.setHeader('keep-alive', 'timeout=2');
      res.end('ok');
    });
    up.server.keepAliveTimeout = 10_000;
    const c = client();
    await (await sendUpstream(c, post(up.origin))).body.whole();
    await sleep(700);
    expect(c.connections.size).toBe(1);
    await sleep(500);
    expect(c.connections.size).toBe(0);
  });

  it('fails a call whose reply head does not come in time', async () => {
    const raw = await rawUpstream(() => {});
    const c = client({ headersTimeoutMs: 100 });
    await expect(sendUpstream(c, post(raw))).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(c.connections.size).toBe(0);
  });

  it('fails a reply whose body stalls', async () => {
    const raw = await rawUpstream((s) =>
      s.once('data', () => s.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')),
    );
    const c = client({ bodyTimeoutMs: 100 });
    const reply = await sendUpstream(c, post(raw));
    await expect(reply.body.whole()).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
  });

  it('reports an upstream that refuses the connection, cuts a reply short or breaks HTTP', async () => {
    const c = client();
    const closed = await rawUpstream(() => {});
    const port = Number(new URL(closed).port);
    await cleanups.pop()?.();
    await expect(sendUpstream(c, post(`http://127.0.0.1:${port}`))).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });

    const short = await rawUpstream((s) =>
      s.once('data', () => s.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')),
    );
    const reply = await sendUpstream(c, post(short));
    await expect(reply.body.whole()).rejects.toThrow('the connection closed before the reply ended');

    const silent = await rawUpstream((s) => s.once('data', () => s.end()));
    await expect(sendUpstream(c, post(silent))).rejects.toThrow('no reply');

    const broken = await rawUpstream((s) => s.once('data', () => s.write('SSH-2.0-OpenSSH\r\n\r\n')));
    await expect(sendUpstream(c, post(broken))).rejects.toMatchObject({ code: 'UND_ERR_RESPONSE' });
    expect(c.connections.size).toBe(0);
  });

  it('drops the connection when the gateway stops reading a reply', async () => {
    const up = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
    });
    const c = client();
    const reply = await sendUpstream(c, post(up.origin));
    const read = reply.body.each({ data: () => reply.body.cancel() });
    await read;
    await sleep(30);
    expect(up.sockets.size).toBe(0);
    expect(c.connections.size).toBe(0);
  });

  it('refuses a header or path that would split the request, and writes nothing', async () => {
    const up = await upstream((_req, res) => res.end('ok'));
    const c = client();
    await expect(sendUpstream(c, post(up.origin, 'x', { 'x-evil': 'a\r\nx-injected: 1' }))).rejects.toThrow(
      'invalid value for header x-evil',
    );
    await expect(sendUpstream(c, post(up.origin, 'x', { 'bad name': 'v' }))).rejects.toThrow(
      'invalid header name',
    );
    await expect(sendUpstream(c, { ...post(up.origin), path: '/v1 HTTP/1.1\r\nx: y' })).rejects.toThrow(
      'invalid request path',
    );
    await sleep(20);
    expect(up.seen).toEqual([]);
    expect(c.connections.size).toBe(0);
  });

  it('hands a streamed upload to the fallback dispatcher', async () => {
    const up = await upstream((_req, res, body) => res.end(`got ${body}`));
    const c = client();
    const reply = await sendUpstream(c, {
      ...post(up.origin),
      body: Readable.from([Buffer.from('part1,'), Buffer.from('part2')]),
    });
    expect((await reply.body.whole()).toString()).toBe('got part1,part2');
    expect(up.seen[0]?.headers['transfer-encoding']).toBe('chunked');
    expect(c.connections.size).toBe(0);
  });

  it('speaks TLS to an https upstream and checks its certificate', async () => {
    const up = await upstream((_req, res) => res.end('secure'), true);
    const trusting = client({ tls: { ca: cert } });
    const reply = await sendUpstream(trusting, post(up.origin));
    expect((await reply.body.whole()).toString()).toBe('secure');
    expect((await (await sendUpstream(trusting, post(up.origin))).body.whole()).toString()).toBe('secure');
    expect(up.seen[0]?.socket).toBe(up.seen[1]?.socket);

    const byName = post(up.origin.replace('127.0.0.1', 'localhost'));
    expect((await (await sendUpstream(trusting, byName)).body.whole()).toString()).toBe('secure');

    await expect(sendUpstream(client(), post(up.origin))).rejects.toMatchObject({
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
  });

  it('resumes the TLS session on a new connection to the same upstream', async () => {
    const up = await upstream((_req, res) => res.end('secure'), true);
    const resumed: boolean[] = [];
    up.server.on('secureConnection', (s: TLSSocket) => resumed.push(s.isSessionReused()));
    const c = client({ tls: { ca: cert }, keepAliveMs: 50 });
    expect((await (await sendUpstream(c, post(up.origin))).body.whole()).toString()).toBe('secure');
    // The idle connection is closed after the keep-alive time: the next call opens another.
    await sleep(150);
    expect(c.connections.size).toBe(0);
    expect((await (await sendUpstream(c, post(up.origin))).body.whole()).toString()).toBe('secure');
    expect(resumed).toEqual([false, true]);
  });

  it('closes: idle connections at once, busy ones after their reply, and takes no more calls', async () => {
    let finish: () => void = () => {};
    const up = await upstream((req, res) => {
      if (req.url === '/slow') finish = () => res.end('late');
      else res.end('ok');
    });
    const c = client();
    const idle = await Promise.all([1, 2, 3].map(() => sendUpstream(c, post(up.origin))));
    await Promise.all(idle.map((r) => r.body.whole()));
    expect(up.sockets.size).toBe(3);
    const slow = await new Promise<string>((resolve, reject) => {
      setTimeout(() => resolve('pending'), 50);
      sendUpstream(c, { ...post(up.origin), path: '/slow' }).then(
        (r) => r.body.whole().then((b) => resolve(b.toString())),
        reject,
      );
    });
    expect(slow).toBe('pending');
    const closing = c.close();
    let closed = false;
    void closing.then(() => {
      closed = true;
    });
    await sleep(30);
    expect(up.sockets.size).toBe(1);
    expect(closed).toBe(false);
    finish();
    await closing;
    expect(c.connections.size).toBe(0);
    await expect(sendUpstream(c, post(up.origin))).rejects.toMatchObject({ code: 'UND_ERR_CLOSED' });
  });

  it("holds a call to the limits it brings (a channel's), the client's own for the rest", async () => {
    const raw = await rawUpstream(() => {});
    const c = client();
    await expect(
      sendUpstream(c, post(raw), undefined, { timeouts: { firstByteMs: 100 } }),
    ).rejects.toMatchObject({
      code: 'UND_ERR_HEADERS_TIMEOUT',
    });
    const stalling = await rawUpstream((s) =>
      s.once('data', () => s.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')),
    );
    const reply = await sendUpstream(c, post(stalling), undefined, { timeouts: { idleMs: 100 } });
    await expect(reply.body.whole()).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
    expect(c.connections.size).toBe(0);
  });

  it('trusts the CA a call brings on connections of their own, not on those of the same origin without it', async () => {
    const up = await upstream((_req, res) => res.end('secure'), true);
    const c = client();
    const reply = await sendUpstream(c, post(up.origin), undefined, { ca: cert.toString() });
    expect((await reply.body.whole()).toString()).toBe('secure');
    await expect(sendUpstream(c, post(up.origin))).rejects.toMatchObject({
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    const again = await sendUpstream(c, post(up.origin), undefined, { ca: cert.toString() });
    expect((await again.body.whole()).toString()).toBe('secure');
    expect(up.seen).toHaveLength(2);
    expect(up.seen[0]?.socket).toBe(up.seen[1]?.socket);
  });

  it('closes the socket of a call cancelled while it waits for its reply, or for the rest of a body read whole', async () => {
    const waiting = await upstream(() => {});
    const c = client();
    const cancel = new CallCancel();
    const call = sendUpstream(c, post(waiting.origin), cancel);
    while (waiting.seen.length === 0) await sleep(5);
    const closed = new Promise((r) => waiting.seen[0]?.socket.once('close', r));
    const reason = new Error('the client left');
    cancel.cancel(reason);
    await expect(call).rejects.toBe(reason);
    await closed;

    const slow = await upstream((_req, res) => {
      res.writeHead(200, { 'content-length': '10' });
      res.write('abc');
    });
    const midway = new CallCancel();
    const reply = await sendUpstream(c, post(slow.origin), midway);
    const whole = reply.body.whole();
    midway.cancel(reason);
    await expect(whole).rejects.toBe(reason);
    expect(c.connections.size).toBe(0);
    // A body read chunk by chunk follows the client itself: cancelling no longer reaches it.
    const streamed = await upstream((_req, res) => {
      res.writeHead(200, { 'content-length': '6' });
      res.write('abc');
      setTimeout(() => res.end('def'), 30);
    });
    const late = new CallCancel();
    const streaming = await sendUpstream(c, post(streamed.origin), late);
    let got = '';
    const each = streaming.body.each({ data: (b) => (got += b.toString()) });
    late.cancel(reason);
    await each;
    expect(got).toBe('abcdef');
  });
});
