import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { LogType } from '@switchyard/domain';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from './db/create-db.js';
import { toNumber } from './db/dialect.js';
import { type FakeUpstream, startFakeUpstream } from './test/fake-upstream.js';
import { GatewayProcess, RootSession } from './test/gateway-process.js';

// A node told to stop (SIGTERM) drains: it stops taking connections, answers what still arrives on
// kept-alive ones with `Connection: close` (the relay's hot path too), lets calls and streams in
// flight finish within SHUTDOWN_DRAIN_SECONDS (then cuts them, still billing what they delivered),
// commits the settlements, and only then exits, with 0.

/** One raw HTTP/1.1 connection: requests written as given (pipelined), everything read kept. */
class RawConnection {
  received = '';
  readonly closed: Promise<void>;
  private readonly socket: Socket;

  constructor(origin: string) {
    const url = new URL(origin);
    this.socket = connect(Number(url.port), url.hostname);
    this.socket.on('data', (b: Buffer) => {
      this.received += b.toString();
    });
    this.socket.on('error', () => {});
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  send(key: string, body: unknown): void {
    const json = JSON.stringify(body);
    this.socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\nauthorization: Bearer ${key}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
    );
  }

  async waitFor(text: string): Promise<void> {
    for (let i = 0; i < 300 && !this.received.includes(text); i++)
      await new Promise((r) => setTimeout(r, 20));
    if (!this.received.includes(text)) throw new Error(`never received ${text}: ${this.received}`);
  }
}

const chat = (stream: boolean) => ({
  model: 'gpt-4o',
  stream,
  messages: [{ role: 'user', content: 'hello there' }],
});

async function books(dataDir: string) {
  const d = createDb(`sqlite:${path.join(dataDir, 'switchyard.db')}`);
  try {
    const root = await d.db
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('username', '=', 'root')
      .executeTakeFirstOrThrow();
    const logs = await d.db
      .selectFrom('logs')
      .select(['quota', 'metadata'])
      .where('type', '=', LogType.Consume)
      .execute();
    return {
      drop: 100_000_000 - toNumber(root.quota),
      used: toNumber(root.used_quota),
      logged: logs.reduce((sum, l) => sum + toNumber(l.quota), 0),
      rows: logs.length,
      aborted: logs.filter((l) => (JSON.parse(l.metadata) as { client_aborted?: boolean }).client_aborted)
        .length,
    };
  } finally {
    await d.close();
  }
}

describe('stopping a node (SIGTERM)', () => {
  let up: FakeUpstream;
  let gateway: GatewayProcess | undefined;

  beforeAll(async () => {
    up = await startFakeUpstream();
  });
  afterEach(async () => {
    await gateway?.dispose();
    gateway = undefined;
  });
  afterAll(async () => {
    await up?.close();
  });

  it('finishes the stream in flight, answers a kept-alive request with Connection: close, settles, exits 0', async () => {
    gateway = await GatewayProcess.start({ env: { SHUTDOWN_DRAIN_SECONDS: '60' } });
    const key = await (await RootSession.open(gateway.origin)).channelAndToken(`${up.url}/v1`);
    up.setScenario({ kind: 'ok', content: 'one two three four five six seven eight', chunkDelayMs: 150 });

    const conn = new RawConnection(gateway.origin);
    conn.send(key, chat(true));
    await conn.waitFor('data: ');
    gateway.child.kill('SIGTERM');
    // The listener closes first: a new connection is refused once the stop has begun.
    for (let i = 0; i < 100; i++) {
      const refused = await fetch(`${gateway.origin}/readyz`).then(
        () => false,
        () => true,
      );
      if (refused) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    // A request on the connection kept from before, pipelined behind the stream.
    conn.send(key, chat(false));
    await conn.closed;
    const exit = await gateway.exited;

    const [streamed, second] = conn.received.split(/(?=HTTP\/1\.1 )/);
    expect(streamed).toMatch(/^HTTP\/1\.1 200/);
    expect(streamed).toContain('data: [DONE]');
    expect(second).toMatch(/^HTTP\/1\.1 200/);
    expect(second?.toLowerCase()).toContain('connection: close');
    expect(second).toContain('"chat.completion"');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(gateway.log).not.toContain('grace period over');

    const b = await books(gateway.dataDir);
    expect(b.rows).toBe(2);
    expect(b.drop).toBeGreaterThan(0);
    expect(b).toMatchObject({ used: b.drop, logged: b.drop, aborted: 0 });
  }, 60_000);

  it('cuts a stream that outlasts the drain time, still bills it, and exits 0', async () => {
    gateway = await GatewayProcess.start({
      env: { SHUTDOWN_DRAIN_SECONDS: '1', SHUTDOWN_GRACE_MS: '30000' },
    });
    const key = await (await RootSession.open(gateway.origin)).channelAndToken(`${up.url}/v1`);
    up.setScenario({ kind: 'ok', content: 'a b c d e f g h i j k l', chunkDelayMs: 300 });

    const conn = new RawConnection(gateway.origin);
    conn.send(key, chat(true));
    await conn.waitFor('data: ');
    gateway.child.kill('SIGTERM');
    await conn.closed;
    const exit = await gateway.exited;

    expect(conn.received).not.toContain('data: [DONE]');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(gateway.log).toContain('drain time over');
    const b = await books(gateway.dataDir);
    expect(b.rows).toBe(1);
    expect(b).toMatchObject({ used: b.drop, logged: b.drop, aborted: 1 });
    expect(b.drop).toBeGreaterThan(0);
  }, 60_000);
});
