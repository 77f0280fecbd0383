import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../test/relay-fixtures.js';
import { createTestApp, registerUser, type TestApp } from '../test/test-app.js';

// Insecure direct object references, replayed: a user naming another user's token, log or passkey
// by id reads, changes and deletes nothing. (The role matrix of every route is api/policy.test.ts.)
describe('objects of another user', () => {
  let t: TestApp;
  let alice = '';
  let mallory = '';
  let token: { id: number; key: string };

  beforeAll(async () => {
    t = await createTestApp();
    await registerUser(t, 'alice', 'alice-password');
    await registerUser(t, 'mallory', 'mallory-password');
    alice = await t.signIn('alice', 'alice-password');
    mallory = await t.signIn('mallory', 'mallory-password');
    token = await createToken(t, alice, { name: 'alice-token' });
  });
  afterAll(async () => t?.close());

  it("refuses to read, change or delete another user's token", async () => {
    const attempts = [
      { method: 'GET' as const, url: `/api/token/${token.id}` },
      { method: 'GET' as const, url: `/api/token/${token.id}/key` },
      {
        method: 'PUT' as const,
        url: '/api/token',
        payload: { id: token.id, name: 'stolen', expired_time: -1, remain_quota: 0, unlimited_quota: true },
      },
      { method: 'PUT' as const, url: '/api/token?status_only=1', payload: { id: token.id, status: 2 } },
      { method: 'DELETE' as const, url: `/api/token/${token.id}` },
      { method: 'DELETE' as const, url: '/api/webauthn/credentials/1' },
    ];
    for (const a of attempts) {
      const res = await t.call({ ...a, headers: { cookie: mallory } });
      expect([403, 404], `${a.method} ${a.url}: ${res.body}`).toContain(res.statusCode);
      expect(res.body).not.toContain(token.key.slice(3));
    }
    const mine = await t.call({ method: 'GET', url: `/api/token/${token.id}`, headers: { cookie: alice } });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().data).toMatchObject({ name: 'alice-token', status: 1 });
  });

  it("lists only the caller's own tokens and logs", async () => {
    const tokens = await t.call({ method: 'GET', url: '/api/token?p=0', headers: { cookie: mallory } });
    expect(tokens.statusCode).toBe(200);
    expect(tokens.json().data.data).toEqual([]);
    const logs = await t.call({
      method: 'GET',
      url: '/api/log/self?username=alice',
      headers: { cookie: mallory },
    });
    expect(logs.statusCode).toBe(200);
    for (const row of logs.json().data.data as { username: string }[]) expect(row.username).toBe('mallory');
  });
});
