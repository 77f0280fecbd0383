import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { type FakeGitHub, startFakeGitHub } from '../../test/fake-github.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

const cookiesOf = (res: LightMyRequestResponse) => res.cookies.map((c) => `${c.name}=${c.value}`).join('; ');

for (const engine of engineTargets()) {
  describe.skipIf(engine.skipReason !== undefined)(`GitHub sign-in on ${engine.engine}`, () => {
    let t: TestApp;
    let gh: FakeGitHub;

    beforeAll(async () => {
      gh = await startFakeGitHub({ clientId: 'gh-client', clientSecret: 'gh-secret' });
      t = await createTestApp({ engine, env: { GITHUB_OAUTH_URL: gh.url, GITHUB_API_URL: gh.url } });
      await t.s.options.update({
        GitHubClientId: 'gh-client',
        GitHubClientSecret: 'gh-secret',
        GitHubOAuthEnabled: 'true',
        QuotaForNewUser: '50',
      });
    });
    afterAll(async () => {
      await t?.close();
      await gh?.close();
    });

    /** The console's steps: a state, GitHub's redirect with a code, the callback. */
    async function callback(code: string, cookie?: string) {
      const stateRes = await t.call({
        method: 'GET',
        url: '/api/oauth/state',
        headers: cookie ? { cookie } : {},
      });
      expect(stateRes.statusCode).toBe(200);
      const state = stateRes.json().data as string;
      expect(state).toHaveLength(12);
      const browser = [cookie, cookiesOf(stateRes)].filter(Boolean).join('; ');
      return t.call({
        method: 'GET',
        url: '/api/oauth/github',
        query: { code, state },
        headers: { cookie: browser },
      });
    }

    it('signs up with the GitHub login, then signs in; a taken login falls back to github_<n>', async () => {
      const res = await callback(
        gh.issueCode({ id: 101, login: 'octo', name: 'Octo Cat', email: 'octo@gh.test' }),
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({ username: 'octo', display_name: 'Octo Cat' });
      expect(await t.s.repos.users.byUsername('octo')).toMatchObject({ github_id: '101', quota: 50 });
      const again = await callback(gh.issueCode({ id: 101, login: 'octo-renamed' }));
      expect(again.json().data.username).toBe('octo');

      await registerUser(t, 'hubber');
      const clash = await callback(gh.issueCode({ id: 102, login: 'hubber' }));
      expect(clash.json().data.username).toMatch(/^github_\d+$/);
    });

    it('refuses a code used twice, a wrong state and a wrong client secret with a clear message', async () => {
      const code = gh.issueCode({ id: 103, login: 'once' });
      expect((await callback(code)).statusCode).toBe(200);
      const twice = await callback(code);
      expect(twice.statusCode).toBe(400);
      expect(twice.json()).toMatchObject({ code: 'oauth_failed' });
      expect(twice.json().message).toContain('The code passed is incorrect or expired.');

      const forged = await t.call({
        method: 'GET',
        url: '/api/oauth/github',
        query: { code: gh.issueCode({ id: 104, login: 'x' }), state: 'abcdefabcdef' },
      });
      expect(forged.json().code).toBe('oauth_state_invalid');

      await t.s.options.update({ GitHubClientSecret: 'wrong' });
      try {
        const before = await t.s.repos.users.maxId();
        const refused = await callback(gh.issueCode({ id: 105, login: 'nobody' }));
        expect(refused.statusCode).toBe(400);
        expect(refused.json().message).toContain('client_secret');
        expect(await t.s.repos.users.maxId()).toBe(before);
      } finally {
        await t.s.options.update({ GitHubClientSecret: 'gh-secret' });
      }
    });

    it('binds to the signed-in user, and matches a user bound by the old login id', async () => {
      const id = await registerUser(t, 'binder');
      const cookie = await t.signIn('binder', 'password-123');
      const res = await callback(gh.issueCode({ id: 200, login: 'binder-gh' }), cookie);
      expect(res.json()).toMatchObject({ success: true, message: 'bind' });
      expect((await t.s.repos.users.byId(id))!.github_id).toBe('200');
      // Another user cannot take it.
      await registerUser(t, 'thief');
      const thief = await t.signIn('thief', 'password-123');
      const taken = await callback(gh.issueCode({ id: 200, login: 'binder-gh' }), thief);
      expect(taken.json().code).toBe('oauth_already_bound');

      const legacy = await registerUser(t, 'veteran');
      await t.s.repos.users.update(legacy, { github_id: 'veteran-login' });
      const signedIn = await callback(gh.issueCode({ id: 300, login: 'veteran-login' }));
      expect(signedIn.json().data.id).toBe(legacy);
      expect((await t.s.repos.users.byId(legacy))!.github_id).toBe('300');

      // An administrator finds users by a bound account id, and sees the bindings in the list.
      const root = await t.signIn('root', ROOT_PASSWORD);
      const found = await t.call({
        method: 'GET',
        url: '/api/user/',
        query: { keyword: 'veteran-login' },
        headers: { cookie: root },
      });
      expect(found.json().data.data).toEqual([]);
      const byBinding = await t.call({
        method: 'GET',
        url: '/api/user/',
        query: { keyword: '300' },
        headers: { cookie: root },
      });
      expect(
        byBinding.json().data.data.map((u: { id: number; github_id: string }) => [u.id, u.github_id]),
      ).toEqual([[legacy, '300']]);
    });
  });
}
