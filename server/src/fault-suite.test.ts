import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from './db/create-db.js';
import { toNumber } from './db/dialect.js';
import { createTestDatabase, endOwnSessions, engineTargets, type TestDatabase } from './test/databases.js';
import { type FakeUpstream, startFakeUpstream } from './test/fake-upstream.js';
import { freePort, GatewayProcess, RootSession } from './test/gateway-process.js';

// The fault suite: real gateway processes under bounded load, on each engine, with a fault injected
// from outside (kill -9 or SIGTERM of the gateway, the database ending the gateway's sessions, its
// Redis stopped, an upstream that hangs or resets mid-body, NUL bytes in the input). After it, and a
// restart where the fault killed the node, the books must balance: root's balance drop == the sum of
// its log rows' quota == its used quota (the same for the token), no reserve is left held, and every
// call whose client got its whole reply has exactly one log row.

const ROOT_START = 100_000_000;
const TOKEN_START = 50_000_000;
const WORKERS = 16;

interface Load {
  /** Calls whose client received a whole 200 reply. */
  completed: number;
  failed: number;
  /** Answers 500: whatever the fault, the gateway never answers a call with an internal error. */
  internalErrors: number;
  stop(): Promise<void>;
}

/** `WORKERS` clients calling back to back until stopped or the gateway goes away. */
function startLoad(origin: string, key: string, onCompleted: (count: number) => void = () => {}): Load {
  let running = true;
  const load = { completed: 0, failed: 0, internalErrors: 0 } as Load;
  const worker = async (w: number) => {
    for (let i = 0; running; i++) {
      try {
        const stream = (w + i) % 3 === 0;
        const res = await fetch(`${origin}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'gpt-4o',
            stream,
            messages: [{ role: 'user', content: `call ${w}.${i}` }],
          }),
        });
        const text = await res.text();
        const whole = stream ? text.includes('data: [DONE]') : text.includes('"chat.completion"');
        if (res.status === 200 && whole) onCompleted(++load.completed);
        else load.failed++;
        if (res.status === 500) load.internalErrors++;
      } catch {
        load.failed++;
        if (running) await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
  load.stop = async () => {
    running = false;
    await Promise.all(workers);
  };
  return load;
}

/** A TCP server that takes requests and never answers: an upstream that hangs. */
async function startHangingUpstream() {
  const open = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted++;
    open.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    get open() {
      return open.size;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const socket of open) socket.destroy();
        server.close(() => r());
      }),
  };
}

/** An upstream whose JSON replies stop after a tenth of their announced length, the socket reset. */
async function startResettingUpstream() {
  let answered = 0;
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      answered++;
      socket.write(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"id":"chatcmpl-x",',
      );
      setImmediate(() => socket.resetAndDestroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get answered() {
      return answered;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A Redis server of the test's own, which the test stops and starts again on the same port. */
class OwnRedis {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.up();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 200; i++) {
      const ok = await new Promise<boolean>((resolve) => {
        const socket = net.connect(this.port, '127.0.0.1');
        socket.once('connect', () => {
          socket.write('PING\r\n');
          socket.once('data', (b) => {
            socket.destroy();
            resolve(b.toString().startsWith('+PONG'));
          });
        });
        socket.once('error', () => resolve(false));
      });
      if (ok) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('redis-server did not start');
  }

  async down(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}

/** Polls `check` until it holds, for up to `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 20_000): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; ) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** One chat call with `body`: its status and text. */
async function chat(origin: string, key: string, body: object, signal?: AbortSignal) {
  const res = await fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  return { status: res.status, text: await res.text() };
}

async function books(databaseUrl: string) {
  const d = createDb(databaseUrl);
  try {
    const root = await d.db
      .selectFrom('users')
      .select(['id', 'quota', 'used_quota'])
      .where('username', '=', 'root')
      .executeTakeFirstOrThrow();
    const token = await d.db
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('name', '=', 'fault')
      .executeTakeFirstOrThrow();
    const logs = await d.db
      .selectFrom('logs')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('quota').as('q')])
      .where('type', '=', LogType.Consume)
      .where('user_id', '=', root.id)
      .executeTakeFirstOrThrow();
    const held = await d.db
      .selectFrom('reserves')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('returned', '=', 0)
      .executeTakeFirstOrThrow();
    const leased = await d.db
      .selectFrom('quota_leases')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('returned', '=', 0)
      .executeTakeFirstOrThrow();
    return {
      userDrop: ROOT_START - toNumber(root.quota),
      userUsed: toNumber(root.used_quota),
      tokenDrop: TOKEN_START - toNumber(token.remain_quota),
      tokenUsed: toNumber(token.used_quota),
      logged: toNumber(logs.q ?? 0),
      rows: toNumber(logs.n),
      heldReserves: toNumber(held.n),
      heldLeases: toNumber(leased.n),
    };
  } finally {
    await d.close();
  }
}

function expectBalanced(b: Awaited<ReturnType<typeof books>>, rows: number, ...loads: Load[]) {
  for (const load of loads) expect(load.internalErrors).toBe(0);
  expect(b.rows).toBe(rows);
  expect(b.logged).toBeGreaterThan(0);
  expect(b).toEqual({
    userDrop: b.logged,
    userUsed: b.logged,
    tokenDrop: b.logged,
    tokenUsed: b.logged,
    logged: b.logged,
    rows,
    heldReserves: 0,
    heldLeases: 0,
  });
}

/** Nodes with reserves or quota leases still held (not returned) in the database. */
async function holders(databaseUrl: string): Promise<Set<string>> {
  const d = createDb(databaseUrl);
  try {
    const reserves = await d.db.selectFrom('reserves').select('node_id').where('returned', '=', 0).execute();
    const leases = await d.db
      .selectFrom('quota_leases')
      .select('node_id')
      .where('returned', '=', 0)
      .execute();
    return new Set([...reserves, ...leases].map((r) => r.node_id));
  } finally {
    await d.close();
  }
}

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`fault suite on ${target.engine}`, () => {
    let up: FakeUpstream;
    const dropLater: TestDatabase[] = [];
    const nodes: GatewayProcess[] = [];

    beforeAll(async () => {
      up = await startFakeUpstream();
      up.setScenario({ kind: 'ok', content: 'alpha beta gamma delta', chunkDelayMs: 5 });
    });
    afterAll(async () => {
      for (const n of nodes) await n.dispose();
      await up?.close();
      for (const d of dropLater) await d.drop();
    });

    const start = async (
      databaseUrl: string | undefined,
      dataDir?: string,
      env: Record<string, string> = {},
    ) => {
      const node = await GatewayProcess.start({
        ...(databaseUrl ? { databaseUrl } : {}),
        ...(dataDir ? { dataDir } : {}),
        env: { SHUTDOWN_DRAIN_SECONDS: '10', ...env },
      });
      nodes.push(node);
      return node;
    };

    /** A database of its own for each case, so each one's books start from the seed. */
    const freshDatabase = async () => {
      if (target.engine === 'sqlite') return undefined;
      const made = await createTestDatabase(target);
      dropLater.push(made);
      return made;
    };

    /** A node on a fresh database with root's channel to the fake upstream and a limited token. */
    const startNode = async (env: Record<string, string> = {}) => {
      const own = await freshDatabase();
      const node = await start(own?.url, undefined, env);
      const dbUrl = own?.url ?? `sqlite:${node.dataDir}/switchyard.db`;
      const root = await RootSession.open(node.origin);
      const key = await root.channelAndToken(`${up.url}/v1`, 'gpt-4o', TOKEN_START);
      return { own, node, dbUrl, root, key };
    };

    it('SIGTERM under load: calls in flight finish, the node exits 0, and every delivered call is billed once', async () => {
      const { node, dbUrl, key } = await startNode();
      const load = startLoad(node.origin, key, (count) => {
        if (count === 60) node.child.kill('SIGTERM');
      });
      const exit = await node.exited;
      await load.stop();
      expect(exit.code).toBe(0);
      expect(node.log).not.toContain('grace period over');
      expectBalanced(await books(dbUrl), load.completed, load);
    }, 120_000);

    it.skipIf(target.engine === 'sqlite')(
      "the database ending the node's sessions under load: the node lives, later calls succeed, the books balance",
      async () => {
        const own = (await freshDatabase())!;
        const appName = `sy_fault_${Math.random().toString(36).slice(2, 10)}`;
        const url = new URL(own.url);
        if (target.engine === 'postgres') url.searchParams.set('application_name', appName);
        const node = await start(url.toString());
        const key = await (await RootSession.open(node.origin)).channelAndToken(
          `${up.url}/v1`,
          'gpt-4o',
          TOKEN_START,
        );
        const killed: number[] = [];
        // With quota leases a call needs no connection of its own: the node may hold none at the
        // moment, until its next group commit opens one. Ended as soon as there are some (5 s at most).
        const endSessions = async () => {
          const until = Date.now() + 5000;
          let n = await endOwnSessions(target.engine, target.serverUrl!, own, appName);
          while (n === 0 && Date.now() < until) {
            await new Promise((r) => setTimeout(r, 20));
            n = await endOwnSessions(target.engine, target.serverUrl!, own, appName);
          }
          killed.push(n);
        };
        const load = startLoad(node.origin, key, (count) => {
          if (count === 40 || count === 100) void endSessions();
        });
        while (load.completed < 140 || killed.length < 2) await new Promise((r) => setTimeout(r, 20));
        await load.stop();
        expect(killed.length).toBe(2);
        expect(killed.every((n) => n > 0)).toBe(true);
        // Still the same process, and serving.
        expect(node.child.exitCode).toBeNull();
        const after = startLoad(node.origin, key);
        while (after.completed < 20) await new Promise((r) => setTimeout(r, 20));
        await after.stop();
        node.child.kill('SIGTERM');
        expect((await node.exited).code).toBe(0);
        // A 500 names its cause in the node's error log lines.
        const errors = node.log.split('\n').filter((l) => l.includes('"level":50'));
        expect(load.internalErrors + after.internalErrors, errors.join('\n')).toBe(0);
        expectBalanced(await books(own.url), load.completed + after.completed, load, after);
      },
      120_000,
    );

    it('NUL bytes in a model name are refused before any reserve; in a prompt they are served and billed', async () => {
      const { node, dbUrl, key } = await startNode();
      let refused = 0;
      let served = 0;
      for (let i = 0; i < 20; i++) {
        const bad = await chat(node.origin, key, {
          model: 'gpt-4o\u0000x',
          messages: [{ role: 'user', content: 'hi' }],
        });
        expect(bad.status, bad.text).toBe(400);
        expect(bad.text).toContain('NUL');
        refused++;
        const text = await chat(node.origin, key, {
          model: 'gpt-4o',
          messages: [{ role: 'user', content: `nul \u0000 inside ${i}` }],
        });
        expect(text.status, `${text.text}\n${node.log}`).toBe(200);
        served++;
      }
      node.child.kill('SIGTERM');
      expect((await node.exited).code).toBe(0);
      expect(refused).toBe(20);
      expectBalanced(await books(dbUrl), served);
    }, 120_000);

    it('a hanging upstream: clients that give up close its sockets and get their reserves back', async () => {
      const hang = await startHangingUpstream();
      try {
        const { own, node, dbUrl, root, key } = await startNode();
        await root.addChannel('hangs', `${hang.url}/v1`, 'gpt-4o-mini');
        const gaveUp = await Promise.all(
          Array.from({ length: 10 }, () =>
            chat(
              node.origin,
              key,
              { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello?' }] },
              AbortSignal.timeout(500),
            ).then(
              () => false,
              () => true,
            ),
          ),
        );
        expect(gaveUp.every(Boolean)).toBe(true);
        expect(hang.accepted).toBeGreaterThan(0);
        // The gateway closed every upstream socket of a call whose client left.
        expect(await eventually(() => hang.open === 0)).toBe(true);
        // Nothing is held for the calls that were given up (PostgreSQL/MySQL keep reserves as rows).
        if (own) expect(await eventually(async () => (await books(dbUrl)).heldReserves === 0)).toBe(true);
        const load = startLoad(node.origin, key);
        await eventually(() => load.completed >= 40);
        await load.stop();
        node.child.kill('SIGTERM');
        expect((await node.exited).code).toBe(0);
        expectBalanced(await books(dbUrl), load.completed, load);
      } finally {
        await hang.close();
      }
    }, 120_000);

    it('an upstream reset in the middle of a body: the call is retried on another channel and billed once', async () => {
      const reset = await startResettingUpstream();
      try {
        const { node, dbUrl, root, key } = await startNode();
        await root.addChannel('resets', `${reset.url}/v1`, 'gpt-4o', { priority: 10 });
        await root.call('PUT', '/api/option/', { key: 'RetryTimes', value: '3' });
        await root.call('PUT', '/api/option/', { key: 'RetryCooldownSeconds', value: '0' });
        await root.call('PUT', '/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'false' });
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            chat(node.origin, key, { model: 'gpt-4o', messages: [{ role: 'user', content: `reset ${i}` }] }),
          ),
        );
        for (const r of results) expect(r.status, r.text).toBe(200);
        expect(reset.answered).toBeGreaterThan(0);
        node.child.kill('SIGTERM');
        expect((await node.exited).code).toBe(0);
        expectBalanced(await books(dbUrl), results.length);
      } finally {
        await reset.close();
      }
    }, 120_000);

    it('Redis stopped under load and started again: calls go on, and the books balance', async () => {
      const redis = await OwnRedis.start();
      try {
        const { node, dbUrl, key } = await startNode({ REDIS_URL: redis.url });
        const load = startLoad(node.origin, key);
        await eventually(() => load.completed >= 40);
        await redis.down();
        const atStop = load.completed;
        expect(await eventually(() => load.completed >= atStop + 60)).toBe(true);
        await redis.up();
        const atStart = load.completed;
        expect(await eventually(() => load.completed >= atStart + 60)).toBe(true);
        await load.stop();
        // A session made now works (in Redis again, or on the database).
        await RootSession.open(node.origin);
        node.child.kill('SIGTERM');
        expect((await node.exited).code, node.log.slice(-6000)).toBe(0);
        expect(node.log).toContain('Redis is unavailable');
        expectBalanced(await books(dbUrl), load.completed, load);
      } finally {
        await redis.down();
      }
    }, 120_000);

    it('kill -9 under load loses no settlement of a delivered call, and the restart returns its reserves', async () => {
      const testDb = await freshDatabase();
      const first = await start(testDb?.url);
      const dbUrl = testDb?.url ?? `sqlite:${first.dataDir}/switchyard.db`;
      const key = await (await RootSession.open(first.origin)).channelAndToken(
        `${up.url}/v1`,
        'gpt-4o',
        TOKEN_START,
      );

      // Killed as a reply has just been delivered: its settlement, and its neighbours', are on their
      // way to the database.
      const load = startLoad(first.origin, key, (count) => {
        if (count === 80) first.child.kill('SIGKILL');
      });
      await first.exited;
      await load.stop();
      const delivered = load.completed;

      // The same node again (same data directory: its journal, its node id).
      const again = await start(testDb?.url, first.dataDir);
      const after = startLoad(again.origin, key);
      while (after.completed < 20) await new Promise((r) => setTimeout(r, 20));
      await after.stop();
      again.child.kill('SIGTERM');
      expect((await again.exited).code).toBe(0);

      // Every delivered call is billed; so may be a call whose settlement was journaled just before
      // its reply's last byte, which the kill kept from its client (at most one per client).
      const b = await books(dbUrl);
      expect(b.rows).toBeGreaterThanOrEqual(delivered + after.completed);
      expect(b.rows).toBeLessThanOrEqual(delivered + after.completed + WORKERS);
      expectBalanced(b, b.rows, load, after);
    }, 120_000);

    it.skipIf(target.engine === 'sqlite')(
      'kill -9 of a node holding quota leases: another node returns them after their expiry, and the books balance',
      async () => {
        const testDb = (await freshDatabase())!;
        // Both nodes share the secrets (the channel's key is sealed with them) and a short lease.
        const env = {
          SECRET_KEY: 'lease-fault-secret-key-0123456789abcdef',
          SESSION_SECRET: 'lease-fault-session-secret-0123456789ab',
          RESERVE_LEASE_SECONDS: '10',
          SHUTDOWN_DRAIN_SECONDS: '10',
          QUOTA_LEASE_SLICE: '500000',
        };
        const first = await GatewayProcess.start({ databaseUrl: testDb.url, env });
        nodes.push(first);
        const key = await (await RootSession.open(first.origin)).channelAndToken(
          `${up.url}/v1`,
          'gpt-4o',
          TOKEN_START,
        );
        const load = startLoad(first.origin, key, (count) => {
          if (count === 80) first.child.kill('SIGKILL');
        });
        await first.exited;
        await load.stop();
        const delivered = load.completed;
        // It died holding leases: the balances are short by what they hold.
        const dead = await holders(testDb.url);
        expect(dead.size).toBe(1);
        expect((await books(testDb.url)).heldLeases).toBeGreaterThan(0);

        // Another node (its own data directory, so its own node id) serves on; its upkeep returns the
        // dead node's leases once they expire.
        const second = await GatewayProcess.start({ databaseUrl: testDb.url, env });
        nodes.push(second);
        const after = startLoad(second.origin, key);
        while (after.completed < 20) await new Promise((r) => setTimeout(r, 20));
        await after.stop();
        const [deadId] = [...dead];
        for (let i = 0; (await holders(testDb.url)).has(deadId!); i++) {
          if (i > 600) throw new Error('the dead node’s leases were never returned');
          await new Promise((r) => setTimeout(r, 100));
        }
        second.child.kill('SIGTERM');
        expect((await second.exited).code).toBe(0);
        // Balanced without the dead node's journal: what it settled is charged, what it held is back.
        const b = await books(testDb.url);
        expect(b.rows).toBeGreaterThanOrEqual(after.completed);
        expect(b.rows).toBeLessThanOrEqual(delivered + after.completed);
        expectBalanced(b, b.rows);

        // The dead node comes back (its journal): settlements it never committed are made, once.
        // Every delivered call is billed; a call whose reply was written but not yet read whole when
        // the kill came (at most one per client) is billed too.
        const again = await GatewayProcess.start({ databaseUrl: testDb.url, dataDir: first.dataDir, env });
        nodes.push(again);
        again.child.kill('SIGTERM');
        expect((await again.exited).code).toBe(0);
        const end = await books(testDb.url);
        expect(end.rows).toBeGreaterThanOrEqual(delivered + after.completed);
        expect(end.rows).toBeLessThanOrEqual(delivered + after.completed + WORKERS);
        expectBalanced(end, end.rows);
      },
      180_000,
    );
  });
}
