import { UserStatus } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// Accounts and sessions, run identically on every database engine (and with Redis sessions when
// TEST_REDIS_URL is set).

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl && process.env.REQUIRE_ALL_SUITES === '1')
  throw new Error('TEST_REDIS_URL is required by REQUIRE_ALL_SUITES=1');
if (!redisUrl) console.log('redis session suite skipped: TEST_REDIS_URL is not set');

const variants = [
  ...engineTargets().map((engine) => ({
    name: engine.engine,
    engine,
    redis: false,
    skip: engine.skipReason,
  })),
  {
    name: 'sqlite + redis sessions',
    engine: engineTargets()[0]!,
    redis: true,
    skip: redisUrl ? undefined : 'no redis',
  },
];

for (const v of variants) {
  describe.skipIf(v.skip !== undefined)(`accounts and sessions on ${v.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ engine: v.engine, env: v.redis && redisUrl ? { REDIS_URL: redisUrl } : {} });
    });
    afterAll(async () => t?.close());

    it('creates root on first start with the configured password', async () => {
      const cookie = await t.signIn('root', ROOT_PASSWORD);
      const self = await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie } });
      expect(self.statusCode).toBe(200);
      expect(self.json().data).toMatchObject({
        username: 'root',
        role: 100,
        status: 1,
        has_access_token: false,
      });
      expect(self.body).not.toContain('password');
    });

    it('registers a user with the new-user quota and signs in by username or email', async () => {
      await t.s.options.update({ QuotaForNewUser: '1234' });
      await registerUser(t, 'alice', 'alice-password', { email: 'alice@example.com' });
      const byName = await t.signIn('alice', 'alice-password');
      const self = await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie: byName } });
      expect(self.json().data).toMatchObject({
        username: 'alice',
        display_name: 'alice',
        role: 1,
        quota: 1234,
        group: 'default',
      });
      expect(self.json().data.aff_code).toMatch(/^[A-Za-z0-9]{8}$/);
      await expect(t.signIn('alice@example.com', 'alice-password')).resolves.toMatch(/^sy_session=/);
    });

    it('refuses a taken username with 409 and keeps one row', async () => {
      await registerUser(t, 'bob');
      const again = await t.call({
        method: 'POST',
        url: '/api/user/register',
        payload: { username: 'bob', password: 'password-456' },
      });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ success: false, code: 'username_taken' });
      const rows = await t.s.database.db
        .selectFrom('users')
        .select('id')
        .where('username', '=', 'bob')
        .execute();
      expect(rows).toHaveLength(1);
    });

    it('enforces the username, password and email rules on register', async () => {
      const cases = [
        { username: 'ab', password: 'password-1' },
        { username: 'valid-name', password: 'short' },
        { username: 'valid-name', password: 'password-1', email: 'not-an-email' },
        { username: 'has space', password: 'password-1' },
      ];
      for (const payload of cases) {
        const res = await t.call({ method: 'POST', url: '/api/user/register', payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().code).toBe('invalid_request');
      }
      expect(await t.s.repos.users.byUsername('valid-name')).toBeUndefined();
    });

    it('follows the registration switches', async () => {
      await t.s.options.update({ RegisterEnabled: 'false' });
      const closed = await t.call({
        method: 'POST',
        url: '/api/user/register',
        payload: { username: 'carol', password: 'password-1' },
      });
      expect(closed.statusCode).toBe(403);
      expect(closed.json().code).toBe('registration_disabled');
      await t.s.options.update({ RegisterEnabled: 'true', EmailVerificationEnabled: 'true' });
      const noCode = await t.call({
        method: 'POST',
        url: '/api/user/register',
        payload: { username: 'carol', password: 'password-1', email: 'carol@example.com' },
      });
      expect(noCode.statusCode).toBe(400);
      expect(noCode.json().code).toBe('verification_required');
      await t.s.options.update({ EmailVerificationEnabled: 'false' });
    });

    it('gives one answer for a wrong password and an unknown user', async () => {
      const wrong = await t.call({
        method: 'POST',
        url: '/api/user/login',
        payload: { username: 'alice', password: 'nope-nope' },
      });
      const unknown = await t.call({
        method: 'POST',
        url: '/api/user/login',
        payload: { username: 'nobody', password: 'nope-nope' },
      });
      expect(wrong.statusCode).toBe(401);
      expect(unknown.statusCode).toBe(401);
      expect(wrong.json()).toEqual(unknown.json());
    });

    it('ends the session on logout', async () => {
      const cookie = await t.signIn('bob', 'password-123');
      expect((await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie } })).statusCode).toBe(
        200,
      );
      await t.call({ method: 'GET', url: '/api/user/logout', headers: { cookie } });
      const after = await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie } });
      expect(after.statusCode).toBe(401);
      expect(after.json().code).toBe('not_logged_in');
    });

    it('applies a ban, a deletion and a role change on the very next request', async () => {
      const id = await registerUser(t, 'dave');
      const cookie = await t.signIn('dave', 'password-123');
      await t.s.repos.users.update(id, { role: 100 });
      expect((await t.call({ method: 'GET', url: '/api/option', headers: { cookie } })).statusCode).toBe(200);
      await t.s.repos.users.update(id, { role: 1 });
      expect((await t.call({ method: 'GET', url: '/api/option', headers: { cookie } })).statusCode).toBe(403);

      await t.s.repos.users.update(id, { status: UserStatus.Disabled });
      const banned = await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie } });
      expect(banned.statusCode).toBe(401);
      expect(banned.json().code).toBe('user_disabled');
      await t.s.repos.users.update(id, { status: UserStatus.Enabled });
      // The ban ended every session; re-enabling does not bring them back.
      expect((await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie } })).statusCode).toBe(
        401,
      );

      const fresh = await t.signIn('dave', 'password-123');
      await t.s.repos.users.update(id, { deleted_at: t.s.clock.nowSeconds() });
      expect(
        (await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie: fresh } })).statusCode,
      ).toBe(401);
    });

    it('issues an access token that works as Authorization on management routes', async () => {
      const cookie = await t.signIn('root', ROOT_PASSWORD);
      const res = await t.call({ method: 'GET', url: '/api/user/token', headers: { cookie } });
      const token = res.json().data as string;
      expect(token).toMatch(/^[0-9a-f]{32}$/);
      const plain = await t.call({ method: 'GET', url: '/api/option', headers: { authorization: token } });
      expect(plain.statusCode).toBe(200);
      const bearer = await t.call({
        method: 'GET',
        url: '/api/user/self',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(bearer.json().data).toMatchObject({ username: 'root', has_access_token: true });
      // A new token replaces the old one.
      await t.call({ method: 'GET', url: '/api/user/token', headers: { cookie } });
      const old = await t.call({ method: 'GET', url: '/api/user/self', headers: { authorization: token } });
      expect(old.statusCode).toBe(401);
      expect(old.json().code).toBe('invalid_access_token');
      // The token is stored only as a hash.
      const row = await t.s.repos.users.byUsername('root');
      expect(row?.access_token_hash).not.toContain(token);
    });

    it('updates the profile and signs out other sessions on a password change', async () => {
      await registerUser(t, 'erin', 'erin-password');
      const here = await t.signIn('erin', 'erin-password');
      const elsewhere = await t.signIn('erin', 'erin-password');
      const res = await t.call({
        method: 'PUT',
        url: '/api/user/self',
        headers: { cookie: here },
        payload: { display_name: 'Erin E.', password: 'erin-new-password' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.display_name).toBe('Erin E.');
      const renewed = res.cookies.find((c) => c.name === 'sy_session');
      expect(renewed).toBeDefined();
      expect(
        (
          await t.call({
            method: 'GET',
            url: '/api/user/self',
            headers: { cookie: `sy_session=${renewed!.value}` },
          })
        ).statusCode,
      ).toBe(200);
      expect(
        (await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie: elsewhere } })).statusCode,
      ).toBe(401);
      await expect(t.signIn('erin', 'erin-new-password')).resolves.toMatch(/^sy_session=/);
      const short = await t.call({
        method: 'PUT',
        url: '/api/user/self',
        headers: { cookie: here },
        payload: { password: 'short' },
      });
      expect(short.statusCode).toBe(401); // the old session was ended by the password change
    });
  });
}

describe('sign-in rate limit per IP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { CRITICAL_RATE_LIMIT: '3' } });
  });
  afterAll(async () => t?.close());

  it('answers 429 after the limit, per client address', async () => {
    const attempt = (ip: string) =>
      t.call({
        method: 'POST',
        url: '/api/user/login',
        remoteAddress: ip,
        payload: { username: 'x', password: 'y-y-y-y-y' },
      });
    for (let i = 0; i < 3; i++) expect((await attempt('10.0.0.1')).statusCode).toBe(401);
    const limited = await attempt('10.0.0.1');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await attempt('10.0.0.2')).statusCode).toBe(401);
  });
});
