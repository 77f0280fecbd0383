import { expect, type Request, test } from '@playwright/test';
import { ROOT, signIn } from './support';

// A self-hosted console asks nothing of any other host: brand icons, fonts and scripts all come from
// the gateway itself (privacy, and installs without a way out).

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
