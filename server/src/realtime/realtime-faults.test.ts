import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createDb } from '../db/create-db.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../test/databases.js';
import { type FakeRealtime, startFakeRealtime } from '../test/fake-realtime.js';
import { GatewayProcess, RootSession } from '../test/gateway-process.js';

// A real gateway process killed (SIGKILL) in the middle of a Realtime session, right after the client
// received a response.done: the restarted node settles what its journal holds, and the books show
// exactly the responses delivered, the session's open reserve given back.

const TOKEN_START = 1_000_000;
const COST = 14;

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`realtime faults (${target.engine})`, () => {
    let up: FakeRealtime;
    let db: TestDatabase | undefined;
    const nodes: GatewayProcess[] = [];

    beforeAll(async () => {
      up = await startFakeRealtime({ apiKey: 'sk-upstream' });
      up.setScenario({ text: 'hello there', usage: { input: 10, output: 2 } });
      if (target.engine !== 'sqlite') db = await createTestDatabase(target);
    });
    afterAll(async () => {
      for (const n of nodes) await n.dispose();
      await up?.close();
      await db?.drop();
    });

    it('kill -9 after a response.done reached the client: the restart bills every delivered response once', async () => {
      const first = await GatewayProcess.start({ ...(db ? { databaseUrl: db.url } : {}) });
      nodes.push(first);
      const root = await RootSession.open(first.origin);
      await root.call('POST', '/api/prices/single', {
        model: 'gpt-rt',
        type: 'tokens',
        channel_type: 1,
        input: 1,
        output: 2,
      });
      const key = await root.channelAndToken(up.url, 'gpt-rt', TOKEN_START);

      const ws = new WebSocket(`${first.origin.replace('http', 'ws')}/v1/realtime?model=gpt-rt`, {
        headers: { authorization: `Bearer ${key}` },
      });
      ws.on('error', () => {});
      let dones = 0;
      const delivered = new Promise<void>((resolve) => {
        ws.on('message', (data) => {
          const event = JSON.parse(String(data)) as { type: string };
          if (event.type === 'session.created' || (event.type === 'response.done' && dones < 2)) {
            if (event.type === 'response.done') dones++;
            if (dones === 2) {
              // At once, before anything else can happen: the settlement must already be on file.
              first.child.kill('SIGKILL');
              resolve();
              return;
            }
            ws.send(JSON.stringify({ type: 'response.create' }));
          }
        });
      });
      await delivered;
      await first.exited;

      const again = await GatewayProcess.start({
        ...(db ? { databaseUrl: db.url } : {}),
        dataDir: first.dataDir,
      });
      nodes.push(again);
      again.child.kill('SIGTERM');
      expect((await again.exited).code).toBe(0);

      const d = createDb(db?.url ?? `sqlite:${first.dataDir}/switchyard.db`);
      try {
        const token = await d.db
          .selectFrom('tokens')
          .select(['remain_quota', 'used_quota'])
          .where('name', '=', 'fault')
          .executeTakeFirstOrThrow();
        const logs = await d.db
          .selectFrom('logs')
          .select(['quota', 'model_name'])
          .where('type', '=', LogType.Consume)
          .execute();
        const held = await d.db
          .selectFrom('reserves')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('returned', '=', 0)
          .executeTakeFirstOrThrow();
        expect(logs.map((l) => [Number(l.quota), l.model_name])).toEqual([
          [COST, 'gpt-rt'],
          [COST, 'gpt-rt'],
        ]);
        expect(Number(token.used_quota)).toBe(2 * COST);
        expect(Number(token.remain_quota)).toBe(TOKEN_START - 2 * COST);
        expect(Number(held.n)).toBe(0);
      } finally {
        await d.close();
      }
    }, 120_000);
  });
}
