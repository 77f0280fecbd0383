import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendUpstream } from './upstream-dispatch.js';

// The lean forward path against a real HTTP server over a real socket.

type Route = (res: ServerResponse, body: string) => void;

let server: Server;
let origin: string;
const agent = new Agent({ keepAliveTimeout: 1000 });
const routes = new Map<string, Route>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => routes.get(req.url ?? '')?.(res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await agent.close();
  await new Promise((resolve) => server.close(resolve));
});

const post = (path: string, body = '{}') =>
  sendUpstream(agent, {
    origin,
    path,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });

function chunked(res: ServerResponse, parts: string[], gapMs: number, then?: () => void): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let i = 0;
  const next = () => {
    if (i === parts.length) {
      if (then) then();
      else res.end();
      return;
    }
    res.write(parts[i++]);
    setTimeout(next, gapMs);
  };
  next();
}

describe('sendUpstream', () => {
  it('sends the body and reads a whole reply with its status and headers', async () => {
    routes.set('/echo', (res, body) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-up': 'yes' });
      res.end(JSON.stringify({ got: JSON.parse(body) }));
    });
    const reply = await post('/echo', '{"model":"m"}');
    expect(reply.statusCode).toBe(201);
    expect(reply.headers['x-up']).toBe('yes');
    expect(JSON.parse((await reply.body.whole()).toString())).toEqual({ got: { model: 'm' } });
  });

  it('keeps at most `max` bytes of a long error body and still reads it to the end', async () => {
    routes.set('/long', (res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.write('a'.repeat(3000));
      res.end('b'.repeat(3000));
    });
    const reply = await post('/long');
    const kept = await reply.body.whole(4000);
    expect(kept.length).toBe(4000);
    expect(kept.toString()).toBe('a'.repeat(3000) + 'b'.repeat(1000));
    // The connection went back to the pool in a usable state.
    routes.set('/after', (res) => res.end('ok'));
    expect((await (await post('/after')).body.whole()).toString()).toBe('ok');
  });

  it('hands every chunk of a stream to the reader, including those that came before it attached', async () => {
    routes.set('/stream', (res) => chunked(res, ['one ', 'two ', 'three'], 5));
    const reply = await post('/stream');
    await new Promise((r) => setTimeout(r, 30));
    const seen: string[] = [];
    await reply.body.each({ data: (c) => seen.push(c.toString()) });
    expect(seen.join('')).toBe('one two three');
  });

  it('holds the upstream while paused and goes on after resume', async () => {
    routes.set('/paced', (res) => chunked(res, ['a', 'b', 'c', 'd'], 10));
    const reply = await post('/paced');
    const seen: string[] = [];
    const done = reply.body.each({
      data(c) {
        seen.push(c.toString());
        if (seen.length === 1) {
          reply.body.pause();
          setTimeout(() => reply.body.resume(), 80);
        }
      },
    });
    await new Promise((r) => setTimeout(r, 50));
    // undici may deliver what was already parsed from the socket, but not the whole reply.
    expect(seen.join('').length).toBeLessThan(4);
    await done;
    expect(seen.join('')).toBe('abcd');
  });

  it('ends a read that the gateway cancels, and the read resolves', async () => {
    routes.set('/endless', (res) =>
      chunked(
        res,
        Array.from({ length: 200 }, () => 'x'),
        5,
      ),
    );
    const reply = await post('/endless');
    let n = 0;
    await reply.body.each({
      data() {
        n++;
        if (n === 3) reply.body.cancel();
      },
    });
    expect(n).toBe(3);
  });

  it('rejects the read when the upstream breaks off mid-body', async () => {
    routes.set('/broken', (res) => chunked(res, ['part'], 5, () => res.socket?.destroy()));
    const reply = await post('/broken');
    const seen: string[] = [];
    await expect(reply.body.each({ data: (c) => seen.push(c.toString()) })).rejects.toThrow();
    expect(seen.join('')).toBe('part');
  });

  it('rejects the send when the upstream cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      sendUpstream(agent, { origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET', headers: {} }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('rejects the read when the reader itself throws, and stops the upstream', async () => {
    routes.set('/many', (res) => chunked(res, ['1', '2', '3', '4', '5'], 5));
    const reply = await post('/many');
    let n = 0;
    await expect(
      reply.body.each({
        data() {
          n++;
          if (n === 2) throw new Error('translator failed');
        },
      }),
    ).rejects.toThrow('translator failed');
    await new Promise((r) => setTimeout(r, 50));
    expect(n).toBe(2);
  });
});
