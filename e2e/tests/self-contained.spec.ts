import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Request, test } from '@playwright/test';
import { ROOT, signIn } from './support';

// A self-hosted console asks nothing of any other host: brand icons, fonts and scripts all come from
// the gateway itself (privacy, and installs without a way out). The one exception is an analytics
// snippet the administrator adds; that test sets it for every page, so the two run one after the
// other in one worker instead of alongside.
test.describe.configure({ mode: 'default' });

let analytics: Server;
let analyticsOrigin = '';

test.beforeAll(async () => {
  analytics = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/javascript' });
    res.end('window.__externalAnalytics = true;');
  });
  await new Promise<void>((resolve) => analytics.listen(0, '127.0.0.1', () => resolve()));
  analyticsOrigin = `http://127.0.0.1:${(analytics.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => analytics.close(resolve));
});

test('no screen requests anything from a host other than the gateway', async ({ page, baseURL }) => {
  const origin = new URL(baseURL ?? '').origin;
  const outside: string[] = [];
  const onRequest = (r: Request) => {
    const url = r.url();
    if (!url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url)) outside.push(url);
  };
  page.context().on('request', onRequest);

  await signIn(page, ROOT);
  for (const path of [
    '/panel/model_ownedby',
    '/panel/channel',
    '/panel/model_price',
    '/panel/pricing',
    '/panel/dashboard',
    '/panel/playground',
    '/price',
  ]) {
    await page.goto(path);
    await page.waitForLoadState('networkidle');
  }

  // The reserved owners show their brand icons, not letter placeholders.
  await page.goto('/panel/model_ownedby');
  const icons = page.locator('tbody .MuiAvatar-root img');
  await expect(icons.first()).toBeVisible();
  const loaded = await icons.evaluateAll((imgs) =>
    imgs.map((img) => ({
      src: (img as HTMLImageElement).src,
      width: (img as HTMLImageElement).naturalWidth,
    })),
  );
  expect(loaded.length).toBeGreaterThan(5);
  for (const icon of loaded) {
    expect(icon.src.startsWith(`${origin}/assets/`), icon.src).toBe(true);
    expect(icon.width, icon.src).toBeGreaterThan(0);
  }
  expect(outside).toEqual([]);
});

test('the console runs under its CSP with the analytics snippet, and nothing else inline', async ({
  page,
  browser,
}) => {
  const snippet = `<script src="${analyticsOrigin}/analytics.js"></script><script>window.__inlineAnalytics = 'ran';</script>`;
  await signIn(page, ROOT);
  const saved = await page.request.put('/api/option/', { data: { key: 'AnalyticsCode', value: snippet } });
  expect(saved.status()).toBe(200);
  try {
    const context = await browser.newContext();
    const visitor = await context.newPage();
    await visitor.addInitScript(() => {
      const w = window as unknown as { __csp: string[] };
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    const answer = await visitor.goto('/login');
    expect(answer?.headers()['content-security-policy']).toContain("frame-ancestors 'self'");
    await expect(visitor.getByTestId('login-username')).toBeVisible();
    await visitor.waitForFunction(
      () =>
        (window as unknown as { __inlineAnalytics?: string }).__inlineAnalytics === 'ran' &&
        (window as unknown as { __externalAnalytics?: boolean }).__externalAnalytics === true,
    );
    expect(await visitor.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);

    // The console's own screens (charts, grids, forms) need nothing the policy refuses.
    await signIn(visitor, ROOT);
    for (const path of [
      '/panel/dashboard',
      '/panel/channel',
      '/panel/log',
      '/panel/setting',
      '/panel/profile',
    ]) {
      await visitor.goto(path);
      await expect(visitor.getByTestId('sidebar-menu')).toBeVisible();
      await visitor.waitForLoadState('networkidle');
      expect(await visitor.evaluate(() => (window as unknown as { __csp: string[] }).__csp), path).toEqual(
        [],
      );
    }

    // Any other inline script is refused by the policy.
    await visitor.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__injected = true;';
      document.head.append(s);
    });
    await visitor.waitForFunction(() => (window as unknown as { __csp: string[] }).__csp.length > 0);
    expect(
      await visitor.evaluate(() => (window as unknown as { __injected?: boolean }).__injected),
    ).toBeUndefined();
    await context.close();
  } finally {
    await page.request.put('/api/option/', { data: { key: 'AnalyticsCode', value: '' } });
  }
});
