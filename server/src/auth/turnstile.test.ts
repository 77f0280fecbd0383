import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/test-app.js';

// A stand-in for Cloudflare's siteverify endpoint speaking its wire format (form POST in, JSON out).
describe('Turnstile bot check on registration', () => {
  let t: TestApp;
  const seen: URLSearchParams[] = [];
  const verifier = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      seen.push(form);
      const ok = form.get('secret') === 'ts-secret' && form.get('response') === 'good-token';
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ success: ok, 'error-codes': ok ? [] : ['invalid-input-response'] }));
    });
  });

  beforeAll(async () => {
    await new Promise<void>((r) => verifier.listen(0, '127.0.0.1', r));
    const port = (verifier.address() as AddressInfo).port;
    t = await createTestApp({ env: { TURNSTILE_VERIFY_URL: `http://127.0.0.1:${port}/siteverify` } });
    await t.s.options.update({
      TurnstileSiteKey: 'ts-site',
      TurnstileSecretKey: 'ts-secret',
      TurnstileCheckEnabled: 'true',
    });
  });
  afterAll(async () => {
    await t?.close();
    verifier.close();
  });

  it('refuses a missing or bad token and accepts a good one', async () => {
    const payload = { username: 'human', password: 'password-123' };
    const missing = await t.call({ method: 'POST', url: '/api/user/register', payload });
    expect(missing.statusCode).toBe(403);
    expect(missing.json().code).toBe('turnstile_failed');
    const bad = await t.call({ method: 'POST', url: '/api/user/register?turnstile=bad-token', payload });
    expect(bad.statusCode).toBe(403);
    const good = await t.call({ method: 'POST', url: '/api/user/register?turnstile=good-token', payload });
    expect(good.statusCode).toBe(200);
    expect(seen.at(-1)?.get('secret')).toBe('ts-secret');
    expect((await t.call({ method: 'GET', url: '/api/status' })).json().data).toMatchObject({
      turnstile_check: true,
      turnstile_site_key: 'ts-site',
    });
  });
});
