import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { createTestApp, registerUser, type TestApp } from '../../test/test-app.js';

// Invites on every database engine: every user has a code; signing up with it
// pays the inviter and the invitee once, with system logs, in the sign-up's own transaction.

for (const engine of engineTargets()) {
  describe.skipIf(engine.skipReason !== undefined)(`invites on ${engine.engine}`, () => {
    let t: TestApp;

    const user = (id: number) =>
      t.s.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const systemLogs = (userId: number) =>
      t.s.database.db
        .selectFrom('logs')
        .selectAll()
        .where('user_id', '=', userId)
        .where('type', '=', LogType.System)
        .orderBy('id')
        .execute();
    const affOf = async (cookie: string) => {
      const res = await t.call({ method: 'GET', url: '/api/user/aff', headers: { cookie } });
      expect(res.statusCode).toBe(200);
      return res.json().data as string;
    };
    const register = (username: string, aff_code?: string) =>
      t.call({
        method: 'POST',
        url: '/api/user/register',
        payload: { username, password: 'password-123', ...(aff_code ? { aff_code } : {}) },
      });

    beforeAll(async () => {
      t = await createTestApp({ engine });
      await t.s.options.update({ QuotaForNewUser: '100', QuotaForInviter: '1000', QuotaForInvitee: '500' });
    });
    afterAll(async () => t?.close());

    it('gives every user an invite code, the same one each time', async () => {
      await registerUser(t, 'coder');
      const cookie = await t.signIn('coder', 'password-123');
      const code = await affOf(cookie);
      expect(code).toMatch(/^\w{8}$/);
      expect(await affOf(cookie)).toBe(code);
    });

    it('creates a code for an account that has none', async () => {
      const id = await registerUser(t, 'legacy');
      await t.s.database.db.updateTable('users').set({ aff_code: '' }).where('id', '=', id).execute();
      const cookie = await t.signIn('legacy', 'password-123');
      const code = await affOf(cookie);
      expect(code).toMatch(/^\w{8}$/);
      expect((await user(id)).aff_code).toBe(code);
      expect(await affOf(cookie)).toBe(code);
    });

    it('pays the inviter and the invitee once, with system logs, and records the inviter', async () => {
      const inviterId = await registerUser(t, 'inviter');
      const cookie = await t.signIn('inviter', 'password-123');
      const code = await affOf(cookie);
      expect((await user(inviterId)).quota).toBe(100);

      const res = await register('invitee', code);
      expect(res.statusCode).toBe(200);
      const inviteeId = res.json().data.id as number;
      expect(await user(inviteeId)).toMatchObject({ quota: 600, inviter_id: inviterId });
      expect((await user(inviterId)).quota).toBe(1100);
      expect((await systemLogs(inviteeId)).map((l) => l.quota)).toEqual([100, 500]);
      const inviterLogs = await systemLogs(inviterId);
      expect(inviterLogs.map((l) => l.quota)).toEqual([100, 1000]);
      expect(inviterLogs[1]!.content).toContain('invitee');

      // The same sign-up again fails and pays nobody.
      const again = await register('invitee', code);
      expect(again.statusCode).toBe(409);
      expect((await user(inviterId)).quota).toBe(1100);
      expect(await systemLogs(inviterId)).toHaveLength(2);
    });

    it('an unknown code or a disabled inviter earns nothing, and never blocks the sign-up', async () => {
      const unknown = await register('stranger', 'NOPE1234');
      expect(unknown.statusCode).toBe(200);
      expect(await user(unknown.json().data.id)).toMatchObject({ quota: 100, inviter_id: 0 });

      const bannedId = await registerUser(t, 'bannedinv');
      const code = (await user(bannedId)).aff_code;
      await t.s.repos.users.update(bannedId, { status: 2 });
      const res = await register('fromban', code);
      expect(res.statusCode).toBe(200);
      expect(await user(res.json().data.id)).toMatchObject({ quota: 100, inviter_id: 0 });
      expect((await user(bannedId)).quota).toBe(100);
    });

    it('a failed sign-up pays nobody, even when the same invite is sent five times at once', async () => {
      const inviterId = await registerUser(t, 'racinginv');
      const code = (await user(inviterId)).aff_code;
      const results = await Promise.all(Array.from({ length: 5 }, () => register('samename', code)));
      const codes = results.map((r) => r.statusCode);
      expect(codes.filter((c) => c === 200)).toHaveLength(1);
      expect(codes.filter((c) => c === 409)).toHaveLength(4);
      expect((await user(inviterId)).quota).toBe(1100);
      expect((await systemLogs(inviterId)).map((l) => l.quota)).toEqual([100, 1000]);
    });

    it('with zero rewards configured, an invite is recorded but writes no zero-quota logs', async () => {
      await t.s.options.update({ QuotaForNewUser: '0', QuotaForInviter: '0', QuotaForInvitee: '0' });
      const inviterId = await registerUser(t, 'freeinv');
      const res = await register('freeguest', (await user(inviterId)).aff_code);
      const id = res.json().data.id as number;
      expect(await user(id)).toMatchObject({ quota: 0, inviter_id: inviterId });
      expect(await systemLogs(id)).toEqual([]);
      expect(await systemLogs(inviterId)).toEqual([]);
    });
  });
}
