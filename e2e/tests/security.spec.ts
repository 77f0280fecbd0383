import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Page, test } from '@playwright/test';
import { createUser, signIn } from './support';

// In a real browser: a page on another port of the same host (same-site, so SameSite=Lax still sends
// the console's cookie) tries to act with the signed-in user's session. The analytics snippet under
// the console's CSP is tested in self-contained.spec.ts.

const GATEWAY = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3123)}`;

let attacker: Server;
let attackerOrigin = '';

const ATTACK_PAGE = (gateway: string) => `<!doctype html><html><body><script>
window.results = {};
(async () => {
  try {
    const r = await fetch('${gateway}/api/user/self', {
      method: 'PUT', credentials: 'include',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: 'pwned' }),
    });
    window.results.json = 'status ' + r.status;
  } catch (e) { window.results.json = 'blocked'; }
  try {
    await fetch('${gateway}/api/token', {
      method: 'POST', mode: 'no-cors', credentials: 'include',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ name: 'csrf-token', expired_time: -1, remain_quota: 0, unlimited_quota: true }),
    });
    window.results.simple = 'sent';
  } catch (e) { window.results.simple = 'blocked'; }
  window.results.done = true;
})();
</script><a id="rotate" href="${gateway}/api/user/token">rotate</a></body></html>`;

test.beforeAll(async () => {
  attacker = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(ATTACK_PAGE(GATEWAY));
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', () => resolve()));
  attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => attacker.close(resolve));
});

/** A call from the console's own page, as the console makes it. */
const fromConsole = (page: Page, path: string, init: RequestInit = {}) =>
  page.evaluate(
    async ([p, i]) => {
      const r = await fetch(p, i);
      return { status: r.status, body: await r.json() };
    },
    [path, init] as const,
  );

test('a page on another port cannot act with the console session', async ({ page }) => {
  await signIn(page, await createUser(page.request, 'csrf'));
  const before = await fromConsole(page, '/api/user/self');
  const tokensBefore = await fromConsole(page, '/api/token?p=0');
  const accessToken = (await fromConsole(page, '/api/user/token')).body.data as string;

  await page.goto(`${attackerOrigin}/`);
  await page.waitForFunction(
    () => (window as unknown as { results: { done?: boolean } }).results.done === true,
  );
  const results = await page.evaluate(
    () => (window as unknown as { results: Record<string, string> }).results,
  );
  expect(results.json).toBe('blocked'); // the preflight finds no CORS on /api

  // The link rotates nothing: a same-site navigation is refused.
  await page.click('#rotate');
  await expect(page.locator('body')).toContainText('only its own origin');

  await page.goto(`${GATEWAY}/panel/dashboard`);
  expect((await fromConsole(page, '/api/user/self')).body.data.display_name).toBe(
    before.body.data.display_name,
  );
  expect((await fromConsole(page, '/api/token?p=0')).body.data.total_count).toBe(
    tokensBefore.body.data.total_count,
  );
  const withOldToken = await fromConsole(page, '/api/user/self', {
    credentials: 'omit',
    headers: { authorization: accessToken },
  });
  expect(withOldToken.status).toBe(200);
});
