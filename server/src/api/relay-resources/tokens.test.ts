import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyHash } from '../../auth/api-keys.js';
import { createTestApp, registerUser, type TestApp } from '../../test/test-app.js';

interface TokenJson {
  id: number;
  user_id: number;
  name: string;
  key?: string;
  key_hint: string;
  status: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  group: string;
  models: string[] | null;
  subnet: string;
}

describe('tokens API', () => {
  let t: TestApp;
  let alice: string;
  let bob: string;
  let aliceId: number;
  let now: number;

  const as = (cookie: string) => (opts: InjectOptions) =>
    t.call({ ...opts, headers: { ...opts.headers, cookie } });
  const create = (cookie: string, payload: Record<string, unknown>) =>
    as(cookie)({
      method: 'POST',
      url: '/api/token/',
      payload: { expired_time: -1, remain_quota: 1000, unlimited_quota: false, ...payload },
    });
  const tokenCount = async () =>
    Number(
      (
        await t.s.database.db
          .selectFrom('tokens')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    t = await createTestApp();
    aliceId = await registerUser(t, 'alice');
    await registerUser(t, 'bob');
    alice = await t.signIn('alice', 'password-123');
    bob = await t.signIn('bob', 'password-123');
    now = t.s.clock.nowSeconds();
  });
  afterAll(async () => t?.close());

  it('creates a token and returns its full key once; lists and gets show only a hint', async () => {
    const res = await create(alice, {
      name: 'laptop',
      models: ['gpt-4o', 'gpt-4o'],
      subnet: '10.0.0.0/8, ::1',
    });
    expect(res.statusCode).toBe(200);
    const created = res.json().data as TokenJson;
    expect(created.key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    expect(created).toMatchObject({
      name: 'laptop',
      user_id: aliceId,
      status: 1,
      remain_quota: 1000,
      unlimited_quota: false,
      group: '',
      models: ['gpt-4o'],
      subnet: '10.0.0.0/8,::1',
    });
    const key = created.key!;
    const secret = key.slice(3);
    expect(created.key_hint).toBe(`sk-${secret.slice(0, 4)}…${secret.slice(-4)}`);

    const list = await as(alice)({ method: 'GET', url: '/api/token/' });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.data).toHaveLength(1);
    const one = await as(alice)({ method: 'GET', url: `/api/token/${created.id}` });
    expect(one.json().data.key_hint).toBe(created.key_hint);
    for (const body of [list.body, one.body]) {
      expect(body).not.toContain(secret);
      expect(body).not.toContain('key_sealed');
      expect(body).not.toContain('key_hash');
    }

    const again = await as(alice)({ method: 'GET', url: `/api/token/${created.id}/key` });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toBe(key);

    // At rest: found by HMAC, never stored in the clear.
    const row = await t.s.repos.tokens.byKeyHash(apiKeyHash(t.s.secretBox, key));
    expect(row?.id).toBe(created.id);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(await t.s.repos.auditLogs.recent(50))).not.toContain(secret);
  });

  it('refuses invalid bodies with a 400 naming the field, and writes nothing', async () => {
    const before = await tokenCount();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x'.repeat(31) }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'ok', expired_time: now - 10 }, 'expired_time'],
      [{ name: 'ok', expired_time: 0 }, 'expired_time'],
      [{ name: 'ok', remain_quota: -1 }, 'remain_quota'],
      [{ name: 'ok', remain_quota: 1.5 }, 'remain_quota'],
      [{ name: 'ok', subnet: '10.0.0.0/8,not-an-ip' }, 'subnet'],
      [{ name: 'ok', subnet: '1.2.3.4/33' }, 'subnet'],
      [{ name: 'ok', models: [''] }, 'models.0'],
      [{ name: 'ok', group: 'no-such-group' }, 'group'],
      [{ name: 'ok', key: 'sk-mine' }, ''],
    ];
    for (const [payload, path] of cases) {
      const res = await create(alice, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code).toBe('invalid_request');
      if (path) expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect(await tokenCount()).toBe(before);
  });

  it('allows public groups and the user own group, refuses private and disabled ones', async () => {
    expect((await create(alice, { name: 'public', group: 'default' })).statusCode).toBe(200);
    const vip = await create(alice, { name: 'vip', group: 'vip' });
    expect(vip.statusCode).toBe(403);
    expect(vip.json().code).toBe('group_not_allowed');
    await t.s.repos.users.update(aliceId, { group: 'vip' });
    expect((await create(alice, { name: 'vip', group: 'vip' })).statusCode).toBe(200);
    await t.s.database.db
      .updateTable('user_groups')
      .set({ enable: 0 })
      .where('symbol', '=', 'svip')
      .execute();
    await t.s.database.db
      .updateTable('user_groups')
      .set({ public: 1 })
      .where('symbol', '=', 'svip')
      .execute();
    const disabled = await create(alice, { name: 'svip', group: 'svip' });
    expect(disabled.statusCode).toBe(400);
    expect(disabled.json().errors[0].path).toBe('group');
    await t.s.repos.users.update(aliceId, { group: 'default' });
  });

  it("hides another user's tokens: 404 on get, key, update and delete; absent from lists", async () => {
    const mine = (await create(alice, { name: 'private' })).json().data as TokenJson;
    for (const opts of [
      { method: 'GET', url: `/api/token/${mine.id}` },
      { method: 'GET', url: `/api/token/${mine.id}/key` },
      { method: 'DELETE', url: `/api/token/${mine.id}` },
      {
        method: 'PUT',
        url: '/api/token/',
        payload: { id: mine.id, name: 'stolen', expired_time: -1, remain_quota: 1, unlimited_quota: true },
      },
      { method: 'PUT', url: '/api/token/?status_only=1', payload: { id: mine.id, status: 2 } },
    ] as InjectOptions[]) {
      const res = await as(bob)(opts);
      expect(res.statusCode, `${opts.method} ${opts.url}`).toBe(404);
    }
    const bobs = await as(bob)({ method: 'GET', url: '/api/token/' });
    expect(bobs.json().data.total_count).toBe(0);
    const still = await as(alice)({ method: 'GET', url: `/api/token/${mine.id}` });
    expect(still.json().data).toMatchObject({ name: 'private', status: 1 });
  });

  it('updates the whole token, or only its status with status_only, and tells the relay', async () => {
    let published = 0;
    t.s.bus.subscribe('tokens', () => published++);
    const tok = (await create(alice, { name: 'edit-me' })).json().data as TokenJson;
    const full = await as(alice)({
      method: 'PUT',
      url: '/api/token/',
      payload: {
        id: tok.id,
        name: 'edited',
        expired_time: now + 3600,
        remain_quota: 5,
        unlimited_quota: true,
        models: ['a', 'b'],
        subnet: '192.168.0.1',
      },
    });
    expect(full.statusCode).toBe(200);
    expect(full.json().data).toMatchObject({
      id: tok.id,
      name: 'edited',
      expired_time: now + 3600,
      remain_quota: 5,
      unlimited_quota: true,
      models: ['a', 'b'],
      subnet: '192.168.0.1',
      status: 1,
      key_hint: tok.key_hint,
    });
    const off = await as(alice)({
      method: 'PUT',
      url: '/api/token/?status_only=1',
      payload: { id: tok.id, status: 2 },
    });
    expect(off.json().data).toMatchObject({ status: 2, name: 'edited', remain_quota: 5 });
    // With status_only the rest of a full body is not applied.
    const only = await as(alice)({
      method: 'PUT',
      url: '/api/token/?status_only=1',
      payload: { ...full.json().data, name: 'ignored', remain_quota: 999, status: 1 },
    });
    expect(only.statusCode, only.body).toBe(200);
    expect(only.json().data).toMatchObject({ status: 1, name: 'edited', remain_quota: 5 });
    // status_only takes only {id, status}; a user cannot set the system states.
    const bad = await as(alice)({
      method: 'PUT',
      url: '/api/token/?status_only=1',
      payload: { id: tok.id, status: 3 },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('status');
    expect(published).toBe(3);
  });

  it('refuses to re-enable an expired or exhausted token until the cause is fixed', async () => {
    const tok = (await create(alice, { name: 'short', expired_time: now + 60 })).json().data as TokenJson;
    // It expired, and the relay marked it so.
    await t.s.database.db
      .updateTable('tokens')
      .set({ expired_time: now - 1, status: 3 })
      .where('id', '=', tok.id)
      .execute();
    const enable = (extra: Record<string, unknown> = {}) =>
      as(alice)({
        method: 'PUT',
        url: '/api/token/?status_only=1',
        payload: { id: tok.id, status: 1, ...extra },
      });
    const expired = await enable();
    expect(expired.statusCode).toBe(409);
    expect(expired.json().code).toBe('token_expired');
    expect(expired.json().message).toMatch(/expired/i);

    const fixed = await as(alice)({
      method: 'PUT',
      url: '/api/token/',
      payload: {
        id: tok.id,
        name: 'short',
        expired_time: -1,
        remain_quota: 0,
        unlimited_quota: false,
        status: 1,
      },
    });
    expect(fixed.statusCode).toBe(409);
    expect(fixed.json().code).toBe('token_exhausted');

    const ok = await as(alice)({
      method: 'PUT',
      url: '/api/token/',
      payload: {
        id: tok.id,
        name: 'short',
        expired_time: -1,
        remain_quota: 10,
        unlimited_quota: false,
        status: 1,
      },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.status).toBe(1);
  });

  it('deletes softly: gone from the API, kept in the table', async () => {
    const tok = (await create(alice, { name: 'bye' })).json().data as TokenJson;
    expect((await as(alice)({ method: 'DELETE', url: `/api/token/${tok.id}` })).statusCode).toBe(200);
    expect((await as(alice)({ method: 'GET', url: `/api/token/${tok.id}` })).statusCode).toBe(404);
    expect((await as(alice)({ method: 'DELETE', url: `/api/token/${tok.id}` })).statusCode).toBe(404);
    const row = await t.s.database.db
      .selectFrom('tokens')
      .selectAll()
      .where('id', '=', tok.id)
      .executeTakeFirst();
    expect(row?.deleted_at).toBeGreaterThan(0);
    expect(await t.s.repos.tokens.byKeyHash(row!.key_hash)).toBeUndefined();
  });

  it('lists with paging, a name-prefix keyword and whitelisted ordering', async () => {
    const carol = await (async () => {
      await registerUser(t, 'carol');
      return t.signIn('carol', 'password-123');
    })();
    for (const [name, quota] of [
      ['Prod-1', 30],
      ['prod-2', 10],
      ['dev', 20],
      ['100%_sure', 5],
    ] as const)
      await create(carol, { name, remain_quota: quota });
    const list = (q: string) => as(carol)({ method: 'GET', url: `/api/token/?${q}` });

    const page = await list('size=2&page=2');
    expect(page.json().data).toMatchObject({ page: 2, size: 2, total_count: 4 });
    expect(page.json().data.data).toHaveLength(2);

    const prod = await list('keyword=PROD');
    expect(
      prod
        .json()
        .data.data.map((r: TokenJson) => r.name)
        .sort(),
    ).toEqual(['Prod-1', 'prod-2']);
    // LIKE wildcards in the keyword are taken literally.
    expect((await list('keyword=100%25_')).json().data.data.map((r: TokenJson) => r.name)).toEqual([
      '100%_sure',
    ]);
    expect((await list('keyword=_')).json().data.total_count).toBe(0);

    const byQuota = await list('order=-remain_quota');
    expect(byQuota.json().data.data.map((r: TokenJson) => r.remain_quota)).toEqual([30, 20, 10, 5]);
    const bad = await list('order=key_hash');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('order');
    expect((await list('size=101')).statusCode).toBe(400);
  });

  it('gives each user one playground token: unlimited, never expiring, created on first use', async () => {
    await registerUser(t, 'dave');
    const dave = await t.signIn('dave', 'password-123');
    const first = await as(dave)({ method: 'GET', url: '/api/token/playground' });
    expect(first.statusCode).toBe(200);
    const key = first.json().data as string;
    expect(key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    const again = await as(dave)({ method: 'GET', url: '/api/token/playground' });
    expect(again.json().data).toBe(key);

    const listed = (await as(dave)({ method: 'GET', url: '/api/token/' })).json().data.data as TokenJson[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      name: 'sys_playground',
      unlimited_quota: true,
      expired_time: -1,
      status: 1,
      group: '',
    });
    const row = await t.s.repos.tokens.byKeyHash(apiKeyHash(t.s.secretBox, key));
    expect(row?.id).toBe(listed[0]?.id);

    // Another user gets a key of their own.
    const other = await as(alice)({ method: 'GET', url: '/api/token/playground' });
    expect(other.json().data).not.toBe(key);

    // Deleted: the next call makes a new one rather than answering with a dead key.
    await as(dave)({ method: 'DELETE', url: `/api/token/${listed[0]?.id}` });
    const fresh = (await as(dave)({ method: 'GET', url: '/api/token/playground' })).json().data as string;
    expect(fresh).not.toBe(key);
  });
});
