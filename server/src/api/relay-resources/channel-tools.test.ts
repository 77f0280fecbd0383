import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { defaultBalanceValues, type FakeBalance, startFakeBalance } from '../../test/fake-balance.js';
import { type FakeUpstream, startFakeUpstream } from '../../test/fake-upstream.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../../test/test-app.js';

interface ChannelJson {
  id: number;
  type: number;
  name: string;
  status: number;
  priority: number;
  weight: number;
  base_url: string;
  models: string[];
  group: string[];
  tag: string;
  model_mapping: Record<string, string>;
  test_model: string;
  balance: number;
  balance_updated_time: number;
  used_quota: number;
}

const base = { type: 1, models: ['gpt-4o'], group: ['default'] };

function harness(getApp: () => TestApp, getCookie: () => string) {
  const call = (opts: InjectOptions) =>
    getApp().call({ ...opts, headers: { ...opts.headers, cookie: getCookie() } });
  const create = async (payload: Record<string, unknown>) => {
    const res = await call({ method: 'POST', url: '/api/channel/', payload: { ...base, ...payload } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as ChannelJson[];
  };
  const get = async (id: number) => getApp().s.repos.channels.byId(id);
  const keyOf = async (id: number) =>
    (await call({ method: 'GET', url: `/api/channel/${id}/key` })).json().data as string;
  /** Every channel row, deleted ones included: "no write" means this does not change. */
  const snapshot = () => getApp().s.database.db.selectFrom('channels').selectAll().orderBy('id').execute();
  return { call, create, get, keyOf, snapshot };
}

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`channel tools on ${target.engine}`, () => {
    let t: TestApp;
    let root: string;
    const { call, create, get, keyOf, snapshot } = harness(
      () => t,
      () => root,
    );
    let published = 0;

    beforeAll(async () => {
      t = await createTestApp({ engine: target });
      root = await t.signIn('root', ROOT_PASSWORD);
      t.s.bus.subscribe('channels', () => published++);
    });
    afterAll(async () => t?.close());

    it('lists tags with their counts, a tag’s channels and its shared settings', async () => {
      const alpha = await create({ name: 'al', key: 'ka1\nka2\nka3', tag: 'alpha' });
      await create({ name: 'be', key: 'kb1', tag: 'beta' });
      await create({ name: 'plain', key: 'kp1' });
      await call({ method: 'PUT', url: '/api/channel/', payload: { id: alpha[1]!.id, status: 2 } });

      const tags = await call({ method: 'GET', url: '/api/channel_tag/_all' });
      expect(tags.json().data).toEqual([
        { tag: 'alpha', count: 3, enabled: 2 },
        { tag: 'beta', count: 1, enabled: 1 },
      ]);
      const list = await call({ method: 'GET', url: '/api/channel_tag/alpha/list' });
      expect((list.json().data as ChannelJson[]).map((c) => c.name)).toEqual(['al', 'al_2', 'al_3']);
      expect(list.body).not.toMatch(/ka\d|key_sealed/);
      const one = await call({ method: 'GET', url: '/api/channel_tag/alpha' });
      expect(one.json().data).toMatchObject({ id: alpha[0]!.id, name: 'al', tag: 'alpha', count: 3 });

      const missing = await call({ method: 'GET', url: '/api/channel_tag/nope/list' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().message).toBe('No channel has the tag "nope"');
    });

    it('edits a whole tag: shared fields reach every member, keys are diffed', async () => {
      const made = await create({ name: 'ed', key: 'ke1\nke2\nke3', tag: 'edit', models: ['old'] });
      const [c1, c2, c3] = made.map((c) => c.id) as [number, number, number];
      await call({ method: 'PUT', url: '/api/channel/', payload: { id: c2, priority: 5 } });
      published = 0;

      const res = await call({
        method: 'PUT',
        url: '/api/channel_tag/edit',
        payload: {
          key: 'ke2\n ke3 \nke4\n\nke5\nke4',
          models: ['m1', 'm2'],
          base_url: 'https://new.example/v1/',
          model_mapping: '{"m1": "+up-m1"}',
          group: ['default', 'vip'],
          test_model: 'm1',
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json().data as { added: number[]; removed: number[]; channels: ChannelJson[] };
      expect(data.removed).toEqual([c1]);
      expect(data.added).toHaveLength(2);
      expect(published).toBe(1);

      // The removed key's channel is gone; the kept ones keep their ids, names and own fields.
      expect(await get(c1)).toBeUndefined();
      expect(data.channels.map((c) => c.name)).toEqual(['ed_2', 'ed_3', 'ed_4', 'ed_5']);
      expect(await Promise.all(data.channels.map((c) => keyOf(c.id)))).toEqual(['ke2', 'ke3', 'ke4', 'ke5']);
      expect(data.channels.map((c) => c.id).slice(0, 2)).toEqual([c2, c3]);
      for (const c of data.channels) {
        expect(c).toMatchObject({
          models: ['m1', 'm2'],
          base_url: 'https://new.example/v1',
          model_mapping: { m1: '+up-m1' },
          group: ['default', 'vip'],
          test_model: 'm1',
          tag: 'edit',
          status: 1,
        });
      }
      expect(data.channels.find((c) => c.id === c2)?.priority).toBe(5);
      expect(data.channels.find((c) => c.id === c3)?.priority).toBe(0);
      // The audit names what happened, never a key.
      const audit = JSON.stringify(await t.s.repos.auditLogs.recent(5));
      expect(audit).toContain('channel.tag.update');
      expect(audit).not.toMatch(/ke\d/);

      // An empty key keeps the keys; a new tag moves every member.
      const renamed = await call({
        method: 'PUT',
        url: '/api/channel_tag/edit',
        payload: { key: '', tag: 'edited' },
      });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(renamed.json().data.removed).toEqual([]);
      const moved = await call({ method: 'GET', url: '/api/channel_tag/edited/list' });
      expect((moved.json().data as ChannelJson[]).map((c) => c.name)).toEqual([
        'ed_2',
        'ed_3',
        'ed_4',
        'ed_5',
      ]);
      expect((await call({ method: 'GET', url: '/api/channel_tag/edit/list' })).statusCode).toBe(404);

      // New members are named after `name` when given, skipping names in use.
      const named = await call({
        method: 'PUT',
        url: '/api/channel_tag/edited',
        payload: { key: 'ke2\nke3\nke4\nke5\nke6', name: 'ed' },
      });
      expect(named.json().data.channels.map((c: ChannelJson) => c.name)).toEqual([
        'ed_2',
        'ed_3',
        'ed_4',
        'ed_5',
        'ed_6',
      ]);
    });

    it('refuses a bad tag edit with a 4xx naming the problem, and writes nothing', async () => {
      await create({ name: 'vv', key: 'kv1\nkv2', tag: 'valid' });
      const before = await snapshot();
      const cases: [Record<string, unknown>, number, string][] = [
        [{ models: ['a', 'a'] }, 400, 'models'],
        [{ models: [] }, 400, 'models'],
        [{ base_url: 'https://a.example\nhttps://b.example' }, 400, 'base_url'],
        [{ base_url: 'ftp://x' }, 400, 'base_url'],
        [{ group: ['ghost'] }, 400, 'group'],
        [{ model_mapping: '{"a": ' }, 400, 'model_mapping'],
        [{ priority: 3 }, 400, ''],
        [{ pre_cost: 9 }, 400, 'pre_cost'],
      ];
      for (const [payload, status, path] of cases) {
        const res = await call({ method: 'PUT', url: '/api/channel_tag/valid', payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(status);
        if (path) expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
      }
      const unknown = await call({ method: 'PUT', url: '/api/channel_tag/ghost-tag', payload: { key: 'x' } });
      expect(unknown.statusCode).toBe(404);
      expect(await snapshot()).toEqual(before);
    });

    it('sets a tag’s priority and status, and deletes its disabled members or all of it', async () => {
      const made = await create({ name: 'op', key: 'ko1\nko2\nko3', tag: 'ops' });
      const ids = made.map((c) => c.id);
      const prio = await call({
        method: 'PUT',
        url: '/api/channel_tag/ops/priority',
        payload: { type: 'priority', value: 7 },
      });
      expect(prio.json().data).toBe(3);
      for (const id of ids) expect((await get(id))?.priority).toBe(7);
      for (const payload of [{ value: -1 }, { type: 'weight', value: 3 }, { value: 1.5 }, {}]) {
        const bad = await call({ method: 'PUT', url: '/api/channel_tag/ops/priority', payload });
        expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      }

      const off = await call({ method: 'PUT', url: '/api/channel_tag/ops/status/disable' });
      expect(off.json().data).toBe(3);
      for (const id of ids) expect((await get(id))?.status).toBe(2);
      await call({ method: 'PUT', url: '/api/channel_tag/ops/status/enable' });
      for (const id of ids) expect((await get(id))?.status).toBe(1);
      const bad = await call({ method: 'PUT', url: '/api/channel_tag/ops/status/paused' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toContain('status must be "enable" or "disable"');

      await t.s.repos.channels.update(ids[0]!, { status: 3 });
      await t.s.repos.channels.update(ids[1]!, { status: 2 });
      const pruned = await call({ method: 'DELETE', url: '/api/channel_tag/ops/disabled' });
      expect(pruned.json().data).toBe(2);
      expect(await get(ids[2]!)).toBeDefined();
      const gone = await call({ method: 'DELETE', url: '/api/channel_tag/ops' });
      expect(gone.json().data).toBe(1);
      expect(await get(ids[2]!)).toBeUndefined();
      expect((await call({ method: 'DELETE', url: '/api/channel_tag/ops' })).statusCode).toBe(404);
    });

    it('deletes in batches and deletes every disabled channel', async () => {
      const before = await snapshot();
      for (const payload of [{ ids: [] }, {}, { ids: 'all' }]) {
        const res = await call({ method: 'DELETE', url: '/api/channel/batch', payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().message).toContain('Please select at least one channel');
      }
      expect(
        (await call({ method: 'DELETE', url: '/api/channel/batch', payload: { ids: [0, -3] } })).statusCode,
      ).toBe(400);
      expect(await snapshot()).toEqual(before);

      const [a, b, c] = (await create({ name: 'bd', key: 'kbd1\nkbd2\nkbd3' })).map((x) => x.id) as [
        number,
        number,
        number,
      ];
      const res = await call({
        method: 'DELETE',
        url: '/api/channel/batch',
        payload: { ids: [a, b, b, 999_999] },
      });
      expect(res.json().data).toBe(2);
      expect(await get(a)).toBeUndefined();
      expect(await get(c)).toBeDefined();

      const [d1, d2, e1] = (await create({ name: 'dd', key: 'kdd1\nkdd2\nkdd3' })).map((x) => x.id) as [
        number,
        number,
        number,
      ];
      await t.s.repos.channels.update(d1, { status: 2 });
      await t.s.repos.channels.update(d2, { status: 3 });
      const disabledBefore = (await t.s.repos.channels.disabledIds()).length;
      expect(disabledBefore).toBeGreaterThanOrEqual(2);
      const res2 = await call({ method: 'DELETE', url: '/api/channel/disabled' });
      expect(res2.json().data).toBe(disabledBefore);
      expect(await get(d1)).toBeUndefined();
      expect(await get(d2)).toBeUndefined();
      expect(await get(e1)).toBeDefined();
      expect(await t.s.repos.channels.disabledIds()).toEqual([]);
    });

    it('sets an API version on many channels and removes a model from many', async () => {
      const az = await create({
        type: 3,
        name: 'az',
        key: 'kaz1\nkaz2',
        base_url: 'https://res.openai.azure.com',
      });
      const res = await call({
        method: 'PUT',
        url: '/api/channel/batch/azure_api',
        payload: { ids: az.map((c) => c.id), value: ' 2025-04-01-preview ' },
      });
      expect(res.json().data).toBe(2);
      for (const c of az) expect((await get(c.id))?.other).toBe('2025-04-01-preview');
      const empty = await call({
        method: 'PUT',
        url: '/api/channel/batch/azure_api',
        payload: { ids: [az[0]!.id], value: '  ' },
      });
      expect(empty.statusCode).toBe(400);
      expect(empty.json().message).toContain('API version is required');

      const [x] = await create({ name: 'dm-x', key: 'kdm1', models: ['m-x', 'm-y'] });
      const [y] = await create({ name: 'dm-only', key: 'kdm2', models: ['m-x'] });
      const [z] = await create({ name: 'dm-none', key: 'kdm3', models: ['m-z'] });
      const before = await snapshot();
      const refused = await call({
        method: 'PUT',
        url: '/api/channel/batch/del_model',
        payload: { ids: [x!.id, y!.id], value: 'm-x' },
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().message).toContain(`dm-only (#${y!.id})`);
      expect(await snapshot()).toEqual(before);

      published = 0;
      const done = await call({
        method: 'PUT',
        url: '/api/channel/batch/del_model',
        payload: { ids: [x!.id, z!.id], value: 'm-x' },
      });
      expect(done.json().data).toBe(1);
      expect((await get(x!.id))?.models).toBe('m-y');
      expect((await get(z!.id))?.models).toBe('m-z');
      expect(published).toBe(1);
      const noModel = await call({
        method: 'PUT',
        url: '/api/channel/batch/del_model',
        payload: { ids: [x!.id] },
      });
      expect(noModel.statusCode).toBe(400);
      expect(noModel.json().message).toContain('Model name is required');
    });

    it('copies a channel with its key, named <name>_copy, with fresh counters', async () => {
      const [src] = await create({
        name: 'source',
        key: 'k-copy-secret',
        models: ['a', 'b'],
        base_url: 'https://src.example/v1',
        priority: 4,
        weight: 9,
        tag: 'copies',
      });
      await t.s.repos.channels.update(src!.id, { used_quota: 1234, balance: 5, response_time: 300 });
      const res = await call({ method: 'POST', url: `/api/channel/${src!.id}/copy` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.body).not.toContain('k-copy-secret');
      const copy = res.json().data as ChannelJson;
      expect(copy.id).not.toBe(src!.id);
      expect(copy).toMatchObject({
        name: 'source_copy',
        models: ['a', 'b'],
        base_url: 'https://src.example/v1',
        priority: 4,
        weight: 9,
        tag: 'copies',
        used_quota: 0,
        balance: 0,
      });
      expect(await keyOf(copy.id)).toBe('k-copy-secret');
      expect((await call({ method: 'POST', url: '/api/channel/999999/copy' })).statusCode).toBe(404);
    });
  });
}

describe('channel tools that call the upstream', () => {
  const KEY = 'sk-upstream-tools';
  let t: TestApp;
  let root: string;
  let up: FakeUpstream;
  let fake: FakeBalance;
  const { call, create, get } = harness(
    () => t,
    () => root,
  );

  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: KEY, models: ['gpt-4o', 'gpt-4o-mini', 'gpt-4o', 'o3'] });
    fake = await startFakeBalance({ apiKey: KEY });
    t = await createTestApp();
    root = await t.signIn('root', ROOT_PASSWORD);
  });
  afterAll(async () => {
    await t?.close();
    await up?.close();
    await fake?.close();
  });
  beforeEach(async () => {
    up.reset();
    fake.requests.length = 0;
    fake.failWith(undefined);
    Object.assign(fake.values, defaultBalanceValues());
    await t.s.options.update({ AutomaticDisableChannelEnabled: 'false' });
  });

  const models = (payload: Record<string, unknown>) =>
    call({ method: 'POST', url: '/api/channel/provider_models_list', payload });

  it('fetches the model list with the form’s key and base URL, without repeats', async () => {
    // The console posts the whole form; fields the call does not use are ignored.
    const res = await models({ type: 8, key: `${KEY}\nsecond-key`, base_url: up.url, name: 'x', models: [] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(['gpt-4o', 'gpt-4o-mini', 'o3']);
    expect(up.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/v1/models',
      authorization: `Bearer ${KEY}`,
    });
  });

  it('uses the stored channel when the key is empty and an id is given', async () => {
    const [stored] = await create({ type: 8, name: 'stored', key: KEY, base_url: up.url });
    const res = await models({ id: stored!.id, key: '' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toContain('o3');
    expect(up.requests.at(-1)?.authorization).toBe(`Bearer ${KEY}`);
    expect((await models({ id: 999_999, key: '' })).statusCode).toBe(404);
    // A typed key wins over the stored one; the stored type fills a form without one.
    await models({ id: stored!.id, key: 'sk-typed' });
    expect(up.requests.at(-1)?.authorization).toBe('Bearer sk-typed');

    // Sending the stored key somewhere else is audited like reading it.
    const elsewhere = await startFakeUpstream({ apiKey: KEY, models: ['x'] });
    try {
      const res2 = await models({ id: stored!.id, key: '', base_url: elsewhere.url });
      expect(res2.json().data).toEqual(['x']);
    } finally {
      await elsewhere.close();
    }
    const audit = await t.s.repos.auditLogs.recent(1);
    expect(audit[0]).toMatchObject({ action: 'channel.key.send', target_id: String(stored!.id) });
    expect(JSON.stringify(audit)).not.toContain(KEY);
  });

  it('explains upstream failures and refuses what cannot be asked', async () => {
    const wrong = await models({ type: 8, key: 'sk-wrong', base_url: up.url });
    expect(wrong.statusCode).toBe(502);
    expect(wrong.json()).toMatchObject({ code: 'upstream_error' });
    expect(wrong.json().message).toMatch(
      /^Failed to get model list: the upstream answered 401: Incorrect API key/,
    );

    const cases: [Record<string, unknown>, string][] = [
      [{ type: 14, key: KEY }, 'type'],
      [{ type: 8, key: KEY }, 'base_url'],
      [{ key: KEY, base_url: up.url }, 'type'],
      [{ type: 8, key: KEY, base_url: 'not a url' }, 'base_url'],
    ];
    for (const [payload, path] of cases) {
      const res = await models(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().errors[0].path).toBe(path);
    }
  });

  it('updates one channel’s balance, disabling it at zero only when automatic disabling is on', async () => {
    const [ch] = await create({ type: 1, name: 'bal', key: KEY, base_url: fake.url });
    const res = await call({ method: 'GET', url: `/api/channel/update_balance/${ch!.id}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: ch!.id, balance: 94.5, currency: 'USD', disabled: false });
    expect(await get(ch!.id)).toMatchObject({ balance: 94.5, status: 1 });
    expect((await get(ch!.id))!.balance_updated_time).toBeGreaterThan(0);

    fake.values.openai.totalUsageCents = 12_000;
    const zero = await call({ method: 'GET', url: `/api/channel/update_balance/${ch!.id}` });
    expect(zero.json().data).toMatchObject({ balance: 0, disabled: false });
    expect((await get(ch!.id))?.status).toBe(1);

    await t.s.options.update({ AutomaticDisableChannelEnabled: 'true' });
    const off = await call({ method: 'GET', url: `/api/channel/update_balance/${ch!.id}` });
    expect(off.json().data).toMatchObject({ balance: 0, disabled: true });
    expect((await get(ch!.id))?.status).toBe(3);

    // A failed query says why and leaves the stored balance alone.
    fake.failWith(503);
    const failed = await call({ method: 'GET', url: `/api/channel/update_balance/${ch!.id}` });
    expect(failed.statusCode).toBe(502);
    expect(failed.json().message).toContain('Balance query failed: the upstream answered 503');
    expect((await get(ch!.id))?.balance).toBe(0);

    const [claude] = await create({ type: 14, name: 'no-balance', key: KEY });
    const unsupported = await call({ method: 'GET', url: `/api/channel/update_balance/${claude!.id}` });
    expect(unsupported.statusCode).toBe(400);
    expect(unsupported.json().message).toBe('Balance query is not supported for Anthropic Claude channels');
  });

  it('updates every enabled channel whose vendor publishes a balance', async () => {
    await t.s.database.db.updateTable('channels').set({ deleted_at: 1 }).execute();
    const [openai] = await create({ type: 1, name: 'o', key: KEY, base_url: fake.url });
    const [deepseek] = await create({ type: 28, name: 'd', key: KEY, base_url: `${fake.url}/v1` });
    const [moonshot] = await create({ type: 29, name: 'm', key: KEY, base_url: fake.url });
    const [silicon] = await create({ type: 45, name: 's', key: KEY, base_url: fake.url });
    const [broken] = await create({ type: 1, name: 'b', key: 'sk-wrong', base_url: fake.url });
    const [off] = await create({ type: 1, name: 'off', key: KEY, base_url: fake.url, status: 2 });
    await create({ type: 14, name: 'claude', key: KEY });

    const res = await call({ method: 'GET', url: '/api/channel/update_balance' });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as {
      updated: number;
      failed: number;
      results: { id: number; balance?: number; error?: string }[];
    };
    expect(data).toMatchObject({ updated: 4, failed: 1, disabled: 0 });
    expect(data.results.map((r) => r.id)).toEqual([
      openai!.id,
      deepseek!.id,
      moonshot!.id,
      silicon!.id,
      broken!.id,
    ]);
    expect(data.results.find((r) => r.id === broken!.id)?.error).toContain('Incorrect API key');
    // The console translates the reason by its code.
    expect(data.results.find((r) => r.id === broken!.id)).toMatchObject({
      name: 'b',
      code: 'upstream_error',
    });
    expect((await get(openai!.id))?.balance).toBe(94.5);
    expect((await get(deepseek!.id))?.balance).toBe(110);
    expect((await get(moonshot!.id))?.balance).toBe(49.58894);
    expect((await get(silicon!.id))?.balance).toBe(88.88);
    expect((await get(off!.id))?.balance_updated_time).toBe(0);
  });
});
