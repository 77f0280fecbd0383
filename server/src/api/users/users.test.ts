import { LogType, Role, UserStatus } from '@switchyard/domain';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { createToken } from '../../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// Users as administrators manage them, on every database engine: validation of the admin
// forms, the role rules, immediate effect of bans and role changes, the honest soft delete, and
// quota adjustments that never take a balance below zero, even with 20 at once.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

for (const engine of engineTargets()) {
  describe.skipIf(engine.skipReason !== undefined)(`users admin API on ${engine.engine}`, () => {
    let t: TestApp;
    let root: string;
    let admin: string;
    let adminId: number;
    let rootId: number;

    const call = (cookie: string | undefined, method: Method, url: string, payload?: unknown) => {
      const opts: InjectOptions = { method, url, headers: cookie ? { cookie } : {} };
      if (payload !== undefined) opts.payload = payload as InjectOptions['payload'];
      return t.call(opts);
    };
    const count = async (table: 'users' | 'logs' | 'audit_logs') =>
      Number(
        (
          await t.s.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const userRow = (id: number) =>
      t.s.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const manage = (cookie: string, username: string, action: string) =>
      call(cookie, 'POST', '/api/user/manage', { username, action });

    beforeAll(async () => {
      t = await createTestApp({ engine });
      root = await t.signIn('root', ROOT_PASSWORD);
      rootId = (await t.s.repos.users.byUsername('root'))!.id;
      adminId = await registerUser(t, 'boss');
      await t.s.repos.users.update(adminId, { role: Role.Admin });
      admin = await t.signIn('boss', 'password-123');
    });
    afterAll(async () => t?.close());

    describe('list and read', () => {
      it('lists users with keyword search, order and paging, never with secrets', async () => {
        await registerUser(t, 'listalpha');
        await registerUser(t, 'listbeta');
        const res = await call(admin, 'GET', '/api/user/?keyword=LIST&order=username&size=10');
        expect(res.statusCode).toBe(200);
        const page = res.json().data;
        expect(page.data.map((u: { username: string }) => u.username)).toEqual(['listalpha', 'listbeta']);
        expect(page.total_count).toBe(2);
        expect(res.body).not.toContain('password');
        expect(res.body).not.toContain('access_token_hash');

        const byId = await call(admin, 'GET', `/api/user/?keyword=${adminId}`);
        expect(byId.json().data.data.map((u: { id: number }) => u.id)).toContain(adminId);

        expect((await call(admin, 'GET', '/api/user/?order=password_hash')).statusCode).toBe(400);
        expect((await call(admin, 'GET', '/api/user/?size=101')).statusCode).toBe(400);
      });

      it('gets one user with the admin fields; a missing one is 404', async () => {
        const res = await call(admin, 'GET', `/api/user/${rootId}`);
        expect(res.statusCode).toBe(200);
        expect(res.json().data).toMatchObject({ id: rootId, username: 'root', role: Role.Root });
        expect(res.json().data).toHaveProperty('last_login_ip');
        expect((await call(admin, 'GET', '/api/user/999999')).statusCode).toBe(404);
      });
    });

    describe('create', () => {
      it('creates a common user in the chosen group with the new-user quota and a system log', async () => {
        await t.s.options.update({ QuotaForNewUser: '250' });
        const logs = await count('logs');
        const res = await call(admin, 'POST', '/api/user/', {
          username: 'made',
          password: 'made-password',
          display_name: 'Made Here',
          group: 'vip',
        });
        expect(res.statusCode).toBe(200);
        const made = res.json().data;
        expect(made).toMatchObject({
          username: 'made',
          display_name: 'Made Here',
          role: Role.Common,
          status: UserStatus.Enabled,
          group: 'vip',
          quota: 250,
        });
        expect(made.aff_code).toMatch(/^\w{8}$/);
        expect(await count('logs')).toBe(logs + 1);
        const log = await t.s.database.db
          .selectFrom('logs')
          .selectAll()
          .where('user_id', '=', made.id)
          .executeTakeFirstOrThrow();
        expect(log).toMatchObject({ type: LogType.System, quota: 250 });
        await t.signIn('made', 'made-password');
        await t.s.options.update({ QuotaForNewUser: '0' });
      });

      it("puts a user created without a group in default, as one-hub's management API does", async () => {
        const res = await call(admin, 'POST', '/api/user/', {
          username: 'nogroup',
          password: 'nogroup-password',
          display_name: 'No Group',
        });
        expect(res.statusCode).toBe(200);
        expect(res.json().data).toMatchObject({ username: 'nogroup', group: 'default' });
        expect((await userRow(res.json().data.id)).group).toBe('default');
      });

      it('refuses every invalid body with 400 and a clear message, writing nothing', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ password: 'password-123', group: 'default' }, 'username'],
          [{ username: 'ab', password: 'password-123', group: 'default' }, 'at least 3'],
          [{ username: 'new1', group: 'default' }, 'password'],
          [{ username: 'new1', password: 'short', group: 'default' }, 'at least 8'],
          [{ username: 'new1', password: 'password-123', group: '' }, 'Group is required'],
          [{ username: 'new1', password: 'password-123', group: 'nosuch' }, 'No such group'],
          [{ username: 'new1', password: 'password-123', group: 'default', role: 100 }, 'role'],
          [{ username: 'new1', password: 'password-123', group: 'default', quota: 5 }, 'quota'],
          [{ username: 'bad name', password: 'password-123', group: 'default' }, 'Username may contain'],
        ];
        const users = await count('users');
        for (const [body, message] of cases) {
          const res = await call(admin, 'POST', '/api/user/', body);
          expect(res.statusCode, JSON.stringify(body)).toBe(400);
          expect(res.json().success).toBe(false);
          expect(res.json().message, JSON.stringify(body)).toContain(message);
        }
        expect(await count('users')).toBe(users);
      });

      it('refuses a disabled group and a taken username', async () => {
        await t.s.database.db
          .updateTable('user_groups')
          .set({ enable: 0 })
          .where('symbol', '=', 'svip')
          .execute();
        const disabled = await call(admin, 'POST', '/api/user/', {
          username: 'new2',
          password: 'password-123',
          group: 'svip',
        });
        expect(disabled.statusCode).toBe(400);
        expect(disabled.json().message).toContain('disabled');
        await t.s.database.db
          .updateTable('user_groups')
          .set({ enable: 1 })
          .where('symbol', '=', 'svip')
          .execute();

        const taken = await call(admin, 'POST', '/api/user/', {
          username: 'boss',
          password: 'password-123',
          group: 'default',
        });
        expect(taken.statusCode).toBe(409);
        expect(taken.json().code).toBe('username_taken');
      });

      it('is for administrators only', async () => {
        await registerUser(t, 'plainc');
        const plain = await t.signIn('plainc', 'password-123');
        const res = await call(plain, 'POST', '/api/user/', {
          username: 'sneaky',
          password: 'password-123',
          group: 'default',
        });
        expect(res.statusCode).toBe(403);
        expect(await t.s.repos.users.byUsername('sneaky')).toBeUndefined();
      });
    });

    describe('edit', () => {
      it('changes username, display name, email and group; an audit row records it', async () => {
        const id = await registerUser(t, 'editme');
        const audits = await count('audit_logs');
        const res = await call(admin, 'PUT', '/api/user/', {
          id,
          username: 'edited',
          display_name: 'Edited',
          email: 'edited@example.com',
          group: 'vip',
        });
        expect(res.statusCode).toBe(200);
        expect(res.json().data).toMatchObject({
          id,
          username: 'edited',
          display_name: 'Edited',
          email: 'edited@example.com',
          group: 'vip',
        });
        expect(await count('audit_logs')).toBe(audits + 1);
        await t.signIn('edited', 'password-123');
      });

      it('never writes quota: a body carrying it is refused and nothing changes', async () => {
        const id = await registerUser(t, 'noquota');
        const before = await userRow(id);
        const logs = await count('logs');
        const res = await call(admin, 'PUT', '/api/user/', {
          id,
          username: 'noquota',
          group: 'default',
          display_name: 'changed?',
          quota: 999999,
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toContain('quota cannot be changed by an edit');
        const after = await userRow(id);
        expect(after.quota).toBe(before.quota);
        expect(after.display_name).toBe(before.display_name);
        expect(await count('logs')).toBe(logs);
      });

      it('refuses missing required fields, a taken username and an unknown group', async () => {
        const id = await registerUser(t, 'editval');
        const bad: [Record<string, unknown>, number, string][] = [
          [{ id, group: 'default' }, 400, 'username'],
          [{ id, username: 'editval' }, 400, 'Group is required'],
          [{ id, username: 'editval', group: 'default', password: 'short' }, 400, 'at least 8'],
          [{ id, username: 'editval', group: 'nosuch' }, 400, 'No such group'],
          [{ id, username: 'boss', group: 'default' }, 409, 'already taken'],
          [{ id: 999999, username: 'whoever', group: 'default' }, 404, 'not found'],
        ];
        const before = await userRow(id);
        for (const [body, status, message] of bad) {
          const res = await call(admin, 'PUT', '/api/user/', body);
          expect(res.statusCode, JSON.stringify(body)).toBe(status);
          expect(res.json().message).toContain(message);
        }
        expect(await userRow(id)).toEqual(before);
      });

      it('a new password signs the user out everywhere', async () => {
        const id = await registerUser(t, 'pwchange');
        const cookie = await t.signIn('pwchange', 'password-123');
        const res = await call(admin, 'PUT', '/api/user/', {
          id,
          username: 'pwchange',
          group: 'default',
          password: 'brand-new-password',
        });
        expect(res.statusCode).toBe(200);
        expect((await call(cookie, 'GET', '/api/user/self')).statusCode).toBe(401);
        await t.signIn('pwchange', 'brand-new-password');
        // An empty password keeps the current one.
        await call(admin, 'PUT', '/api/user/', { id, username: 'pwchange', group: 'default', password: '' });
        await t.signIn('pwchange', 'brand-new-password');
      });

      it('nobody edits an equal or higher role, except root', async () => {
        const otherAdmin = await registerUser(t, 'boss2');
        await t.s.repos.users.update(otherAdmin, { role: Role.Admin });
        const onAdmin = await call(admin, 'PUT', '/api/user/', {
          id: otherAdmin,
          username: 'x-boss',
          group: 'default',
        });
        expect(onAdmin.statusCode).toBe(403);
        const onRoot = await call(admin, 'PUT', '/api/user/', {
          id: rootId,
          username: 'x-root',
          group: 'default',
        });
        expect(onRoot.statusCode).toBe(403);
        const onSelf = await call(admin, 'PUT', '/api/user/', {
          id: adminId,
          username: 'x-self',
          group: 'default',
        });
        expect(onSelf.statusCode).toBe(403);
        expect((await userRow(otherAdmin)).username).toBe('boss2');
        expect((await userRow(rootId)).username).toBe('root');

        const byRoot = await call(root, 'PUT', '/api/user/', {
          id: otherAdmin,
          username: 'boss2',
          display_name: 'Second Boss',
          group: 'default',
        });
        expect(byRoot.statusCode).toBe(200);
        expect(byRoot.json().data.display_name).toBe('Second Boss');
      });
    });

    describe('manage actions', () => {
      it('root cannot be disabled, deleted or demoted, by anyone', async () => {
        for (const cookie of [root, admin]) {
          for (const action of ['disable', 'delete', 'demote']) {
            const res = await manage(cookie, 'root', action);
            expect(res.statusCode, action).toBe(409);
            expect(res.json().message).toContain('root user cannot be');
          }
        }
        expect((await call(admin, 'DELETE', `/api/user/${rootId}`)).statusCode).toBe(409);
        expect(await userRow(rootId)).toMatchObject({
          role: Role.Root,
          status: UserStatus.Enabled,
          deleted_at: null,
        });
      });

      it('an admin cannot act on an equal role, nor promote; root can', async () => {
        await registerUser(t, 'peer');
        await t.s.database.db
          .updateTable('users')
          .set({ role: Role.Admin })
          .where('username', '=', 'peer')
          .execute();
        for (const action of ['disable', 'delete', 'demote', 'enable']) {
          expect((await manage(admin, 'peer', action)).statusCode, action).toBe(403);
        }
        await registerUser(t, 'climber');
        const promote = await manage(admin, 'climber', 'promote');
        expect(promote.statusCode).toBe(403);
        expect(promote.json().message).toContain('Only the root user');
        expect((await t.s.repos.users.byUsername('climber'))!.role).toBe(Role.Common);

        const demoted = await manage(root, 'peer', 'demote');
        expect(demoted.statusCode).toBe(200);
        expect(demoted.json().data).toEqual({ role: Role.Common, status: UserStatus.Enabled });
        expect((await manage(root, 'peer', 'demote')).statusCode).toBe(409);
      });

      it('promotion and demotion apply on the next request', async () => {
        await registerUser(t, 'riser');
        const cookie = await t.signIn('riser', 'password-123');
        expect((await call(cookie, 'GET', '/api/user/')).statusCode).toBe(403);
        const up = await manage(root, 'riser', 'promote');
        expect(up.statusCode).toBe(200);
        expect(up.json().data).toEqual({ role: Role.Admin, status: UserStatus.Enabled });
        expect((await call(cookie, 'GET', '/api/user/')).statusCode).toBe(200);
        expect((await manage(root, 'riser', 'promote')).statusCode).toBe(409);
        expect((await manage(root, 'riser', 'demote')).statusCode).toBe(200);
        expect((await call(cookie, 'GET', '/api/user/')).statusCode).toBe(403);
      });

      it('a ban ends the sessions and stops the API keys at once; enabling lets the user back in', async () => {
        const id = await registerUser(t, 'banned');
        const cookie = await t.signIn('banned', 'password-123');
        const { key } = await createToken(t, cookie);
        const models = () =>
          t.call({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${key}` } });
        // The relay now holds the user in its cache.
        expect((await models()).statusCode).toBe(200);

        const res = await manage(admin, 'banned', 'disable');
        expect(res.statusCode).toBe(200);
        expect(res.json().data).toEqual({ role: Role.Common, status: UserStatus.Disabled });
        expect((await call(cookie, 'GET', '/api/user/self')).statusCode).toBe(401);
        expect((await models()).statusCode).not.toBe(200);
        expect(
          await t.s.database.db.selectFrom('sessions').select('id_hash').where('user_id', '=', id).execute(),
        ).toEqual([]);
        const login = await t.call({
          method: 'POST',
          url: '/api/user/login',
          payload: { username: 'banned', password: 'password-123' },
        });
        expect(login.statusCode).toBe(401);

        expect((await call(admin, 'POST', '/api/user/manage', { id, action: 'enable' })).statusCode).toBe(
          200,
        );
        await t.signIn('banned', 'password-123');
        expect((await models()).statusCode).toBe(200);
      });

      it('refuses unknown actions and users', async () => {
        expect((await manage(admin, 'banned', 'explode')).statusCode).toBe(400);
        expect((await manage(admin, 'nobody-here', 'disable')).statusCode).toBe(404);
        expect((await call(admin, 'POST', '/api/user/manage', { action: 'disable' })).statusCode).toBe(400);
      });
    });

    describe('delete', () => {
      it('soft-deletes honestly: the user is gone, its name is free, its sessions end', async () => {
        const id = await registerUser(t, 'leaver');
        const cookie = await t.signIn('leaver', 'password-123');
        const res = await call(admin, 'DELETE', `/api/user/${id}`);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({ success: true, data: null });
        expect((await call(cookie, 'GET', '/api/user/self')).statusCode).toBe(401);
        expect((await call(admin, 'GET', `/api/user/${id}`)).statusCode).toBe(404);
        const row = await userRow(id);
        expect(row.deleted_at).not.toBeNull();
        expect(row.username).toMatch(/^leaver_del_[0-9a-f]{6}$/);

        const again = await call(admin, 'DELETE', `/api/user/${id}`);
        expect(again.statusCode).toBe(404);
        expect(again.json().success).toBe(false);

        const reused = await registerUser(t, 'leaver');
        expect(reused).not.toBe(id);
      });

      it('manage delete does the same', async () => {
        const id = await registerUser(t, 'leaver2');
        expect((await manage(admin, 'leaver2', 'delete')).statusCode).toBe(200);
        expect((await userRow(id)).deleted_at).not.toBeNull();
      });
    });

    describe('quota adjustment', () => {
      it('adds and deducts with a remark, writing a manage log and an audit row', async () => {
        const id = await registerUser(t, 'wallet');
        const logs = await count('logs');
        const add = await call(admin, 'POST', `/api/user/quota/${id}`, {
          quota: 5000,
          remark: 'welcome gift',
        });
        expect(add.statusCode).toBe(200);
        expect(add.json().data).toEqual({ quota: 5000 });
        const sub = await call(admin, 'POST', `/api/user/quota/${id}`, { quota: -1500 });
        expect(sub.json().data).toEqual({ quota: 3500 });
        expect((await userRow(id)).quota).toBe(3500);
        const rows = await t.s.database.db
          .selectFrom('logs')
          .selectAll()
          .where('user_id', '=', id)
          .orderBy('id')
          .execute();
        expect(await count('logs')).toBe(logs + 2);
        expect(rows.map((r) => [r.type, r.quota])).toEqual([
          [LogType.Manage, 5000],
          [LogType.Manage, -1500],
        ]);
        expect(rows[0]!.content).toContain('welcome gift');
        expect(JSON.parse(rows[1]!.metadata)).toMatchObject({ balance: 3500 });
        const audit = await t.s.database.db
          .selectFrom('audit_logs')
          .selectAll()
          .where('action', '=', 'user.quota')
          .where('target_id', '=', String(id))
          .execute();
        expect(audit).toHaveLength(2);
        expect(audit[0]!.actor_id).toBe(adminId);
      });

      it("refuses to deduct more than the balance, with one-hub's message, changing nothing", async () => {
        const id = await registerUser(t, 'poor');
        await call(admin, 'POST', `/api/user/quota/${id}`, { quota: 100 });
        const logs = await count('logs');
        const res = await call(admin, 'POST', `/api/user/quota/${id}`, { quota: -101 });
        expect(res.statusCode).toBe(409);
        expect(res.json()).toMatchObject({
          success: false,
          code: 'insufficient_quota',
          message: "Cannot deduct an amount exceeding the user's balance",
        });
        expect((await userRow(id)).quota).toBe(100);
        expect(await count('logs')).toBe(logs);
        expect((await call(admin, 'POST', `/api/user/quota/${id}`, { quota: -100 })).json().data).toEqual({
          quota: 0,
        });
      });

      it('refuses a missing, zero or fractional change and one on an equal or higher role', async () => {
        const id = await registerUser(t, 'strict');
        const logs = await count('logs');
        for (const body of [
          {},
          { quota: 0 },
          { quota: 1.5 },
          { quota: '100' },
          { quota: 10, remark: 'x'.repeat(201) },
        ]) {
          const res = await call(admin, 'POST', `/api/user/quota/${id}`, body);
          expect(res.statusCode, JSON.stringify(body)).toBe(400);
        }
        expect((await call(admin, 'POST', `/api/user/quota/${id}`, { quota: 0 })).json().message).toContain(
          'cannot be 0',
        );
        // An administrator cannot pay themselves, nor touch root.
        expect((await call(admin, 'POST', `/api/user/quota/${adminId}`, { quota: 10 })).statusCode).toBe(403);
        expect((await call(admin, 'POST', `/api/user/quota/${rootId}`, { quota: -10 })).statusCode).toBe(403);
        expect((await call(admin, 'POST', '/api/user/quota/999999', { quota: 10 })).statusCode).toBe(404);
        expect((await userRow(id)).quota).toBe(0);
        expect(await count('logs')).toBe(logs);
        // Root is exempt from the rule.
        expect((await call(root, 'POST', `/api/user/quota/${rootId}`, { quota: 10 })).statusCode).toBe(200);
      });

      it('refuses an addition that would take the balance past exact numbers', async () => {
        const id = await registerUser(t, 'whale');
        await t.s.repos.users.update(id, { quota: Number.MAX_SAFE_INTEGER - 5 });
        const res = await call(admin, 'POST', `/api/user/quota/${id}`, { quota: 10 });
        expect(res.statusCode).toBe(409);
        expect((await userRow(id)).quota).toBe(Number.MAX_SAFE_INTEGER - 5);
        expect((await call(admin, 'POST', `/api/user/quota/${id}`, { quota: 5 })).statusCode).toBe(200);
      });

      it('20 parallel deductions never take the balance below zero', async () => {
        const id = await registerUser(t, 'racer');
        await call(admin, 'POST', `/api/user/quota/${id}`, { quota: 1000 });
        const logs = await count('logs');
        const results = await Promise.all(
          Array.from({ length: 20 }, () => call(admin, 'POST', `/api/user/quota/${id}`, { quota: -100 })),
        );
        const codes = results.map((r) => r.statusCode);
        expect(codes.filter((c) => c === 200)).toHaveLength(10);
        expect(codes.filter((c) => c === 409)).toHaveLength(10);
        expect((await userRow(id)).quota).toBe(0);
        const manageLogs = await t.s.database.db
          .selectFrom('logs')
          .select('quota')
          .where('user_id', '=', id)
          .where('type', '=', LogType.Manage)
          .where('quota', '<', 0)
          .execute();
        expect(manageLogs).toHaveLength(10);
        expect(await count('logs')).toBe(logs + 10);
        // Every successful answer reported a distinct balance on the way down.
        const balances = results
          .filter((r) => r.statusCode === 200)
          .map((r) => r.json().data.quota as number);
        expect(balances.sort((a, b) => a - b)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
      });
    });
  });
}
