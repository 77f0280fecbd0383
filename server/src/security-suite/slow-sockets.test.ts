import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../test/fake-upstream.js';
import { createChannel, createToken } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

// Issue #25 item 2, replayed with raw sockets: a connection that sends nothing, only a request
// line, or part of a body is closed; an idle keep-alive connection is closed; one address cannot
// open more than its cap; and a reply still waiting for its upstream, or a stream still sending,
// outlives the idle timeout.

const UPSTREAM_KEY = 'sk-upstream-slow-key';

interface Opened {
  socket: Socket;
  /** Resolves with everything the server sent once the connection is closed. */
  closed: Promise<string>;
}

describe('slow and silent connections', () => {
  let t: TestApp;
  let up: FakeUpstream;
  let port: number;
  let key: string;

  const open = async (): Promise<Opened> => {
    const socket = connect({ port, host: '127.0.0.1' });
    let received = '';
    socket.on('data', (d) => {
      received += d.toString();
    });
    const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    return { socket, closed };
  };

  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
    t = await createTestApp({
      env: {
        HTTP_HEADERS_TIMEOUT_SECONDS: '1',
        HTTP_REQUEST_TIMEOUT_SECONDS: '2',
        HTTP_KEEP_ALIVE_SECONDS: '1',
        HTTP_IDLE_TIMEOUT_SECONDS: '1',
        MAX_CONNECTIONS_PER_IP: '6',
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    const root = await t.signIn('root', ROOT_PASSWORD);
    const price = await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: root },
      payload: { model: 'slow-chat', type: 'tokens', channel_type: 1, input: 1, output: 1 },
    });
    expect(price.statusCode, price.body).toBe(200);
    await createChannel(t, root, {
      name: 'slow',
      key: UPSTREAM_KEY,
      base_url: up.url,
      models: ['slow-chat'],
    });
    key = (await createToken(t, root)).key;
  });

  afterAll(async () => {
    await t?.close();
    await up?.close();
  });

  it('closes a connection that sends nothing', async () => {
    const { closed } = await open();
    expect(await closed).toBe('');
  });

  it('closes a connection that sends only a request line, then headers never finished', async () => {
    const { socket, closed } = await open();
    socket.write('GET /api/status HTTP/1.1\r\n');
    // Keep trickling header bytes: activity does not extend the header deadline.
    const trickle = setInterval(() => socket.writable && socket.write('x-slow: 1\r\n'), 200);
    const received = await closed;
    clearInterval(trickle);
    expect(received === '' || received.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('closes a connection whose body stops short, even while it trickles bytes', async () => {
    const { socket, closed } = await open();
    socket.write(
      'POST /api/user/login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"username":',
    );
    const trickle = setInterval(() => socket.writable && socket.write(' '), 200);
    const received = await closed;
    clearInterval(trickle);
    expect(received).not.toContain('"success":true');
  });

  it('closes an idle keep-alive connection after its reply', async () => {
    const { socket, closed } = await open();
    socket.write('GET /readyz HTTP/1.1\r\nhost: x\r\n\r\n');
    const received = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200/);
    expect(received).toMatch(/keep-alive/i);
  });

  it('refuses connections over the per-address cap', async () => {
    const held = await Promise.all(Array.from({ length: 6 }, () => open()));
    const extra = await open();
    extra.socket.write('GET /readyz HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(await extra.closed).toBe('');
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    // Closed connections free their places.
    const res = await request(`http://127.0.0.1:${port}/readyz`);
    expect(res.statusCode).toBe(200);
    await res.body.dump();
  });

  it('keeps a reply waiting for a slow upstream, and a stream that keeps sending, past the idle timeout', async () => {
    const chat = (stream: boolean) =>
      request(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'slow-chat', stream, messages: [{ role: 'user', content: 'hi' }] }),
      });
    up.setScenario({ kind: 'ok', content: 'late answer', firstByteDelayMs: 2500 });
    const late = await chat(false);
    expect(late.statusCode).toBe(200);
    expect(
      ((await late.body.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message
        .content,
    ).toBe('late answer');

    up.setScenario({ kind: 'ok', content: 'one two three four five six seven eight', chunkDelayMs: 400 });
    const stream = await chat(true);
    expect(stream.statusCode).toBe(200);
    const text = await stream.body.text();
    expect(text).toContain('eight');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  });
});
