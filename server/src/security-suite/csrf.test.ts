import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../test/test-app.js';

// Issue #25 item 1, replayed at the HTTP level: a page on another origin (another port of the same
// host is "same-site", so SameSite=Lax does not stop the cookie) must not act with root's session.
describe('cross-site requests on the management API', () => {
  let t: TestApp;
  let cookie: string;
  const HOST = 'gateway.test:3000';

  beforeAll(async () => {
    t = await createTestApp();
    cookie = await t.signIn('root', ROOT_PASSWORD);
  });
  afterAll(async () => t?.close());

  const displayName = async () =>
    (await t.call({ method: 'GET', url: '/api/user/self', headers: { cookie, host: HOST } })).json().data
      .display_name as string;

  it('answers no preflight under /api, and the relay without credentials', async () => {
    const api = await t.call({
      method: 'OPTIONS',
      url: '/api/token',
      headers: { origin: 'http://gateway.test:4000', 'access-control-request-method': 'POST' },
    });
    expect(api.statusCode).toBe(404);
    expect(api.headers['access-control-allow-origin']).toBeUndefined();
    expect(api.headers['access-control-allow-credentials']).toBeUndefined();

    const relay = await t.call({
      method: 'OPTIONS',
      url: '/v1/chat/completions',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(relay.statusCode).toBe(204);
    expect(relay.headers['access-control-allow-origin']).toBe('*');
    expect(relay.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('refuses a cookie write from another origin or site, and accepts the console', async () => {
    const before = await displayName();
    for (const headers of [
      { origin: 'http://gateway.test:4000' },
      { origin: 'http://gateway.test:4000', 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
    ]) {
      const res = await t.call({
        method: 'PUT',
        url: '/api/user/self',
        headers: { cookie, host: HOST, ...headers },
        payload: { display_name: 'pwned' },
      });
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json().message).toMatch(/own origin/);
    }
    expect(await displayName()).toBe(before);

    const token = await t.call({
      method: 'POST',
      url: '/api/token',
      headers: { cookie, host: HOST, origin: 'http://gateway.test:4000', 'content-type': 'text/plain' },
      payload: JSON.stringify({ name: 'csrf', remain_quota: 1, unlimited_quota: true }),
    });
    expect(token.statusCode).toBe(403);

    for (const headers of [
      { origin: `http://${HOST}`, 'sec-fetch-site': 'same-origin' },
      { origin: `http://${HOST}` },
      {}, // not a browser (curl, a script)
    ]) {
      const res = await t.call({
        method: 'PUT',
        url: '/api/user/self',
        headers: { cookie, host: HOST, ...headers },
        payload: { display_name: 'Root' },
      });
      expect(res.statusCode, JSON.stringify(headers)).toBe(200);
    }
  });

  it('refuses a cross-site navigation to a GET that rotates the access token', async () => {
    const rotate = (headers: Record<string, string>) =>
      t.call({ method: 'GET', url: '/api/user/token', headers: { cookie, host: HOST, ...headers } });
    const first = await rotate({ 'sec-fetch-site': 'same-origin' });
    expect(first.statusCode).toBe(200);
    const accessToken = first.json().data as string;

    for (const site of ['cross-site', 'same-site']) {
      const res = await rotate({ 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' });
      expect(res.statusCode, site).toBe(403);
    }
    // The token from the first call still works: nothing rotated it.
    const self = await t.call({
      method: 'GET',
      url: '/api/user/self',
      headers: { authorization: accessToken },
    });
    expect(self.statusCode).toBe(200);
  });

  it('lets a script with an access token call from anywhere', async () => {
    const accessToken = (
      await t.call({
        method: 'GET',
        url: '/api/user/token',
        headers: { cookie, 'sec-fetch-site': 'same-origin' },
      })
    ).json().data as string;
    const res = await t.call({
      method: 'PUT',
      url: '/api/user/self',
      headers: {
        authorization: accessToken,
        origin: 'https://script.example',
        'sec-fetch-site': 'cross-site',
      },
      payload: { display_name: 'Root' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('refuses a cross-site sign-in (login CSRF) but not one from the console', async () => {
    const login = (headers: Record<string, string>) =>
      t.call({
        method: 'POST',
        url: '/api/user/login',
        headers: { host: HOST, ...headers },
        payload: { username: 'root', password: ROOT_PASSWORD },
      });
    expect((await login({ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' })).statusCode).toBe(
      403,
    );
    expect((await login({ 'sec-fetch-site': 'same-origin', origin: `http://${HOST}` })).statusCode).toBe(200);
  });
});
