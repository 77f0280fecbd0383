import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { createChannel, createToken } from '../../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// User groups on every database engine: validation (name required, plus
// symbol, ratio and API rate), the immutable symbol, the protected `default` group, refusal to
// delete a group in use, and the relay's table following every change.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

for (const engine of engineTargets()) {
  describe.skipIf(engine.skipReason !== undefined)(`user groups on ${engine.engine}`, () => {
    let t: TestApp;
    let root: string;

    const call = (cookie: string | undefined, method: Method, url: string, payload?: unknown) => {
      const opts: InjectOptions = { method, url, headers: cookie ? { cookie } : {} };
      if (payload !== undefined) opts.payload = payload as InjectOptions['payload'];
      return t.call(opts);
    };
    const groupCount = async () =>
      Number(
        (
          await t.s.database.db
            .selectFrom('user_groups')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const bySymbol = (symbol: string) => t.s.repos.userGroups.bySymbol(symbol);
    const createGroup = async (body: Record<string, unknown>) => {
      const res = await call(root, 'POST', '/api/user_group/', body);
      if (res.statusCode !== 200) throw new Error(`group create failed: ${res.body}`);
      return res.json().data as { id: number; symbol: string };
    };

    beforeAll(async () => {
      t = await createTestApp({ engine });
      root = await t.signIn('root', ROOT_PASSWORD);
    });
    afterAll(async () => t?.close());

    it('lists the seeded groups with filters and paging', async () => {
      const res = await call(root, 'GET', '/api/user_group/?order=id');
      expect(res.statusCode).toBe(200);
      expect(res.json().data.data.map((g: { symbol: string }) => g.symbol)).toEqual([
        'default',
        'vip',
        'svip',
      ]);
      expect(res.json().data.data[0]).toEqual({
        id: expect.any(Number),
        symbol: 'default',
        name: 'Default',
        ratio: 1,
        api_rate: 600,
        public: true,
        enable: true,
      });
      const filtered = await call(root, 'GET', '/api/user_group/?name=SV');
      expect(filtered.json().data.data.map((g: { symbol: string }) => g.symbol)).toEqual(['svip']);
      expect((await call(root, 'GET', '/api/user_group/?order=secret')).statusCode).toBe(400);
      const one = await call(root, 'GET', `/api/user_group/${res.json().data.data[1].id}`);
      expect(one.json().data.symbol).toBe('vip');
      expect((await call(root, 'GET', '/api/user_group/999999')).statusCode).toBe(404);
    });

    it('creates a group, which the relay then knows', async () => {
      const res = await call(root, 'POST', '/api/user_group/', {
        symbol: 'pro',
        name: 'Pro',
        ratio: 0.75,
        api_rate: 30,
        public: true,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({
        symbol: 'pro',
        ratio: 0.75,
        api_rate: 30,
        public: true,
        enable: true,
      });
      expect(t.s.relay.tables.groups.get('pro')).toMatchObject({ ratio: 0.75, api_rate: 30, enable: 1 });
      const dup = await call(root, 'POST', '/api/user_group/', { symbol: 'pro', name: 'Again' });
      expect(dup.statusCode).toBe(409);
      expect(dup.json().message).toContain('"pro" already exists');
    });

    it('refuses every invalid group with 400 and a clear message, writing nothing', async () => {
      const before = await groupCount();
      const cases: [Record<string, unknown>, string][] = [
        [{ symbol: 'g1' }, 'Name is required'],
        [{ symbol: 'g1', name: '  ' }, 'Name is required'],
        [{ name: 'No symbol' }, 'Symbol is required'],
        [{ symbol: 'has space', name: 'x' }, 'Symbol may contain only'],
        [{ symbol: 'a,b', name: 'x' }, 'Symbol may contain only'],
        [{ symbol: 'x'.repeat(51), name: 'x' }, 'at most 50'],
        [{ symbol: 'g1', name: 'x', ratio: -0.1 }, 'Ratio cannot be negative'],
        [{ symbol: 'g1', name: 'x', ratio: 'cheap' }, 'Ratio must be a number'],
        [{ symbol: 'g1', name: 'x', api_rate: -1 }, 'API rate cannot be negative'],
        [{ symbol: 'g1', name: 'x', api_rate: 1.5 }, 'whole number'],
        [{ symbol: 'g1', name: 'x', public: 'yes' }, 'public must be true or false'],
        [{ symbol: 'g1', name: 'x', promotion: true }, 'promotion'],
      ];
      for (const [body, message] of cases) {
        const res = await call(root, 'POST', '/api/user_group/', body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().message, JSON.stringify(body)).toContain(message);
      }
      expect(await groupCount()).toBe(before);
    });

    it('edits name, ratio, API rate and public; the symbol never changes', async () => {
      const g = await createGroup({ symbol: 'team', name: 'Team' });
      const res = await call(root, 'PUT', '/api/user_group/', {
        id: g.id,
        symbol: 'team',
        name: 'Team Renamed',
        ratio: 2,
        api_rate: 0,
        public: false,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ symbol: 'team', name: 'Team Renamed', ratio: 2, api_rate: 0 });
      expect(t.s.relay.tables.groups.get('team')).toMatchObject({
        ratio: 2,
        api_rate: 0,
        name: 'Team Renamed',
      });

      const rename = await call(root, 'PUT', '/api/user_group/', {
        id: g.id,
        symbol: 'team2',
        name: 'x',
        ratio: 1,
        api_rate: 1,
        public: false,
      });
      expect(rename.statusCode).toBe(400);
      expect(rename.json().message).toContain('symbol of a group cannot be changed');
      const bad = await call(root, 'PUT', '/api/user_group/', {
        id: g.id,
        name: '',
        ratio: 1,
        api_rate: 1,
        public: false,
      });
      expect(bad.statusCode).toBe(400);
      const negative = await call(root, 'PUT', '/api/user_group/', {
        id: g.id,
        name: 'x',
        ratio: -1,
        api_rate: 1,
        public: false,
      });
      expect(negative.statusCode).toBe(400);
      expect(await bySymbol('team')).toMatchObject({ name: 'Team Renamed', ratio: 2 });
      expect(await bySymbol('team2')).toBeUndefined();
      const missing = await call(root, 'PUT', '/api/user_group/', {
        id: 999999,
        name: 'x',
        ratio: 1,
        api_rate: 1,
        public: false,
      });
      expect(missing.statusCode).toBe(404);
    });

    it('enables and disables a group (set or flip); the relay follows at once', async () => {
      const g = await createGroup({ symbol: 'toggle', name: 'Toggle', public: true });
      const off = await call(root, 'PUT', `/api/user_group/enable/${g.id}`, { enable: false });
      expect(off.statusCode).toBe(200);
      expect(off.json().data.enable).toBe(false);
      expect(t.s.relay.tables.groups.get('toggle')?.enable).toBe(0);
      expect(Object.keys((await call(undefined, 'GET', '/api/user_group_map')).json().data)).not.toContain(
        'toggle',
      );
      expect((await call(root, 'GET', '/api/group/')).json().data).not.toContain('toggle');

      const flipped = await call(root, 'PUT', `/api/user_group/enable/${g.id}`);
      expect(flipped.statusCode).toBe(200);
      expect(flipped.json().data.enable).toBe(true);
      expect(t.s.relay.tables.groups.get('toggle')?.enable).toBe(1);
      expect((await call(root, 'GET', '/api/group/')).json().data).toContain('toggle');
    });

    it('the default group can be neither disabled nor deleted', async () => {
      const def = (await bySymbol('default'))!;
      for (const res of [
        await call(root, 'PUT', `/api/user_group/enable/${def.id}`, { enable: false }),
        await call(root, 'PUT', `/api/user_group/enable/${def.id}`, {}),
        await call(root, 'PUT', '/api/user_group/', {
          id: def.id,
          name: 'Default',
          ratio: 1,
          api_rate: 600,
          public: true,
          enable: false,
        }),
      ]) {
        expect(res.statusCode).toBe(409);
        expect(res.json().message).toBe('The default group cannot be disabled');
      }
      const del = await call(root, 'DELETE', `/api/user_group/${def.id}`);
      expect(del.statusCode).toBe(409);
      expect(del.json().message).toBe('The default group cannot be deleted');
      expect(await bySymbol('default')).toMatchObject({ enable: 1 });
    });

    it('refuses to delete a group still used by users, tokens or channels, naming the counts', async () => {
      const g = await createGroup({ symbol: 'busy', name: 'Busy', public: true });
      const userId = await registerUser(t, 'busyuser');
      await t.s.repos.users.update(userId, { group: 'busy' });
      const cookie = await t.signIn('busyuser', 'password-123');
      await createToken(t, cookie, { group: 'busy' });
      await createChannel(t, root, { name: 'busy-ch', key: 'sk-a\nsk-b', models: 'gpt-4o', group: 'busy' });

      const res = await call(root, 'DELETE', `/api/user_group/${g.id}`);
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toBe(
        'Group "busy" is still used by 1 user, 1 token and 2 channels; move them to another group first',
      );
      expect(await bySymbol('busy')).toBeDefined();

      await t.s.database.db.updateTable('users').set({ group: 'default' }).where('id', '=', userId).execute();
      await t.s.database.db
        .updateTable('tokens')
        .set({ deleted_at: 1 })
        .where('group', '=', 'busy')
        .execute();
      await t.s.database.db.updateTable('channels').set({ group: 'default,busyness' }).execute();
      const ok = await call(root, 'DELETE', `/api/user_group/${g.id}`);
      expect(ok.statusCode).toBe(200);
      expect(await bySymbol('busy')).toBeUndefined();
      expect(t.s.relay.tables.groups.has('busy')).toBe(false);
      expect((await call(root, 'DELETE', `/api/user_group/${g.id}`)).statusCode).toBe(404);
    });

    it('the group map shows public groups and the caller’s own; /api/group lists enabled symbols', async () => {
      const guest = (await call(undefined, 'GET', '/api/user_group_map')).json().data;
      expect(Object.keys(guest)).toContain('default');
      expect(Object.keys(guest)).not.toContain('vip');
      expect(guest.default).toMatchObject({ symbol: 'default', ratio: 1, public: true, enable: true });

      const id = await registerUser(t, 'vipuser');
      await t.s.repos.users.update(id, { group: 'vip' });
      const cookie = await t.signIn('vipuser', 'password-123');
      const own = (await call(cookie, 'GET', '/api/user_group_map')).json().data;
      expect(Object.keys(own)).toContain('vip');
      expect(Object.keys(own)).not.toContain('svip');

      const symbols = (await call(root, 'GET', '/api/group/')).json().data;
      expect(symbols).toEqual(expect.arrayContaining(['default', 'vip', 'svip']));
      expect((await call(cookie, 'GET', '/api/group/')).statusCode).toBe(403);
    });
  });
}
