import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// The messaging-bot menu on every database engine: required fields,
// built-in command names refused, unique commands, insert-or-update by id, keyword search, delete.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

for (const engine of engineTargets()) {
  describe.skipIf(engine.skipReason !== undefined)(`telegram menu on ${engine.engine}`, () => {
    let t: TestApp;
    let root: string;

    const call = (cookie: string | undefined, method: Method, url: string, payload?: unknown) => {
      const opts: InjectOptions = { method, url, headers: cookie ? { cookie } : {} };
      if (payload !== undefined) opts.payload = payload as InjectOptions['payload'];
      return t.call(opts);
    };
    const rowCount = async () =>
      Number(
        (
          await t.s.database.db
            .selectFrom('telegram_menus')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const entry = (command: string, extra: Record<string, unknown> = {}) => ({
      command,
      description: `About ${command}`,
      parse_mode: 'MarkdownV2',
      reply_message: `Reply of ${command}`,
      ...extra,
    });

    beforeAll(async () => {
      t = await createTestApp({ engine });
      root = await t.signIn('root', ROOT_PASSWORD);
    });
    afterAll(async () => t?.close());

    it('creates entries with id 0, then updates by id', async () => {
      const created = await call(root, 'POST', '/api/option/telegram/', {
        ...entry('help'),
        command: '/help',
      });
      expect(created.statusCode).toBe(200);
      const id = created.json().data.id as number;
      expect(created.json().data).toEqual({ id, ...entry('help') });

      const updated = await call(root, 'POST', '/api/option/telegram/', {
        ...entry('help', { parse_mode: 'HTML', reply_message: '<b>Help</b>' }),
        id,
      });
      expect(updated.statusCode).toBe(200);
      const read = await call(root, 'GET', `/api/option/telegram/${id}`);
      expect(read.json().data).toMatchObject({ id, parse_mode: 'HTML', reply_message: '<b>Help</b>' });
      expect((await call(root, 'GET', '/api/option/telegram/999999')).statusCode).toBe(404);
      const missing = await call(root, 'POST', '/api/option/telegram/', { ...entry('ghost'), id: 999999 });
      expect(missing.statusCode).toBe(404);
      expect(await t.s.repos.telegramMenus.byCommand('ghost')).toBeUndefined();
    });

    it('refuses built-in commands, taken commands and missing fields without writing', async () => {
      const before = await rowCount();
      const builtIn = await call(root, 'POST', '/api/option/telegram/', entry('recharge'));
      expect(builtIn.statusCode).toBe(400);
      expect(builtIn.json().message).toContain('built into the bot');

      await call(root, 'POST', '/api/option/telegram/', entry('prices'));
      const other = (await call(root, 'POST', '/api/option/telegram/', entry('status'))).json().data;
      const clash = await call(root, 'POST', '/api/option/telegram/', entry('prices'));
      expect(clash.statusCode).toBe(409);
      const renameClash = await call(root, 'POST', '/api/option/telegram/', {
        ...entry('prices'),
        id: other.id,
      });
      expect(renameClash.statusCode).toBe(409);

      for (const field of ['description', 'reply_message', 'parse_mode']) {
        const res = await call(root, 'POST', '/api/option/telegram/', entry('nofield', { [field]: '' }));
        expect(res.statusCode).toBe(400);
      }
      expect(await rowCount()).toBe(before + 2);
    });

    it('lists with paging and finds by id or command prefix', async () => {
      const all = await call(root, 'GET', '/api/option/telegram/?order=command&size=2');
      expect(all.statusCode).toBe(200);
      expect(all.json().data.total_count).toBe(await rowCount());
      expect(all.json().data.data.map((r: { command: string }) => r.command)).toEqual(['help', 'prices']);
      const found = await call(root, 'GET', '/api/option/telegram/?keyword=PRI');
      expect(found.json().data.data.map((r: { command: string }) => r.command)).toEqual(['prices']);
      const byId = await call(root, 'GET', `/api/option/telegram/?keyword=${found.json().data.data[0].id}`);
      expect(byId.json().data.data.map((r: { command: string }) => r.command)).toContain('prices');
    });

    it('deletes an entry and reports the bot offline', async () => {
      const id = (await call(root, 'POST', '/api/option/telegram/', entry('gone'))).json().data.id;
      expect((await call(root, 'DELETE', `/api/option/telegram/${id}`)).statusCode).toBe(200);
      expect((await call(root, 'DELETE', `/api/option/telegram/${id}`)).statusCode).toBe(404);
      const status = await call(root, 'GET', '/api/option/telegram/status');
      expect(status.json().data).toEqual({ status: false, is_webhook: false });
    });

    it('is for root only', async () => {
      await registerUser(t, 'menuuser');
      const user = await t.signIn('menuuser', 'password-123');
      expect((await call(user, 'GET', '/api/option/telegram/')).statusCode).toBe(403);
      expect((await call(undefined, 'POST', '/api/option/telegram/', entry('x'))).statusCode).toBe(401);
    });
  });
}
