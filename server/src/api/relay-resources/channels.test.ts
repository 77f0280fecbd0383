import { generateKeyPairSync } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

interface ChannelJson {
  id: number;
  type: number;
  name: string;
  status: number;
  priority: number;
  weight: number;
  base_url: string;
  other: string;
  models: string[];
  group: string[];
  tag: string;
  model_mapping: Record<string, string>;
  model_headers: Record<string, string>;
  test_model: string;
  only_chat: boolean;
}

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

/** A service-account key as Google Cloud issues it (shape and fields; the key is a fresh one). */
function serviceAccount() {
  return {
    type: 'service_account',
    project_id: 'switchyard-test',
    private_key_id: '3f1c2a9e0b7d4c6a8e5f1b2c3d4e5f6a7b8c9d0e',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: 'relay@switchyard-test.iam.gserviceaccount.com',
    client_id: '109876543210987654321',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
  };
}

const base = {
  type: 1,
  name: 'main',
  key: 'sk-upstream-one',
  models: ['gpt-4o', 'gpt-4o-mini'],
  group: ['default'],
};

// The list filters are where the engines differ (LIKE and case, the `group` column), so the whole
// suite runs on each of them.
for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`channels API on ${target.engine}`, () => {
    let t: TestApp;
    let root: string;
    const call = (opts: InjectOptions) => t.call({ ...opts, headers: { ...opts.headers, cookie: root } });
    const create = (payload: Record<string, unknown>) =>
      call({ method: 'POST', url: '/api/channel/', payload: { ...base, ...payload } });
    const update = (payload: Record<string, unknown>) =>
      call({ method: 'PUT', url: '/api/channel/', payload });
    const get = async (id: number) =>
      (await call({ method: 'GET', url: `/api/channel/${id}` })).json().data as ChannelJson;
    const keyOf = async (id: number) =>
      (await call({ method: 'GET', url: `/api/channel/${id}/key` })).json().data;
    const list = async (q: string) => {
      const res = await call({ method: 'GET', url: `/api/channel/?${q}` });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data as { data: ChannelJson[]; total_count: number };
    };
    const channelCount = async () =>
      Number(
        (
          await t.s.database.db
            .selectFrom('channels')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    beforeAll(async () => {
      t = await createTestApp({ engine: target });
      root = await t.signIn('root', ROOT_PASSWORD);
    });
    afterAll(async () => t?.close());

    it('creates one channel per key line, with base URLs matched by index', async () => {
      let published = 0;
      t.s.bus.subscribe('channels', () => published++);
      const res = await create({
        type: 8,
        name: 'multi',
        key: 'key-aaa-111\n\n  key-bbb-222  \nkey-ccc-333\n',
        base_url: 'https://one.example/v1\nhttps://two.example/v1/',
      });
      expect(res.statusCode, res.body).toBe(200);
      const made = res.json().data as ChannelJson[];
      expect(made.map((c) => c.name)).toEqual(['multi', 'multi_2', 'multi_3']);
      expect(made.map((c) => c.base_url)).toEqual([
        'https://one.example/v1',
        'https://two.example/v1',
        'https://one.example/v1',
      ]);
      expect(await Promise.all(made.map((c) => keyOf(c.id)))).toEqual([
        'key-aaa-111',
        'key-bbb-222',
        'key-ccc-333',
      ]);
      expect(published).toBe(1);

      // Keys leave through /key only: not in the create answer, lists, gets or the audit log.
      const listed = await call({ method: 'GET', url: '/api/channel/?name=multi' });
      const one = await call({ method: 'GET', url: `/api/channel/${made[0]!.id}` });
      const audit = JSON.stringify(await t.s.repos.auditLogs.recent(50));
      for (const text of [res.body, listed.body, one.body, audit]) {
        for (const k of ['key-aaa-111', 'key-bbb-222', 'key-ccc-333']) expect(text).not.toContain(k);
        expect(text).not.toContain('key_sealed');
      }
      // The stored column is sealed, not the key.
      const row = await t.s.repos.channels.byId(made[0]!.id);
      expect(row?.key_sealed).not.toContain('key-aaa-111');
      expect(audit).toContain('channel.key.view');
    });

    it('applies the catalog: selectable types, defaults and required base URLs', async () => {
      const azure = await create({ type: 3, name: 'az', base_url: 'https://res.openai.azure.com' });
      expect(azure.statusCode).toBe(200);
      expect(azure.json().data[0].other).toBe('2024-10-21');
      const vertexKey = JSON.stringify(serviceAccount(), null, 2);
      const vertex = await create({ type: 42, name: 'vx', key: vertexKey, other: 'us-east5' });
      expect(vertex.statusCode, vertex.body).toBe(200);
      expect(vertex.json().data).toHaveLength(1);
      expect(await keyOf(vertex.json().data[0].id)).toBe(vertexKey);
    });

    it('refuses invalid channels with a 400 naming the field, and writes nothing', async () => {
      const before = await channelCount();
      const cases: [Record<string, unknown>, string][] = [
        [{ name: '' }, 'name'],
        [{ key: '  \n ' }, 'key'],
        [{ models: [] }, 'models'],
        [{ models: '' }, 'models'],
        [{ models: ['a', 'b', 'a'] }, 'models'],
        [{ models: ['gpt-*-mini'] }, 'models'],
        [{ models: ['*'] }, 'models'],
        [{ group: [] }, 'group'],
        [{ group: ['default', 'nope'] }, 'group'],
        [{ type: 11 }, 'type'],
        [{ type: 9999 }, 'type'],
        [{ type: 3 }, 'base_url'],
        [{ base_url: 'ftp://x' }, 'base_url'],
        [{ priority: -1 }, 'priority'],
        [{ weight: 0 }, 'weight'],
        [{ model_mapping: '{"a": ' }, 'model_mapping'],
        [{ model_mapping: '{"a": 1}' }, 'model_mapping'],
        [{ model_mapping: '["a"]' }, 'model_mapping'],
        [{ model_headers: { 'x-a': 2 } }, 'model_headers'],
        [{ proxy: 'file:///etc/passwd' }, 'proxy'],
        [{ status: 3 }, 'status'],
        [{ balance: 5 }, ''],
      ];
      for (const [payload, path] of cases) {
        const res = await create(payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().code).toBe('invalid_request');
        if (path) expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
      }
      const missing = await call({ method: 'POST', url: '/api/channel/', payload: { name: 'x' } });
      const paths = missing.json().errors.map((e: { path: string }) => e.path);
      expect(paths).toEqual(expect.arrayContaining(['type', 'key', 'models', 'group']));
      expect(await channelCount()).toBe(before);
    });

    it("refuses type-specific settings the channel's vendor cannot use, naming the field, writing nothing", async () => {
      const before = await channelCount();
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ type: 32, key: 'AKID|secret' }, 'key', /region/],
        [{ type: 32, key: 'us-east-1|AKID|secret|token|extra' }, 'key', /Region\|AccessKeyID/],
        [{ type: 42, key: '{"type":"service_account"}', other: 'us-east5' }, 'key', /client_email/],
        [{ type: 42, key: 'not json', other: 'us-east5' }, 'key', /service-account JSON/],
        [{ type: 42, key: JSON.stringify(serviceAccount()) }, 'other', /Region\|ProjectID/],
        [{ type: 3, base_url: 'https://r.openai.azure.com', other: 'latest' }, 'other', /API version/],
        [{ type: 16, key: 'no-dot-here' }, 'key', /id\.secret/],
        [{ type: 15, key: 'ak|sk' }, 'key', /v2 API key/],
        [{ type: 24, key: 'speech-key', other: 'East US' }, 'other', /region/],
        [
          { type: 24, key: 'speech-key', other: 'eastus', plugin: { voice: { alloy: 7 } } },
          'plugin',
          /voice\.alloy/,
        ],
      ];
      for (const [payload, path, message] of cases) {
        const res = await create(payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual([path]);
        expect(res.json().message).toMatch(message);
      }
      expect(await channelCount()).toBe(before);

      const good = await create({ type: 32, name: 'bedrock', key: 'us-east-1|AKID|secret' });
      expect(good.statusCode, good.body).toBe(200);
      const id = good.json().data[0].id as number;
      const bad = await update({ id, key: 'AKID|secret' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors[0].path).toBe('key');
      expect(await keyOf(id)).toBe('us-east-1|AKID|secret');
      const speech = (await create({ type: 24, name: 'speech', key: 'k', other: 'eastus' })).json().data[0];
      const badOther = await update({ id: speech.id, other: 'East US' });
      expect(badOther.statusCode).toBe(400);
      expect((await get(speech.id)).other).toBe('eastus');
      expect(
        (await update({ id: speech.id, plugin: { voice: { nova: 'en-US-AvaNeural' } } })).statusCode,
      ).toBe(200);
      // Changes that do not touch the settings pass whatever they hold.
      expect((await update({ id, priority: 4 })).statusCode).toBe(200);
    });

    it('updates only the fields present and keeps the key unless a new one is given', async () => {
      const ch = (
        await create({
          name: 'partial',
          key: 'partial-key-1',
          models: 'm1,m2',
          group: 'default,vip',
          model_mapping: '{"m1": "+upstream-m1"}',
          test_model: 'm1',
          tag: 'blue',
          priority: 3,
          weight: 7,
        })
      ).json().data[0] as ChannelJson;
      expect(ch).toMatchObject({
        models: ['m1', 'm2'],
        group: ['default', 'vip'],
        model_mapping: { m1: '+upstream-m1' },
      });

      const res = await update({ id: ch.id, priority: 9 });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual(await get(ch.id));
      expect(await get(ch.id)).toEqual({ ...ch, priority: 9 });
      expect(await keyOf(ch.id)).toBe('partial-key-1');

      await update({ id: ch.id, key: '', status: 2 });
      expect(await keyOf(ch.id)).toBe('partial-key-1');
      expect((await get(ch.id)).status).toBe(2);

      await update({ id: ch.id, key: ' partial-key-2 ', models: ['m3'] });
      expect(await keyOf(ch.id)).toBe('partial-key-2');
      expect(await get(ch.id)).toEqual({ ...ch, priority: 9, status: 2, models: ['m3'] });

      // The same rules apply to what is sent, on the merged channel.
      const bad: [Record<string, unknown>, number, string][] = [
        [{ models: [] }, 400, 'models'],
        [{ weight: 0 }, 400, 'weight'],
        [{ key: 'a\nb' }, 400, 'key'],
        [{ type: 3 }, 400, 'base_url'],
        [{ group: ['ghost'] }, 400, 'group'],
      ];
      for (const [payload, status, path] of bad) {
        const r = await update({ id: ch.id, ...payload });
        expect(r.statusCode, JSON.stringify(payload)).toBe(status);
        expect(r.json().errors[0].path).toBe(path);
      }
      expect(await get(ch.id)).toEqual({ ...ch, priority: 9, status: 2, models: ['m3'] });
      expect((await update({ id: 999_999, priority: 1 })).statusCode).toBe(404);
    });

    it('filters by type, status, name, group, models, tag, key and test model', async () => {
      const mk = async (payload: Record<string, unknown>) =>
        (await create(payload)).json().data[0] as ChannelJson;
      const a = await mk({
        name: 'Filter-Alpha',
        key: 'fk-alpha',
        type: 28,
        group: ['vip'],
        models: ['deepseek-chat'],
        tag: 'ftag',
        test_model: 'deepseek-chat',
      });
      const b = await mk({
        name: 'filter_beta',
        key: 'fk-beta',
        type: 28,
        group: ['svip', 'default'],
        models: ['deepseek-reasoner', 'Deep-Thought'],
        tag: 'ftag2',
        test_model: 'other-model',
      });
      const c = await mk({
        name: 'filter%gamma',
        key: 'fk-gamma',
        type: 29,
        group: ['default'],
        models: ['kimi'],
      });
      await update({ id: c.id, status: 2 });
      const ids = async (q: string) =>
        (await list(`size=100&${q}`)).data.map((r) => r.id).sort((x, y) => x - y);

      expect(await ids('name=FILTER')).toEqual([a.id, b.id, c.id]);
      expect(await ids('name=r%25g')).toEqual([c.id]);
      expect(await ids('name=r_b')).toEqual([b.id]);
      expect(await ids('name=filter&type=28')).toEqual([a.id, b.id]);
      expect(await ids('name=filter&status=2')).toEqual([c.id]);
      expect(await ids('group=vip&name=filter')).toEqual([a.id]);
      expect(await ids('group=svip')).toEqual([b.id]);
      expect(await ids('group=default&name=filter')).toEqual([b.id, c.id]);
      expect(await ids('group=VIP')).toEqual([]);
      expect(await ids('models=deep-t')).toEqual([b.id]);
      expect(await ids('models=deepseek')).toEqual([a.id, b.id]);
      expect(await ids('tag=ftag')).toEqual([a.id]);
      expect(await ids('key=fk-beta')).toEqual([b.id]);
      expect(await ids('key=fk-bet')).toEqual([]);
      expect(await ids('key=fk-beta&type=29')).toEqual([]);
      expect(await ids('test_model=DEEPSEEK')).toEqual([a.id]);
      expect(await ids('test_model=chat')).toEqual([]);
      expect(await ids('name=filter&type=')).toEqual([a.id, b.id, c.id]);

      const page = await list('name=filter&order=name&size=2');
      expect(page.total_count).toBe(3);
      expect(page.data).toHaveLength(2);
      // Names chosen to sort alike under binary and linguistic collations.
      expect((await list('name=filter&type=28&order=name')).data.map((r) => r.id)).toEqual([a.id, b.id]);
      expect((await list('name=filter&type=28&order=-name')).data.map((r) => r.id)).toEqual([b.id, a.id]);
      const byType = await list('name=filter&order=-type,id');
      expect(byType.data.map((r) => r.id)).toEqual([c.id, a.id, b.id]);
      const bad = await call({ method: 'GET', url: '/api/channel/?order=key_sealed' });
      expect(bad.statusCode).toBe(400);
    });

    it('deletes softly, and a deleted channel is gone from every route', async () => {
      const ch = (await create({ name: 'doomed', key: 'doomed-key' })).json().data[0] as ChannelJson;
      expect((await call({ method: 'DELETE', url: `/api/channel/${ch.id}` })).statusCode).toBe(200);
      for (const opts of [
        { method: 'GET', url: `/api/channel/${ch.id}` },
        { method: 'GET', url: `/api/channel/${ch.id}/key` },
        { method: 'DELETE', url: `/api/channel/${ch.id}` },
      ] as InjectOptions[]) {
        expect((await call(opts)).statusCode).toBe(404);
      }
      expect((await update({ id: ch.id, priority: 1 })).statusCode).toBe(404);
      expect((await list('name=doomed')).total_count).toBe(0);
      const row = await t.s.database.db
        .selectFrom('channels')
        .select('deleted_at')
        .where('id', '=', ch.id)
        .executeTakeFirst();
      expect(row?.deleted_at).toBeGreaterThan(0);
    });

    it('is for administrators only', async () => {
      await registerUser(t, 'plain');
      const user = await t.signIn('plain', 'password-123');
      const res = await t.call({ method: 'GET', url: '/api/channel/1/key', headers: { cookie: user } });
      expect(res.statusCode).toBe(403);
    });
  });
}
