import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { engineTargets } from '../../test/databases.js';
import { FakeOidcProvider } from '../../test/fake-oidc-provider.js';
import { createTestApp, registerUser, type TestApp } from '../../test/test-app.js';

// OIDC sign-in against a real in-process provider: discovery, code + PKCE, ID token verified
// against its JWKS; the sign-in, sign-up, bind and unbind rules every provider shares.

const SERVER = 'http://console.test';
const CALLBACK = `${SERVER}/oauth/oidc`;

function cookiesOf(res: LightMyRequestResponse): string {
  return res.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
}

for (const engine of engineTargets()) {
  describe.skipIf(engine.skipReason !== undefined)(`OIDC sign-in on ${engine.engine}`, () => {
    let t: TestApp;
    let idp: FakeOidcProvider;

    beforeAll(async () => {
      idp = await FakeOidcProvider.start({
        clientId: 'switchyard',
        clientSecret: 'oidc-secret',
        redirectUris: [CALLBACK],
      });
      t = await createTestApp({ engine });
      await t.s.options.update({
        ServerAddress: SERVER,
        OIDCClientId: 'switchyard',
        OIDCClientSecret: 'oidc-secret',
        OIDCIssuer: idp.issuer,
        OIDCScopes: 'openid profile email',
        OIDCUsernameClaims: 'preferred_username',
        OIDCAuthEnabled: 'true',
        QuotaForNewUser: '700',
      });
    });
    afterAll(async () => {
      await t?.close();
      await idp?.close();
    });
    beforeEach(() => {
      idp.tamper = undefined;
    });

    /** The console's steps: fetch the endpoint, let the provider redirect back, call the callback. */
    async function signInThroughOidc(opts: { cookie?: string; aff?: string } = {}) {
      const endpoint = await t.call({
        method: 'GET',
        url: '/api/oauth/endpoint',
        headers: opts.cookie ? { cookie: opts.cookie } : {},
      });
      expect(endpoint.statusCode, endpoint.body).toBe(200);
      const url = new URL(endpoint.json().data as string);
      expect(url.origin).toBe(idp.issuer);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('redirect_uri')).toBe(CALLBACK);
      const back = await idp.followToCallback(url.href, CALLBACK);
      const browser = [opts.cookie, cookiesOf(endpoint)].filter(Boolean).join('; ');
      const query: Record<string, string> = {};
      for (const [k, v] of back.searchParams) query[k] = v;
      if (opts.aff) query.aff = opts.aff;
      const res = await t.call({
        method: 'GET',
        url: '/api/oauth/oidc',
        query,
        headers: { cookie: browser },
      });
      return { res, query, browser };
    }

    it('signs up a new user from the ID token claims, then signs the same person in', async () => {
      const inviter = await registerUser(t, `inviter_${engine.engine}`);
      const aff = (await t.s.repos.users.byId(inviter))!.aff_code;
      idp.nextAccount = {
        sub: 'alice-sub',
        claims: {
          preferred_username: 'alice',
          name: 'Alice A.',
          email: 'alice@idp.test',
          email_verified: true,
          picture: 'https://idp.test/a.png',
        },
      };
      const { res } = await signInThroughOidc({ aff });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.username).toBe('alice');
      expect(res.cookies.some((c) => c.name === 'sy_session')).toBe(true);
      const user = (await t.s.repos.users.byUsername('alice'))!;
      expect(user).toMatchObject({
        oidc_id: 'alice-sub',
        email: 'alice@idp.test',
        display_name: 'Alice A.',
        avatar_url: 'https://idp.test/a.png',
        quota: 700,
        inviter_id: inviter,
        password_hash: '',
      });
      const again = await signInThroughOidc();
      expect(again.res.statusCode, again.res.body).toBe(200);
      expect(again.res.json().data.id).toBe(user.id);
    });

    it('falls back to oidc_<n> when the claimed username is taken', async () => {
      await registerUser(t, 'bob');
      idp.nextAccount = { sub: 'bob-sub', claims: { preferred_username: 'bob' } };
      const { res } = await signInThroughOidc();
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.username).toMatch(/^oidc_\d+$/);
    });

    it('refuses a state replayed, from another browser, or unknown', async () => {
      idp.nextAccount = { sub: 'carol-sub', claims: { preferred_username: 'carol' } };
      const { res, query, browser } = await signInThroughOidc();
      expect(res.statusCode).toBe(200);
      const replay = await t.call({
        method: 'GET',
        url: '/api/oauth/oidc',
        query,
        headers: { cookie: browser },
      });
      expect(replay.statusCode).toBe(400);
      expect(replay.json()).toMatchObject({ success: false, code: 'oauth_state_invalid' });

      // A fresh state used with another browser's cookie (login CSRF).
      const endpoint = await t.call({ method: 'GET', url: '/api/oauth/endpoint' });
      const back = await idp.followToCallback(endpoint.json().data, CALLBACK);
      const other = await t.call({ method: 'GET', url: '/api/oauth/state' });
      const stolen = await t.call({
        method: 'GET',
        url: '/api/oauth/oidc',
        query: Object.fromEntries(back.searchParams),
        headers: { cookie: cookiesOf(other) },
      });
      expect(stolen.statusCode).toBe(400);
      expect(stolen.json().code).toBe('oauth_state_invalid');

      const unknown = await t.call({
        method: 'GET',
        url: '/api/oauth/oidc',
        query: { code: 'x', state: 'never-issued' },
        headers: { cookie: browser },
      });
      expect(unknown.json().code).toBe('oauth_state_invalid');
    });

    for (const [tamper, reason] of [
      ['forged', /signature/i],
      ['expired', /exp/i],
      ['wrong-issuer', /iss/i],
    ] as const) {
      it(`refuses an ID token that is ${tamper}, writing nothing`, async () => {
        const before = await t.s.repos.users.maxId();
        idp.nextAccount = { sub: `mallory-${tamper}`, claims: { preferred_username: `mallory_${tamper}` } };
        idp.tamper = tamper;
        const { res } = await signInThroughOidc();
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json()).toMatchObject({ success: false, code: 'oauth_failed' });
        expect(res.json().message).toMatch(reason);
        expect(res.cookies.some((c) => c.name === 'sy_session')).toBe(false);
        expect(await t.s.repos.users.maxId()).toBe(before);
      });
    }

    it('refuses a code used twice', async () => {
      idp.nextAccount = { sub: 'dave-sub', claims: { preferred_username: 'dave' } };
      const endpoint = await t.call({ method: 'GET', url: '/api/oauth/endpoint' });
      const back = await idp.followToCallback(endpoint.json().data, CALLBACK);
      const query = Object.fromEntries(back.searchParams);
      const first = await t.call({
        method: 'GET',
        url: '/api/oauth/oidc',
        query,
        headers: { cookie: cookiesOf(endpoint) },
      });
      expect(first.statusCode, first.body).toBe(200);
      // The same code with a new state of the same browser: the provider refuses it.
      const again = await t.call({
        method: 'GET',
        url: '/api/oauth/endpoint',
        headers: { cookie: cookiesOf(endpoint) },
      });
      const state = new URL(again.json().data).searchParams.get('state')!;
      const second = await t.call({
        method: 'GET',
        url: '/api/oauth/oidc',
        query: { ...query, state },
        headers: { cookie: cookiesOf(endpoint) },
      });
      expect(second.statusCode).toBe(400);
      expect(second.json().code).toBe('oauth_failed');
    });

    it('binds when signed in, refuses an account bound to another user, and unbinds but never the last way in', async () => {
      const erinId = await registerUser(t, 'erin');
      const erin = await t.signIn('erin', 'password-123');
      idp.nextAccount = { sub: 'erin-sub', claims: { preferred_username: 'erin_idp' } };
      const bound = await signInThroughOidc({ cookie: erin });
      expect(bound.res.statusCode, bound.res.body).toBe(200);
      expect(bound.res.json()).toMatchObject({ success: true, message: 'bind' });
      expect((await t.s.repos.users.byId(erinId))!.oidc_id).toBe('erin-sub');

      // alice-sub belongs to alice: erin cannot take it.
      idp.nextAccount = { sub: 'alice-sub', claims: { preferred_username: 'alice' } };
      const taken = await signInThroughOidc({ cookie: erin });
      expect(taken.res.statusCode).toBe(409);
      expect(taken.res.json().code).toBe('oauth_already_bound');

      const unbound = await t.call({
        method: 'POST',
        url: '/api/user/unbind',
        headers: { cookie: erin },
        payload: { type: 'oidc' },
      });
      expect(unbound.statusCode, unbound.body).toBe(200);
      expect((await t.s.repos.users.byId(erinId))!.oidc_id).toBe('');

      // alice has no password and only this binding.
      idp.nextAccount = { sub: 'alice-sub', claims: {} };
      const alice = (await signInThroughOidc()).res;
      const last = await t.call({
        method: 'POST',
        url: '/api/user/unbind',
        headers: { cookie: cookiesOf(alice) },
        payload: { type: 'oidc' },
      });
      expect(last.statusCode).toBe(400);
      expect(last.json().code).toBe('last_sign_in_method');
      expect((await t.s.repos.users.byUsername('alice'))!.oidc_id).toBe('alice-sub');
    });

    it('refuses a disabled user and sign-ups while registration is closed', async () => {
      idp.nextAccount = { sub: 'alice-sub', claims: {} };
      const alice = (await t.s.repos.users.byUsername('alice'))!;
      await t.s.repos.users.update(alice.id, { status: 2 });
      const refused = (await signInThroughOidc()).res;
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('user_disabled');
      await t.s.repos.users.update(alice.id, { status: 1 });

      await t.s.options.update({ RegisterEnabled: 'false' });
      try {
        const before = await t.s.repos.users.maxId();
        idp.nextAccount = { sub: 'frank-sub', claims: { preferred_username: 'frank' } };
        const closed = (await signInThroughOidc()).res;
        expect(closed.statusCode).toBe(403);
        expect(closed.json().code).toBe('registration_disabled');
        expect(await t.s.repos.users.maxId()).toBe(before);
      } finally {
        await t.s.options.update({ RegisterEnabled: 'true' });
      }
    });

    it('answers oauth_disabled while OIDC is off', async () => {
      await t.s.options.update({ OIDCAuthEnabled: 'false' });
      try {
        const res = await t.call({ method: 'GET', url: '/api/oauth/endpoint' });
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('oauth_disabled');
      } finally {
        await t.s.options.update({ OIDCAuthEnabled: 'true' });
      }
    });
  });
}
