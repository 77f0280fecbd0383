import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from './db/create-db.js';
import { toNumber } from './db/dialect.js';
import { createTestDatabase, endOwnSessions, engineTargets, type TestDatabase } from './test/databases.js';
import { type FakeUpstream, startFakeUpstream } from './test/fake-upstream.js';
import { GatewayProcess, RootSession } from './test/gateway-process.js';

// The fault suite: real gateway processes under bounded load, on each engine, with a fault injected
// from outside (kill -9 of the gateway, the database ending the gateway's sessions). After it, and a
// restart where the fault killed the node, the books must balance: root's balance drop == the sum of
// its log rows' quota == its used quota (the same for the token), and every call whose client got
// its whole reply has exactly one log row.

const ROOT_START = 100_000_000;
const TOKEN_START = 50_000_000;
const WORKERS = 16;

interface Load {
  /** Calls whose client received a whole 200 reply. */
  completed: number;
  failed: number;
  stop(): Promise<void>;
}

/** `WORKERS` clients calling back to back until stopped or the gateway goes away. */
function startLoad(origin: string, key: string, onCompleted: (count: number) => void = () => {}): Load {
  let running = true;
  const load = { completed: 0, failed: 0 } as Load;
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

function expectBalanced(b: Awaited<ReturnType<typeof books>>, rows: number) {
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

    const start = async (databaseUrl: string | undefined, dataDir?: string) => {
      const node = await GatewayProcess.start({
        ...(databaseUrl ? { databaseUrl } : {}),
        ...(dataDir ? { dataDir } : {}),
        env: { SHUTDOWN_DRAIN_SECONDS: '10' },
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

    it('SIGTERM under load: calls in flight finish, the node exits 0, and every delivered call is billed once', async () => {
      const own = await freshDatabase();
      const node = await start(own?.url);
      const dbUrl = own?.url ?? `sqlite:${node.dataDir}/switchyard.db`;
      const key = await (await RootSession.open(node.origin)).channelAndToken(
        `${up.url}/v1`,
        'gpt-4o',
        TOKEN_START,
      );
      const load = startLoad(node.origin, key, (count) => {
        if (count === 60) node.child.kill('SIGTERM');
      });
      const exit = await node.exited;
      await load.stop();
      expect(exit.code).toBe(0);
      expect(node.log).not.toContain('grace period over');
      expectBalanced(await books(dbUrl), load.completed);
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
        const load = startLoad(node.origin, key, (count) => {
          if (count === 40 || count === 100)
            void endOwnSessions(target.engine, target.serverUrl!, own, appName).then((n) => killed.push(n));
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
        expectBalanced(await books(own.url), load.completed + after.completed);
      },
      120_000,
    );

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

      const b = await books(dbUrl);
      expectBalanced(b, delivered + after.completed);
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
