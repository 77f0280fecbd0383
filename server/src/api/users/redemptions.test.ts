import { LogType, logEventOf, RedemptionStatus } from '@switchyard/domain';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// Redemption codes and top-up by code on every database engine: validation (count at least 1, quota
// at least 0), sealed keys that leave only through the calls meant to show them, codes that cannot
// change once used, and a code redeemed exactly once even by 20 requests at the same moment.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

for (const engine of engineTargets()) {
  describe.skipIf(engine.skipReason !== undefined)(`redemption codes on ${engine.engine}`, () => {
    let t: TestApp;
    let root: string;
    let rootId: number;
    let user: string;
    let userId: number;

    const call = (cookie: string | undefined, method: Method, url: string, payload?: unknown) => {
      const opts: InjectOptions = { method, url, headers: cookie ? { cookie } : {} };
      if (payload !== undefined) opts.payload = payload as InjectOptions['payload'];
      return t.call(opts);
    };
    const create = async (body: Record<string, unknown>): Promise<string[]> => {
      const res = await call(root, 'POST', '/api/redemption/', body);
      if (res.statusCode !== 200) throw new Error(`create failed: ${res.body}`);
      return res.json().data as string[];
    };
    const rowByKey = (key: string) =>
      t.s.database.db
        .selectFrom('redemptions')
        .selectAll()
        .where('key_hash', '=', t.s.secretBox.mac(key))
        .executeTakeFirstOrThrow();
    const count = async (table: 'redemptions' | 'logs') =>
      Number(
        (
          await t.s.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const balance = async (id: number) => (await t.s.repos.users.byId(id))!.quota;
    const topup = (cookie: string, key: string) => call(cookie, 'POST', '/api/user/topup', { key });

    beforeAll(async () => {
      t = await createTestApp({ engine });
      root = await t.signIn('root', ROOT_PASSWORD);
      rootId = (await t.s.repos.users.byUsername('root'))!.id;
      userId = await registerUser(t, 'buyer');
      user = await t.signIn('buyer', 'password-123');
    });
    afterAll(async () => t?.close());

    it('creates a batch and answers with the keys, stored sealed and found by HMAC', async () => {
      const keys = await create({ name: 'launch', quota: 1000, count: 3 });
      expect(keys).toHaveLength(3);
      for (const key of keys) {
        expect(key).toMatch(/^[0-9a-f]{32}$/);
        const row = await rowByKey(key);
        expect(row).toMatchObject({
          name: 'launch',
          quota: 1000,
          status: RedemptionStatus.Enabled,
          user_id: rootId,
          redeemed_by: 0,
          redeemed_time: 0,
        });
        expect(row.key_sealed).not.toContain(key);
        expect(t.s.secretBox.decrypt(row.key_sealed)).toBe(key);
      }
      expect(new Set(keys).size).toBe(3);
    });

    it('refuses every invalid batch with 400 and writes nothing', async () => {
      const before = await count('redemptions');
      const cases: [Record<string, unknown>, string][] = [
        [{ name: 'x', quota: 1, count: 0 }, 'Count must be at least 1'],
        [{ name: 'x', quota: 1, count: 101 }, 'at most 100'],
        [{ name: 'x', quota: 1, count: 1.5 }, 'whole number'],
        [{ name: 'x', quota: -1, count: 1 }, 'Quota cannot be negative'],
        [{ name: 'x', quota: 0.5, count: 1 }, 'whole number'],
        [{ name: 'x', count: 1 }, 'Quota is required'],
        [{ name: '', quota: 1, count: 1 }, 'Name is required'],
        [{ name: '   ', quota: 1, count: 1 }, 'Name is required'],
        [{ name: 'x'.repeat(21), quota: 1, count: 1 }, 'at most 20'],
        [{ quota: 1, count: 1 }, 'Name is required'],
        [{ name: 'x', quota: 1, count: 1, status: 3 }, 'status'],
      ];
      for (const [body, message] of cases) {
        const res = await call(root, 'POST', '/api/redemption/', body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().message, JSON.stringify(body)).toContain(message);
      }
      expect(await count('redemptions')).toBe(before);
      // Zero quota is allowed (the floor is 0), as is a count of 100.
      expect(await create({ name: 'zero', quota: 0, count: 1 })).toHaveLength(1);
      expect(await create({ name: 'hundred', quota: 1, count: 100 })).toHaveLength(100);
    });

    it('lists and gets codes without keys; the key leaves only through .../key and the export', async () => {
      const [key] = await create({ name: 'findme', quota: 7, count: 1 });
      const row = await rowByKey(key!);
      const list = await call(root, 'GET', '/api/redemption/?keyword=FIND');
      expect(list.statusCode).toBe(200);
      expect(list.json().data.data).toHaveLength(1);
      expect(list.json().data.data[0]).toMatchObject({
        id: row.id,
        name: 'findme',
        quota: 7,
        user_id: rootId,
      });
      expect(list.body).not.toContain(key);
      expect(list.body).not.toContain('key_sealed');
      const byId = await call(root, 'GET', `/api/redemption/?keyword=${row.id}`);
      expect(byId.json().data.data.map((r: { id: number }) => r.id)).toContain(row.id);
      expect((await call(root, 'GET', '/api/redemption/?order=key_hash')).statusCode).toBe(400);

      const one = await call(root, 'GET', `/api/redemption/${row.id}`);
      expect(one.json().data).toMatchObject({ id: row.id, status: RedemptionStatus.Enabled });
      expect(one.body).not.toContain(key);
      expect((await call(root, 'GET', '/api/redemption/999999')).statusCode).toBe(404);

      const shown = await call(root, 'GET', `/api/redemption/${row.id}/key`);
      expect(shown.json().data).toBe(key);
      const exported = await call(root, 'GET', '/api/redemption/export?keyword=findme');
      expect(exported.json().data).toEqual([{ id: row.id, name: 'findme', quota: 7, status: 1, key }]);
      const audits = await t.s.database.db
        .selectFrom('audit_logs')
        .select('action')
        .where('action', 'in', ['redemption.key.view', 'redemption.export'])
        .execute();
      expect(audits.map((a) => a.action).sort()).toEqual(['redemption.export', 'redemption.key.view']);

      const plain = await call(user, 'GET', `/api/redemption/${row.id}/key`);
      expect(plain.statusCode).toBe(403);
    });

    it('top-up redeems a code once: credits the user, records the redeemer, writes a top-up log', async () => {
      const [key] = await create({ name: 'gift', quota: 2500, count: 1 });
      const before = await balance(userId);
      const logs = await count('logs');
      const res = await topup(user, key!);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toBe(2500);
      expect(await balance(userId)).toBe(before + 2500);
      const row = await rowByKey(key!);
      expect(row).toMatchObject({ status: RedemptionStatus.Used, redeemed_by: userId, user_id: rootId });
      expect(row.redeemed_time).toBeGreaterThan(0);
      const log = await t.s.database.db
        .selectFrom('logs')
        .selectAll()
        .where('user_id', '=', userId)
        .where('type', '=', LogType.Topup)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(log).toMatchObject({ quota: 2500, username: 'buyer' });
      // The console writes the sentence in the reader's language from these fields.
      expect(logEventOf(JSON.parse(log.metadata))).toMatchObject({ kind: 'redeem', code_id: row.id });
      expect(await count('logs')).toBe(logs + 1);

      const again = await topup(user, key!);
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toContain('already been used');
      expect(await balance(userId)).toBe(before + 2500);
      expect(await count('logs')).toBe(logs + 1);
    });

    it('a key typed in capitals or with spaces around it still matches', async () => {
      const [key] = await create({ name: 'caps', quota: 3, count: 1 });
      const res = await topup(user, `  ${key!.toUpperCase()} `);
      expect(res.statusCode).toBe(200);
    });

    it('refuses a missing, unknown or disabled code without crediting anything', async () => {
      const before = await balance(userId);
      const logs = await count('logs');
      expect((await call(user, 'POST', '/api/user/topup', {})).statusCode).toBe(400);
      expect((await topup(user, '')).json().message).toContain('required');
      const unknown = await topup(user, '0'.repeat(32));
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toMatchObject({
        message: 'Invalid redemption code',
        code: 'redemption_invalid',
      });
      expect((await topup(user, 'x'.repeat(65))).statusCode).toBe(400);

      const [key] = await create({ name: 'paused', quota: 50, count: 1 });
      const row = await rowByKey(key!);
      const off = await call(root, 'PUT', '/api/redemption/?status_only=1', { id: row.id, status: 2 });
      expect(off.statusCode).toBe(200);
      expect(off.json().data.status).toBe(RedemptionStatus.Disabled);
      const disabled = await topup(user, key!);
      expect(disabled.statusCode).toBe(409);
      expect(disabled.json().message).toContain('disabled');
      expect(disabled.json().code).toBe('redemption_disabled');
      expect(await balance(userId)).toBe(before);
      expect(await count('logs')).toBe(logs);

      await call(root, 'PUT', '/api/redemption/?status_only=1', { id: row.id, status: 1 });
      expect((await topup(user, key!)).statusCode).toBe(200);
    });

    it('edits name and quota of an unused code; a used code cannot change', async () => {
      const [key] = await create({ name: 'editable', quota: 10, count: 1 });
      const row = await rowByKey(key!);
      const res = await call(root, 'PUT', '/api/redemption/', { id: row.id, name: 'edited', quota: 20 });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ name: 'edited', quota: 20 });

      for (const [body, message] of [
        [{ id: row.id, name: 'edited', quota: -5 }, 'cannot be negative'],
        [{ id: row.id, name: '', quota: 5 }, 'Name is required'],
        [{ id: row.id, quota: 5 }, 'Name is required'],
        [{ id: row.id, name: 'x'.repeat(21), quota: 5 }, 'at most 20'],
      ] as const) {
        const bad = await call(root, 'PUT', '/api/redemption/', body);
        expect(bad.statusCode, JSON.stringify(body)).toBe(400);
        expect(bad.json().message).toContain(message);
      }
      const status3 = await call(root, 'PUT', '/api/redemption/?status_only=1', { id: row.id, status: 3 });
      expect(status3.statusCode).toBe(400);
      expect((await rowByKey(key!)).quota).toBe(20);

      expect((await topup(user, key!)).json().data).toBe(20);
      const used = await call(root, 'PUT', '/api/redemption/', { id: row.id, name: 'more', quota: 99999 });
      expect(used.statusCode).toBe(409);
      expect(used.json().message).toContain('already been redeemed');
      expect(
        (await call(root, 'PUT', '/api/redemption/?status_only=1', { id: row.id, status: 1 })).statusCode,
      ).toBe(409);
      expect(await rowByKey(key!)).toMatchObject({
        name: 'edited',
        quota: 20,
        status: RedemptionStatus.Used,
      });
      expect(
        (await call(root, 'PUT', '/api/redemption/', { id: 999999, name: 'x', quota: 1 })).statusCode,
      ).toBe(404);
    });

    it('deletes a code; a deleted code cannot be redeemed', async () => {
      const [key] = await create({ name: 'doomed', quota: 10, count: 1 });
      const row = await rowByKey(key!);
      const res = await call(root, 'DELETE', `/api/redemption/${row.id}`);
      expect(res.statusCode).toBe(200);
      expect((await call(root, 'GET', `/api/redemption/${row.id}`)).statusCode).toBe(404);
      expect((await call(root, 'DELETE', `/api/redemption/${row.id}`)).statusCode).toBe(404);
      expect((await topup(user, key!)).statusCode).toBe(400);
    });

    it('the export gives unused codes by default and every state with status=0', async () => {
      await create({ name: 'exp', quota: 1, count: 2 });
      const [usedKey] = await create({ name: 'exp', quota: 1, count: 1 });
      await topup(user, usedKey!);
      const unused = (await call(root, 'GET', '/api/redemption/export?keyword=exp')).json().data;
      expect(unused).toHaveLength(2);
      expect(unused.every((c: { status: number }) => c.status === RedemptionStatus.Enabled)).toBe(true);
      const all = (await call(root, 'GET', '/api/redemption/export?keyword=exp&status=0')).json().data;
      expect(all).toHaveLength(3);
      expect(all.map((c: { key: string }) => c.key)).toContain(usedKey);
    });

    it('one code redeemed by 20 parallel requests credits exactly once', async () => {
      const [key] = await create({ name: 'race', quota: 777, count: 1 });
      const otherId = await registerUser(t, 'racer2');
      const other = await t.signIn('racer2', 'password-123');
      const before = (await balance(userId)) + (await balance(otherId));
      const logs = await count('logs');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => topup(i % 2 === 0 ? user : other, key!)),
      );
      const codes = results.map((r) => r.statusCode);
      expect(codes.filter((c) => c === 200)).toHaveLength(1);
      expect(codes.filter((c) => c === 409)).toHaveLength(19);
      expect((await balance(userId)) + (await balance(otherId))).toBe(before + 777);
      expect(await count('logs')).toBe(logs + 1);
      const row = await rowByKey(key!);
      expect(row.status).toBe(RedemptionStatus.Used);
      expect([userId, otherId]).toContain(row.redeemed_by);
      const winner = results.findIndex((r) => r.statusCode === 200);
      expect(row.redeemed_by).toBe(winner % 2 === 0 ? userId : otherId);
    });
  });
}

describe('top-up by code is rate-limited like sign-in', () => {
  let t: TestApp;
  afterAll(async () => t?.close());

  it('answers 429 once the critical budget of the address is spent', async () => {
    t = await createTestApp({ env: { CRITICAL_RATE_LIMIT: '6' } });
    // Sign-up and sign-in spend two of the six.
    await registerUser(t, 'guesser');
    const cookie = await t.signIn('guesser', 'password-123');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await t.call({
        method: 'POST',
        url: '/api/user/topup',
        headers: { cookie },
        payload: { key: i.toString(16).padStart(32, '0') },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 429, 429]);
  });
});
