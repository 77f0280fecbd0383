import type { AvailableModelView } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel } from '../../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// GET /api/available_model: what the relay would route and bill, per visible group (public groups
// and the caller's own), with the owner's name and the price.

describe('available models', () => {
  let t: TestApp;
  let root: string;
  let vipUser: string;

  const available = async (cookie?: string): Promise<Record<string, AvailableModelView>> => {
    const res = await t.call({
      method: 'GET',
      url: '/api/available_model',
      headers: cookie ? { cookie } : {},
    });
    expect(res.statusCode).toBe(200);
    return res.json().data;
  };
  const ownerName = async (id: number) => (await t.s.repos.modelOwners.byId(id))!.name;

  beforeAll(async () => {
    t = await createTestApp();
    root = await t.signIn('root', ROOT_PASSWORD);
    await createChannel(t, root, {
      name: 'public',
      key: 'sk-public',
      models: 'gpt-4o,claude-3*,unpriced-model',
      group: 'default',
    });
    await createChannel(t, root, { name: 'vip', key: 'sk-vip', models: 'gpt-4o,gpt-4o-mini', group: 'vip' });
    await createChannel(t, root, {
      name: 'off',
      key: 'sk-off',
      models: 'gpt-4-turbo',
      group: 'default',
      status: 2,
    });
    await t.s.relay.tables.reload();
    const id = await registerUser(t, 'vipper');
    await t.s.repos.users.update(id, { group: 'vip' });
    vipUser = await t.signIn('vipper', 'password-123');
  });
  afterAll(async () => t?.close());

  it('shows a guest the models of public groups, with owner and price', async () => {
    const models = await available();
    expect(models['gpt-4o']).toEqual({
      groups: ['default'],
      owned_by: await ownerName(1),
      price: {
        model: 'gpt-4o',
        type: 'tokens',
        channel_type: 1,
        input: 1.25,
        output: 5,
        locked: false,
        extra_ratios: expect.any(Object),
      },
    });
    // A wildcard channel offers every priced model its prefix matches.
    const claude = Object.keys(models).filter((m) => m.startsWith('claude-3'));
    expect(claude.length).toBeGreaterThan(0);
    expect(models[claude[0]!]!.owned_by).toBe(await ownerName(14));
    // Private groups, disabled channels and models without a price are not offered.
    expect(models['gpt-4o-mini']).toBeUndefined();
    expect(models['gpt-4-turbo']).toBeUndefined();
    expect(models['unpriced-model']).toBeUndefined();
    expect(Object.keys(models)).toEqual([...Object.keys(models)].sort());
  });

  it("adds the caller's own group", async () => {
    const models = await available(vipUser);
    expect(models['gpt-4o']!.groups).toEqual(['default', 'vip']);
    expect(models['gpt-4o-mini']!.groups).toEqual(['vip']);
  });

  it('lists unpriced models at the default price when the relay serves them', async () => {
    await t.s.options.update({
      ServeUnpricedModels: 'true',
      UnpricedModelInput: '7',
      UnpricedModelOutput: '9',
    });
    const models = await available();
    expect(models['unpriced-model']).toMatchObject({
      groups: ['default'],
      owned_by: 'unknown',
      price: { model: 'unpriced-model', input: 7, output: 9, type: 'tokens' },
    });
    await t.s.options.update({ ServeUnpricedModels: 'false' });
  });

  it('follows the relay tables: a disabled group disappears', async () => {
    await t.s.database.db.updateTable('user_groups').set({ enable: 0 }).where('symbol', '=', 'vip').execute();
    await t.s.relay.tables.reloadGroups();
    expect((await available(vipUser))['gpt-4o-mini']).toBeUndefined();
    await t.s.database.db.updateTable('user_groups').set({ enable: 1 }).where('symbol', '=', 'vip').execute();
    await t.s.relay.tables.reloadGroups();
  });
});
