import { defaultPrices } from '@switchyard/domain';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

interface PriceJson {
  model: string;
  type: string;
  channel_type: number;
  input: number;
  output: number;
  locked: boolean;
  extra_ratios: Record<string, number>;
}

const price = (model: string, extra: Partial<PriceJson> = {}) => ({
  model,
  type: 'tokens',
  channel_type: 1,
  input: 1,
  output: 2,
  ...extra,
});

describe('prices API', () => {
  let t: TestApp;
  let root: string;
  let published = 0;
  const call = (opts: InjectOptions) => t.call({ ...opts, headers: { ...opts.headers, cookie: root } });
  const stored = (model: string) => t.s.repos.prices.byModel(model);

  beforeAll(async () => {
    t = await createTestApp();
    root = await t.signIn('root', ROOT_PASSWORD);
    t.s.bus.subscribe('prices', () => published++);
  });
  afterAll(async () => t?.close());

  it('lists the stored table publicly, sorted by owner then model, or the built-in one', async () => {
    const res = await t.call({ method: 'GET', url: '/api/prices' });
    expect(res.statusCode).toBe(200);
    const rows = res.json().data as PriceJson[];
    // A fresh database is seeded with the built-in table.
    expect(rows).toHaveLength(defaultPrices.length);
    const keys = rows.map((r) => [r.channel_type, r.model] as const);
    const sorted = [...keys].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    expect(keys).toEqual(sorted);
    expect(rows.find((r) => r.model === 'gpt-4o')).toMatchObject({
      type: 'tokens',
      channel_type: 1,
      locked: false,
      extra_ratios: { cached_read_tokens: 0.5 },
    });
    const builtIn = await t.call({ method: 'GET', url: '/api/prices?type=default' });
    expect(builtIn.json().data).toHaveLength(defaultPrices.length);
    expect((await t.call({ method: 'GET', url: '/api/prices?type=old' })).statusCode).toBe(400);
  });

  it('creates a price and refuses duplicates', async () => {
    const before = published;
    const res = await call({
      method: 'POST',
      url: '/api/prices/single',
      payload: price('acme-1', { extra_ratios: { cached_read_tokens: 0.1 }, type: 'times' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await stored('acme-1')).toEqual({
      model: 'acme-1',
      type: 'times',
      channel_type: 1,
      input: 1,
      output: 2,
      locked: 0,
      extra_ratios: '{"cached_read_tokens":0.1}',
    });
    expect(published).toBe(before + 1);
    const dup = await call({ method: 'POST', url: '/api/prices/single', payload: price('acme-1') });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().code).toBe('price_exists');
  });

  it('refuses invalid prices with a 400 naming the field, and writes nothing', async () => {
    const before = (await t.s.repos.prices.all()).length;
    const cases: [Record<string, unknown>, string][] = [
      [price(''), 'model'],
      [price('a*b'), 'model'],
      [price('*'), 'model'],
      [price('x', { type: 'per-call' }), 'type'],
      [price('x', { input: -1 }), 'input'],
      [price('x', { output: -0.5 }), 'output'],
      [price('x', { channel_type: 9999 }), 'channel_type'],
      [price('x', { extra_ratios: { magic_tokens: 2 } }), 'extra_ratios.magic_tokens'],
      [price('x', { extra_ratios: { reasoning_tokens: -1 } }), 'extra_ratios.reasoning_tokens'],
      [{ ...price('x'), input: undefined }, 'input'],
    ];
    for (const [payload, path] of cases) {
      const res = await call({ method: 'POST', url: '/api/prices/single', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect((await t.s.repos.prices.all()).length).toBe(before);
  });

  it('edits and deletes a price whose model contains a slash, taking the model from the path', async () => {
    const model = 'meta-llama/llama-test';
    await call({ method: 'POST', url: '/api/prices/single', payload: price(model) });
    const put = await call({
      method: 'PUT',
      url: `/api/prices/single/${model}`,
      payload: price(model, { input: 3, locked: true }),
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(await stored(model)).toMatchObject({ input: 3, locked: 1 });

    // The URL-encoded form names the same model.
    const encoded = await call({
      method: 'PUT',
      url: `/api/prices/single/${encodeURIComponent(model)}`,
      payload: price(model, { input: 4 }),
    });
    expect(encoded.statusCode, encoded.body).toBe(200);
    expect(await stored(model)).toMatchObject({ input: 4, locked: 0 });

    // Renaming onto an existing model is refused; onto a new name it moves the price.
    const clash = await call({ method: 'PUT', url: `/api/prices/single/${model}`, payload: price('acme-1') });
    expect(clash.statusCode).toBe(409);
    expect(await stored(model)).toBeDefined();
    const renamed = await call({
      method: 'PUT',
      url: `/api/prices/single/${model}`,
      payload: price('meta-llama/llama-renamed', { input: 5 }),
    });
    expect(renamed.statusCode).toBe(200);
    expect(await stored(model)).toBeUndefined();
    expect(await stored('meta-llama/llama-renamed')).toMatchObject({ input: 5 });

    expect(
      (await call({ method: 'PUT', url: '/api/prices/single/ghost/model', payload: price('x') })).statusCode,
    ).toBe(404);
    const del = await call({ method: 'DELETE', url: '/api/prices/single/meta-llama/llama-renamed' });
    expect(del.statusCode).toBe(200);
    expect(await stored('meta-llama/llama-renamed')).toBeUndefined();
    expect(
      (await call({ method: 'DELETE', url: '/api/prices/single/meta-llama/llama-renamed' })).statusCode,
    ).toBe(404);
  });

  it('applies the batch editor: removed models lose the price, kept ones change, new ones appear', async () => {
    for (const m of ['batch-a', 'batch-b'])
      await call({ method: 'POST', url: '/api/prices/single', payload: price(m) });
    const res = await call({
      method: 'POST',
      url: '/api/prices/multiple',
      payload: {
        original_models: ['batch-a', 'batch-b'],
        models: ['batch-b', 'batch-c'],
        price: { type: 'tokens', channel_type: 14, input: 7, output: 8 },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ deleted: 1, inserted: 1, updated: 1 });
    expect(await stored('batch-a')).toBeUndefined();
    expect(await stored('batch-b')).toMatchObject({ channel_type: 14, input: 7, output: 8 });
    expect(await stored('batch-c')).toMatchObject({ channel_type: 14, input: 7, output: 8 });

    // Pulling in a model that has its own price elsewhere is refused, and nothing changes.
    const taken = await call({
      method: 'POST',
      url: '/api/prices/multiple',
      payload: {
        original_models: ['batch-b', 'batch-c'],
        models: ['batch-c', 'acme-1'],
        price: { type: 'tokens', channel_type: 14, input: 1, output: 1 },
      },
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().message).toContain('acme-1');
    expect(await stored('batch-b')).toMatchObject({ input: 7 });

    const del = await call({
      method: 'PUT',
      url: '/api/prices/multiple/delete',
      payload: { models: ['batch-b', 'batch-c', 'never-priced'] },
    });
    expect(del.json().data).toBe(2);
    expect(await stored('batch-c')).toBeUndefined();
  });

  it('syncs a price list in each mode without ever touching locked prices', async () => {
    const seed = async () => {
      await t.s.database.db.deleteFrom('prices').where('model', 'like', 'sync-%').execute();
      await t.s.repos.prices.insert({ ...rowOf('sync-locked', 1), locked: 1 });
      await t.s.repos.prices.insert(rowOf('sync-unlocked', 1));
      await t.s.repos.prices.insert(rowOf('sync-extra', 1));
    };
    const list = [
      price('sync-locked', { input: 9 }),
      price('sync-unlocked', { input: 9 }),
      price('sync-new', { input: 9 }),
    ];
    const sync = (mode: string) =>
      call({ method: 'POST', url: `/api/prices/sync?updateMode=${mode}`, payload: list });
    const input = async (m: string) => (await stored(m))?.input;

    await seed();
    const add = await sync('add');
    expect(add.json().data).toEqual({ inserted: 1, updated: 0, deleted: 0, skipped_locked: 1 });
    expect([await input('sync-locked'), await input('sync-unlocked'), await input('sync-new')]).toEqual([
      1, 1, 9,
    ]);

    await seed();
    const upd = await sync('update');
    expect(upd.json().data).toMatchObject({ inserted: 1, updated: 1, skipped_locked: 1 });
    expect([await input('sync-locked'), await input('sync-unlocked'), await input('sync-extra')]).toEqual([
      1, 9, 1,
    ]);

    await seed();
    const all = (await t.s.repos.prices.all()).length;
    const over = await sync('overwrite');
    expect(over.statusCode).toBe(200);
    // Everything unlocked is gone (the built-in rows too); the list comes back, the locked row stays.
    const after = await t.s.repos.prices.all();
    expect(after.map((p) => p.model).sort()).toEqual(['sync-locked', 'sync-new', 'sync-unlocked']);
    expect(over.json().data).toEqual({ inserted: 2, updated: 0, deleted: all - 1, skipped_locked: 1 });
    expect(await stored('sync-locked')).toMatchObject({ input: 1, locked: 1 });

    const bad = await call({
      method: 'POST',
      url: '/api/prices/sync?updateMode=add',
      payload: [price('ok-1'), price('bad', { channel_type: 4242 })],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('1.channel_type');
    expect(await stored('ok-1')).toBeUndefined();
    expect(
      (await call({ method: 'POST', url: '/api/prices/sync?updateMode=system', payload: [] })).statusCode,
    ).toBe(400);
  });

  it('lists priced models together with the models of enabled channels', async () => {
    await call({
      method: 'POST',
      url: '/api/channel/',
      payload: { type: 1, name: 'c', key: 'k', models: ['zz-channel-only', 'sync-new'], group: ['default'] },
    });
    const res = await call({ method: 'GET', url: '/api/prices/model_list' });
    const models = res.json().data as string[];
    expect(models).toContain('zz-channel-only');
    expect(models).toContain('sync-locked');
    expect(models.filter((m) => m === 'sync-new')).toHaveLength(1);
    expect(models).toEqual([...models].sort());
  });

  it('lets only administrators change prices', async () => {
    await registerUser(t, 'pricer');
    const user = await t.signIn('pricer', 'password-123');
    const res = await t.call({
      method: 'POST',
      url: '/api/prices/single',
      headers: { cookie: user },
      payload: price('sneaky'),
    });
    expect(res.statusCode).toBe(403);
    const audit = await t.s.repos.auditLogs.recent(100);
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['price.create', 'price.update', 'price.sync']),
    );
  });
});

function rowOf(model: string, input: number) {
  return { model, type: 'tokens', channel_type: 1, input, output: input, locked: 0, extra_ratios: '{}' };
}
