import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// Model owners on every database engine (an id above 1000, unchangeable once set): reserved
// provider owners stay untouched, ids never change, and an owner that prices still name cannot be
// deleted.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

for (const engine of engineTargets()) {
  describe.skipIf(engine.skipReason !== undefined)(`model owners on ${engine.engine}`, () => {
    let t: TestApp;
    let root: string;

    const call = (cookie: string | undefined, method: Method, url: string, payload?: unknown) => {
      const opts: InjectOptions = { method, url, headers: cookie ? { cookie } : {} };
      if (payload !== undefined) opts.payload = payload as InjectOptions['payload'];
      return t.call(opts);
    };
    const owner = (id: number) => t.s.repos.modelOwners.byId(id);
    const ownerCount = async () => (await t.s.repos.modelOwners.all()).length;

    beforeAll(async () => {
      t = await createTestApp({ engine });
      root = await t.signIn('root', ROOT_PASSWORD);
    });
    afterAll(async () => t?.close());

    it('lists the reserved provider owners to anyone, as a list and as a map', async () => {
      const list = await call(undefined, 'GET', '/api/model_ownedby/');
      expect(list.statusCode).toBe(200);
      const openai = list.json().data.find((o: { id: number }) => o.id === 1);
      expect(openai).toMatchObject({
        id: 1,
        name: expect.any(String),
        icon: expect.stringMatching(/^https:/),
      });
      const map = (await call(undefined, 'GET', '/api/ownedby')).json().data;
      expect(map['1']).toEqual(openai);
    });

    it('creates, reads, renames and deletes an owner above 1000', async () => {
      const res = await call(root, 'POST', '/api/model_ownedby/', {
        id: 1001,
        name: 'In-house',
        icon: 'https://example.com/icon.png',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual({ id: 1001, name: 'In-house', icon: 'https://example.com/icon.png' });
      expect((await call(root, 'GET', '/api/model_ownedby/1001')).json().data.name).toBe('In-house');

      const dup = await call(root, 'POST', '/api/model_ownedby/', { id: 1001, name: 'Again' });
      expect(dup.statusCode).toBe(409);
      expect(dup.json().message).toContain('1001 already exists');

      const renamed = await call(root, 'PUT', '/api/model_ownedby/', { id: 1001, name: 'Renamed', icon: '' });
      expect(renamed.statusCode).toBe(200);
      expect(await owner(1001)).toEqual({ id: 1001, name: 'Renamed', icon: '' });
      const same = await call(root, 'PUT', '/api/model_ownedby/', { id: 1001, name: 'Renamed', icon: '' });
      expect(same.statusCode).toBe(200);
      expect((await call(root, 'PUT', '/api/model_ownedby/', { id: 5000, name: 'Ghost' })).statusCode).toBe(
        404,
      );

      expect((await call(root, 'DELETE', '/api/model_ownedby/1001')).statusCode).toBe(200);
      expect(await owner(1001)).toBeUndefined();
      expect((await call(root, 'DELETE', '/api/model_ownedby/1001')).statusCode).toBe(404);
      expect((await call(root, 'GET', '/api/model_ownedby/1001')).statusCode).toBe(404);
    });

    it('refuses every invalid owner with 400 and a clear message, writing nothing', async () => {
      const before = await ownerCount();
      const cases: [Record<string, unknown>, string][] = [
        [{ id: 1000, name: 'x' }, 'Ids up to 1000 are reserved'],
        [{ id: 1, name: 'x' }, 'Ids up to 1000 are reserved'],
        [{ id: 1002.5, name: 'x' }, 'whole number'],
        [{ name: 'x' }, 'id is required'],
        [{ id: 1002 }, 'Name is required'],
        [{ id: 1002, name: '  ' }, 'Name is required'],
        [{ id: 1002, name: 'x'.repeat(101) }, 'at most 100'],
        [{ id: 1002, name: 'x', icon: 'javascript:alert(1)' }, 'http(s) URL'],
        [{ id: 1002, name: 'x', extra: 1 }, 'extra'],
      ];
      for (const [body, message] of cases) {
        const res = await call(root, 'POST', '/api/model_ownedby/', body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().message, JSON.stringify(body)).toContain(message);
      }
      expect(await ownerCount()).toBe(before);
    });

    it('reserved owners can be neither changed nor deleted', async () => {
      const before = await owner(1);
      const put = await call(root, 'PUT', '/api/model_ownedby/', { id: 1, name: 'Hijacked' });
      expect(put.statusCode).toBe(400);
      expect(put.json().message).toContain('reserved');
      const del = await call(root, 'DELETE', '/api/model_ownedby/1');
      expect(del.statusCode).toBe(409);
      expect(del.json().message).toContain('belongs to a provider type');
      expect(await owner(1)).toEqual(before);
    });

    it('an owner still named by prices stays', async () => {
      await call(root, 'POST', '/api/model_ownedby/', { id: 2001, name: 'Priced' });
      const price = await call(root, 'POST', '/api/prices/single', {
        model: 'in-house-model',
        type: 'tokens',
        channel_type: 2001,
        input: 1,
        output: 1,
      });
      expect(price.statusCode).toBe(200);
      const res = await call(root, 'DELETE', '/api/model_ownedby/2001');
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toBe('Model owner "Priced" is still named by 1 price; change those first');
      expect(await owner(2001)).toBeDefined();
    });

    it('changes are for administrators only', async () => {
      await registerUser(t, 'plainowner');
      const cookie = await t.signIn('plainowner', 'password-123');
      expect((await call(cookie, 'POST', '/api/model_ownedby/', { id: 3001, name: 'x' })).statusCode).toBe(
        403,
      );
      expect(await owner(3001)).toBeUndefined();
    });
  });
}
