import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from './db/create-db.js';
import { toNumber } from './db/dialect.js';
import { tokenLeases, tokenSeen, userLeases, userSeen } from './db/queries/quota-leases.js';
import { createTestDatabase, engineTargets, type TestDatabase } from './test/databases.js';
import { type FakeUpstream, startFakeUpstream } from './test/fake-upstream.js';
import { freePort, GatewayProcess, ROOT_PASSWORD, RootSession } from './test/gateway-process.js';

// Several real gateway processes sharing one PostgreSQL or MySQL database, with a Redis of the
// suite's own and without Redis: a change made on one node is in force on the others within 1 s
// (Redis) or 2 s (the database's change counters), a session opened on one node is valid on the
// others, the nodes agree on one holder of a scheduled job, the group rate limit is shared through
// Redis, and under 200 concurrent calls spread over the nodes the books balance exactly.

const CALLS = 200;
const METRICS_TOKEN = 'multi-node-metrics-token';

/** Polls `probe` until it returns true; fails once `deadlineMs` has passed since the call. */
async function within(deadlineMs: number, what: string, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - started;
    if (Date.now() - started > deadlineMs) throw new Error(`${what} not seen within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function chat(origin: string, key: string, model: string): Promise<number> {
  const res = await fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function systemName(origin: string): Promise<string> {
  const res = await fetch(`${origin}/api/status`);
  return ((await res.json()) as { data: { system_name: string } }).data.system_name;
}

/** Root's and the token's balances, and the consume logs above `afterLogId`. */
async function books(databaseUrl: string, afterLogId = 0) {
  const d = createDb(databaseUrl);
  try {
    // The balances as their owner sees them: with what the nodes' quota leases hold.
    const root = userSeen(
      await d.db
        .selectFrom('users')
        .select(['id', 'quota', 'used_quota', 'request_count'])
        .select(userLeases)
        .where('username', '=', 'root')
        .executeTakeFirstOrThrow(),
    );
    const token = tokenSeen(
      await d.db
        .selectFrom('tokens')
        .select(['remain_quota', 'used_quota'])
        .select(tokenLeases)
        .where('name', '=', 'fault')
        .executeTakeFirstOrThrow(),
    );
    const logs = await d.db
      .selectFrom('logs')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number>('quota').as('q'),
        eb.fn.max<number>('id').as('last'),
      ])
      .where('type', '=', LogType.Consume)
      .where('user_id', '=', root.id)
      .where('id', '>', afterLogId)
      .executeTakeFirstOrThrow();
    const held = await d.db
      .selectFrom('reserves')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('returned', '=', 0)
      .executeTakeFirstOrThrow();
    return {
      userQuota: toNumber(root.quota),
      userUsed: toNumber(root.used_quota),
      tokenRemain: toNumber(token.remain_quota),
      tokenUsed: toNumber(token.used_quota),
      logged: toNumber(logs.q ?? 0),
      rows: toNumber(logs.n),
      lastLogId: toNumber(logs.last ?? afterLogId),
      heldReserves: toNumber(held.n),
    };
  } finally {
    await d.close();
  }
}

async function leaseHolders(databaseUrl: string): Promise<{ name: string; holder: string }[]> {
  const d = createDb(databaseUrl);
  try {
    return await d.db.selectFrom('job_leases').select(['name', 'holder']).execute();
  } finally {
    await d.close();
  }
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}`).then(
      () => true,
      // Redis answers an HTTP request by closing the connection; refused means not yet listening.
      (err: { cause?: { code?: string } }) => err.cause?.code !== 'ECONNREFUSED',
    );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

const servers = engineTargets().filter((t) => t.engine !== 'sqlite');
const redisAvailable = Boolean(process.env.TEST_REDIS_URL) || process.env.REQUIRE_ALL_SUITES === '1';

for (const target of servers) {
  for (const withRedis of [true, false]) {
    const skip = target.skipReason !== undefined || (withRedis && !redisAvailable);
    describe.skipIf(skip)(`two nodes on ${target.engine} ${withRedis ? 'with' : 'without'} Redis`, () => {
      let up: FakeUpstream;
      let redis: ChildProcess | undefined;
      let db: TestDatabase;
      const nodes: GatewayProcess[] = [];
      let a: RootSession;
      let b: RootSession;
      let key: string;
      const propagation = withRedis ? 1000 : 2000;

      beforeAll(async () => {
        up = await startFakeUpstream();
        up.setScenario({ kind: 'ok', content: 'alpha beta gamma' });
        db = await createTestDatabase(target);
        // Every node of a deployment shares its secrets (sessions and sealed keys read on any node).
        const env: Record<string, string> = {
          SHUTDOWN_DRAIN_SECONDS: '10',
          SESSION_SECRET: randomBytes(32).toString('hex'),
          SECRET_KEY: randomBytes(32).toString('hex'),
          METRICS_TOKEN,
        };
        if (withRedis) {
          const port = await freePort();
          redis = await startRedis(port);
          env.REDIS_URL = `redis://127.0.0.1:${port}`;
        }
        // One after the other: the second finds the first's heartbeat.
        nodes.push(await GatewayProcess.start({ databaseUrl: db.url, env: { ...env, NODE_ID: 'node-a' } }));
        nodes.push(await GatewayProcess.start({ databaseUrl: db.url, env: { ...env, NODE_ID: 'node-b' } }));
        a = await RootSession.open(nodes[0]!.origin);
        b = await RootSession.open(nodes[1]!.origin);
        key = await a.channelAndToken(`${up.url}/v1`, 'gpt-4o', 50_000_000);
        // Group rate limits off for the load; one test turns a limit on.
        const groups = await a.call<
          { data?: { id: number; symbol: string }[] } | { id: number; symbol: string }[]
        >('GET', '/api/user_group?page=1&size=100');
        const list = Array.isArray(groups) ? groups : (groups.data ?? []);
        const group = list.find((g) => g.symbol === 'default')!;
        await a.call('PUT', '/api/user_group', {
          id: group.id,
          name: 'Default',
          ratio: 1,
          api_rate: 0,
          public: true,
        });
        defaultGroupId = group.id;
        // The token works on both nodes before the tests begin (the channel reached node b).
        let last = 0;
        await within(5000, 'the channel on node b', async () => {
          last = await chat(nodes[1]!.origin, key, 'gpt-4o');
          return last === 200;
        }).catch((err) => {
          throw new Error(
            `${String(err)} (last status ${last}; node a: ${nodes[0]!.log}; node b: ${nodes[1]!.log})`,
          );
        });
      }, 120_000);
      let defaultGroupId = 0;

      afterAll(async () => {
        for (const n of nodes) await n.dispose();
        redis?.kill('SIGKILL');
        await up?.close();
        await db?.drop();
      });

      it(`says at start when nodes share the database ${withRedis ? 'only with' : 'without'} Redis`, () => {
        if (withRedis) for (const n of nodes) expect(n.log).not.toContain('without Redis');
        else
          expect(nodes[1]!.log).toMatch(
            /2 nodes share this database \(node-b, node-a\) and this one runs without Redis/,
          );
      });

      it(`puts an option change in force on the other node within ${propagation} ms`, async () => {
        const name = `Cluster ${Math.random().toString(36).slice(2, 8)}`;
        expect(await systemName(nodes[1]!.origin)).not.toBe(name);
        await a.call('PUT', '/api/option', { key: 'SystemName', value: name });
        await within(
          propagation,
          'the option on node b',
          async () => (await systemName(nodes[1]!.origin)) === name,
        );
      });

      it(`puts a new channel and price in force on the other node within ${propagation} ms`, async () => {
        const model = `cluster-${Math.random().toString(36).slice(2, 8)}`;
        expect(await chat(nodes[1]!.origin, key, model)).not.toBe(200);
        await b.call('POST', '/api/prices/single', {
          model,
          type: 'tokens',
          channel_type: 1,
          input: 1,
          output: 2,
        });
        await b.call('POST', '/api/channel/', {
          type: 1,
          name: model,
          key: 'sk-upstream',
          base_url: `${up.url}/v1`,
          models: model,
          group: 'default',
        });
        await within(
          propagation,
          'the channel and price on node a',
          async () => (await chat(nodes[0]!.origin, key, model)) === 200,
        );
      });

      it(`ends a deleted token on the other node within ${propagation} ms (its cache would keep it 5 s)`, async () => {
        const spare = await a.call<{ id: number; key: string }>('POST', '/api/token/', {
          name: 'spare',
          expired_time: -1,
          remain_quota: 1_000_000,
          unlimited_quota: false,
        });
        // Node b has read the token and keeps it cached.
        expect(await chat(nodes[1]!.origin, spare.key, 'gpt-4o')).toBe(200);
        await a.call('DELETE', `/api/token/${spare.id}`);
        await within(
          propagation,
          'the token gone on node b',
          async () => (await chat(nodes[1]!.origin, spare.key, 'gpt-4o')) === 401,
        );
      });

      it('accepts a session opened on one node on the other', async () => {
        const login = await fetch(`${nodes[0]!.origin}/api/user/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'root', password: ROOT_PASSWORD }),
        });
        expect(login.status).toBe(200);
        const cookie = login.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; ');
        const self = await fetch(`${nodes[1]!.origin}/api/user/self`, { headers: { cookie } });
        expect(self.status).toBe(200);
        expect(((await self.json()) as { data: { username: string } }).data.username).toBe('root');
      });

      it('runs the statistics rollup on one node: both agree on a single lease holder', async () => {
        const leases = await within(10_000, 'the rollup lease taken', async () =>
          (await leaseHolders(db.url)).some((l) => l.name === 'statistics-rollup'),
        ).then(() => leaseHolders(db.url));
        const rollup = leases.filter((l) => l.name === 'statistics-rollup');
        expect(rollup).toHaveLength(1);
        expect(['node-a', 'node-b']).toContain(rollup[0]!.holder);
      });

      it('exports the database pool and, with Redis, its state in /metrics', async () => {
        const res = await fetch(`${nodes[0]!.origin}/metrics`, {
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        });
        expect(res.status).toBe(200);
        const text = await res.text();
        expect(text).toMatch(/^switchyard_db_pool_connections\{state="total",node="node-a"\} [1-9]\d*$/m);
        expect(text).toMatch(/^switchyard_db_pool_connections\{state="waiting",node="node-a"\} \d+$/m);
        if (withRedis) expect(text).toMatch(/^switchyard_redis_up\{node="node-a"\} 1$/m);
        else expect(text).not.toContain('switchyard_redis_up');
        // Node b found node a's heartbeat at its start: the two share the 20 ms between commits.
        const onB = await fetch(`${nodes[1]!.origin}/metrics`, {
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        });
        expect(await onB.text()).toMatch(/^switchyard_ledger_batch_gap_seconds\{node="node-b"\} 0\.04$/m);
      });

      it.skipIf(!withRedis)('shares a group rate limit across the nodes through Redis', async () => {
        await a.call('PUT', '/api/user_group', {
          id: defaultGroupId,
          name: 'Default',
          ratio: 1,
          api_rate: 6,
          public: true,
        });
        // The group change reaches node b (itself a propagation check): its first limited call is refused.
        const statuses: number[] = [];
        for (let i = 0; i < 10; i++) statuses.push(await chat(nodes[i % 2]!.origin, key, 'gpt-4o'));
        // Six calls a minute for root in the group, whichever node serves them.
        expect(statuses.filter((s) => s === 200)).toHaveLength(6);
        expect(statuses.filter((s) => s === 429)).toHaveLength(4);
        await a.call('PUT', '/api/user_group', {
          id: defaultGroupId,
          name: 'Default',
          ratio: 1,
          api_rate: 0,
          public: true,
        });
        await within(
          propagation,
          'the limit lifted on node b',
          async () => (await chat(nodes[1]!.origin, key, 'gpt-4o')) === 200,
        );
        await within(
          propagation,
          'the limit lifted on node a',
          async () => (await chat(nodes[0]!.origin, key, 'gpt-4o')) === 200,
        );
      });

      it(`keeps the books exact under ${CALLS} concurrent calls spread over the nodes`, async () => {
        // Settlements of the earlier tests' calls committed before the snapshot. A node gathers its
        // settlements for up to LEDGER_BATCH_GAP_MS, longer than one poll below; reading the log
        // commits what the node has waiting.
        for (const session of [a, b]) await session.call('GET', '/api/log/?p=0');
        let before = await books(db.url);
        await within(10_000, 'the earlier settlements committed', async () => {
          const again = await books(db.url);
          const still = JSON.stringify(again) === JSON.stringify(before) && again.heldReserves === 0;
          before = again;
          return still;
        });
        const statuses = await Promise.all(
          Array.from({ length: CALLS }, (_, i) => chat(nodes[i % nodes.length]!.origin, key, 'gpt-4o')),
        );
        const delivered = statuses.filter((s) => s === 200).length;
        expect(delivered).toBe(CALLS);
        // Stopped gracefully: every settlement committed, every reserve given back.
        for (const n of nodes) n.child.kill('SIGTERM');
        for (const n of nodes) expect((await n.exited).code).toBe(0);
        const after = await books(db.url, before.lastLogId);
        expect(after.rows).toBe(delivered);
        expect(after.logged).toBeGreaterThan(0);
        expect({
          userDrop: before.userQuota - after.userQuota,
          userUsed: after.userUsed - before.userUsed,
          tokenDrop: before.tokenRemain - after.tokenRemain,
          tokenUsed: after.tokenUsed - before.tokenUsed,
          heldReserves: after.heldReserves,
        }).toEqual({
          userDrop: after.logged,
          userUsed: after.logged,
          tokenDrop: after.logged,
          tokenUsed: after.logged,
          heldReserves: 0,
        });
      }, 120_000);
    });
  }
}
