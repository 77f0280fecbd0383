import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LoginBackoff } from '../auth/login-backoff.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';

// Issue #25 item 6: a per-account back-off after failed sign-ins (the per-IP limit is off here, as
// an attacker spreading guesses over many addresses would make it), the same answers for unknown
// names as for accounts, and the same password work for both.

describe('sign-in back-off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await registerUser(t, 'victim', 'victim-password-1');
  });
  afterAll(async () => t?.close());

  const login = (username: string, password: string, ip = '198.51.100.1') =>
    t.call({ method: 'POST', url: '/api/user/login', remoteAddress: ip, payload: { username, password } });

  /** Status and message of each attempt, each from a different address. */
  const attempts = async (username: string, passwords: string[]) => {
    const out: string[] = [];
    for (const [i, password] of passwords.entries()) {
      const res = await login(username, password, `198.51.100.${i + 10}`);
      out.push(`${res.statusCode} ${res.json().message.replace(/\d+ s$/, 'N s')}`);
    }
    return out;
  };

  it('makes an account wait after five failures, even with the right password, from any address', async () => {
    const wrong = Array.from({ length: 5 }, () => 'wrong-password');
    const seen = await attempts('victim', [...wrong, 'wrong-password', 'victim-password-1']);
    expect(seen.slice(0, 5)).toEqual(
      Array.from({ length: 5 }, () => '401 Wrong username or password, or the account is disabled'),
    );
    expect(seen[5]).toBe('401 Wrong username or password, or the account is disabled');
    expect(seen[6]).toBe('429 Too many failed sign-ins for this account: try again in N s');
    const res = await login('victim', 'victim-password-1');
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // Another account is not affected.
    expect((await login('root', ROOT_PASSWORD)).statusCode).toBe(200);
  });

  it('answers an unknown name exactly as an account', async () => {
    const sequence = [...Array.from({ length: 6 }, () => 'wrong-password'), 'anything'];
    await registerUser(t, 'known2', 'known2-password');
    const known = await attempts('known2', sequence);
    const unknown = await attempts('nobody-here', sequence);
    expect(unknown).toEqual(known);
  });

  it('does the full password check for unknown names and accounts without a password', async () => {
    const verify = vi.spyOn(t.s.passwords, 'verify');
    await login('ghost-user', 'whatever-1');
    const providerOnly = await registerUser(t, 'oauthonly', 'oauthonly-pass');
    await t.s.repos.users.update(providerOnly, { password_hash: '' });
    await login('oauthonly', 'whatever-1');
    expect(verify.mock.calls.map((c) => c[0])).toEqual([undefined, undefined]);
    verify.mockRestore();
  });

  it('keeps the count where every node reads it, and forgets it on success', async () => {
    let now = 1_000_000;
    const a = new LoginBackoff(t.s.codes, () => now);
    const b = new LoginBackoff(t.s.codes, () => now); // another node on the same store
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) waits.push(await (i % 2 ? a : b).failed('user:4242'));
    expect(waits).toEqual([0, 0, 0, 0, 0, 30, 60, 120]);
    expect(await a.waitSeconds('user:4242')).toBe(120);
    now += 121;
    expect(await b.waitSeconds('user:4242')).toBe(0);
    await a.succeeded('user:4242');
    expect(await b.failed('user:4242')).toBe(0);
  });
});
