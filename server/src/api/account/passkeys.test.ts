import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, registerUser, type TestApp } from '../../test/test-app.js';

// The server's side of passkeys without an authenticator: switches, challenges, ownership, and the
// last-way-in rule. The ceremonies themselves run in the browser test (a Chromium virtual
// authenticator, e2e/tests/sign-in.spec.ts).

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('passkeys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.s.options.update({ ServerAddress: 'https://gw.example', PasskeyLoginEnabled: 'true' });
  });
  afterAll(async () => t?.close());

  const fakeAssertion = (challenge: string, id = 'cred-x') => ({
    id,
    rawId: id,
    type: 'public-key',
    response: {
      clientDataJSON: b64({ type: 'webauthn.get', challenge, origin: 'https://gw.example' }),
      authenticatorData: 'AAAA',
      signature: 'AAAA',
    },
    clientExtensionResults: {},
  });

  it('answers oauth_disabled while the option is off', async () => {
    await t.s.options.update({ PasskeyLoginEnabled: 'false' });
    try {
      const res = await t.call({ method: 'POST', url: '/api/webauthn/login/begin' });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('oauth_disabled');
      expect((await t.call({ method: 'GET', url: '/api/status' })).json().data.passkey_login).toBe(false);
    } finally {
      await t.s.options.update({ PasskeyLoginEnabled: 'true' });
    }
  });

  it('gives login options for this relying party and refuses an unknown, reused or foreign challenge', async () => {
    const begin = await t.call({ method: 'POST', url: '/api/webauthn/login/begin' });
    expect(begin.statusCode, begin.body).toBe(200);
    const options = begin.json().data as { challenge: string; rpId: string };
    expect(options.rpId).toBe('gw.example');

    const unknown = await t.call({
      method: 'POST',
      url: '/api/webauthn/login/finish',
      payload: fakeAssertion('nope'),
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe('passkey_refused');

    // A real challenge with a credential nobody registered: refused, and the challenge is spent.
    const stranger = await t.call({
      method: 'POST',
      url: '/api/webauthn/login/finish',
      payload: fakeAssertion(options.challenge),
    });
    expect(stranger.json()).toMatchObject({ code: 'passkey_refused' });
    expect(stranger.json().message).toContain('not registered');
    const again = await t.call({
      method: 'POST',
      url: '/api/webauthn/login/finish',
      payload: fakeAssertion(options.challenge),
    });
    expect(again.json().message).toContain('expired or was already used');
  });

  it('refuses a registration that was not begun, and keeps passkeys to their owner', async () => {
    const ownerId = await registerUser(t, 'pk_owner');
    const owner = await t.signIn('pk_owner', 'password-123');
    const finish = await t.call({
      method: 'POST',
      url: '/api/webauthn/registration/finish',
      headers: { cookie: owner },
      payload: { response: fakeAssertion('x'), alias: 'x' },
    });
    expect(finish.json().code).toBe('passkey_refused');

    const begin = await t.call({
      method: 'POST',
      url: '/api/webauthn/registration/begin',
      headers: { cookie: owner },
    });
    expect(begin.json().data).toMatchObject({ rp: { id: 'gw.example' }, user: { name: 'pk_owner' } });

    const id = await t.s.repos.passkeys.insert({
      user_id: ownerId,
      credential_id: 'cred-owner',
      public_key: 'AA',
      counter: 0,
      transports: '',
      alias: 'Phone',
      created_time: 1,
      last_used_time: 0,
    });
    await registerUser(t, 'pk_other');
    const other = await t.signIn('pk_other', 'password-123');
    const rename = await t.call({
      method: 'PUT',
      url: `/api/webauthn/credentials/${id}`,
      headers: { cookie: other },
      payload: { alias: 'Mine now' },
    });
    expect(rename.statusCode).toBe(404);
    const del = await t.call({
      method: 'DELETE',
      url: `/api/webauthn/credentials/${id}`,
      headers: { cookie: other },
    });
    expect(del.statusCode).toBe(404);
    const list = await t.call({
      method: 'GET',
      url: '/api/webauthn/credentials',
      headers: { cookie: owner },
    });
    expect(list.json().data).toEqual([{ id, alias: 'Phone', created_time: 1, last_used_time: 0 }]);
  });

  it('never deletes the last way in, and counts a passkey as a way in when unbinding', async () => {
    const id = await registerUser(t, 'pk_only');
    const cookie = await t.signIn('pk_only', 'password-123');
    const passkey = await t.s.repos.passkeys.insert({
      user_id: id,
      credential_id: 'cred-only',
      public_key: 'AA',
      counter: 0,
      transports: '',
      alias: 'Key',
      created_time: 1,
      last_used_time: 0,
    });
    // Now the account has no password, one binding and one passkey.
    await t.s.repos.users.update(id, { password_hash: '', github_id: 'gh-only' });
    const unbind = await t.call({
      method: 'POST',
      url: '/api/user/unbind',
      headers: { cookie },
      payload: { type: 'github' },
    });
    expect(unbind.statusCode, unbind.body).toBe(200);
    const del = await t.call({
      method: 'DELETE',
      url: `/api/webauthn/credentials/${passkey}`,
      headers: { cookie },
    });
    expect(del.statusCode).toBe(400);
    expect(del.json().code).toBe('last_sign_in_method');
    expect(await t.s.repos.passkeys.countForUser(id)).toBe(1);
  });
});
