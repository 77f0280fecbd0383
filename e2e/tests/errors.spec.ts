import { expect, test } from '@playwright/test';
import { createUser, ROOT, signIn, toast } from './support';

test('a 401 ends the session and sends the user to /login', async ({ page, context, request }) => {
  await signIn(page, await createUser(request));
  await context.clearCookies();
  await page.reload();
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();
});

test('a 500 shows the server-error toast', async ({ page }) => {
  await signIn(page, ROOT);
  await page.route('**/api/user/self', (route) =>
    route.fulfill({
      status: 500,
      json: { success: false, message: 'database is down', code: 'internal_error' },
    }),
  );
  await page.reload();
  await expect(toast(page, '错误：服务器内部错误，请联系管理员！')).toBeVisible();
  await expect(page).toHaveURL(/\/panel\/dashboard$/);
});

test('a 429 and a 405 show their spec texts, other errors the server message', async ({ page }) => {
  await page.route('**/api/notice', (route) => route.fulfill({ status: 429, body: '' }));
  await page.route('**/api/home_page_content', (route) => route.fulfill({ status: 405, body: '' }));
  await page.route('**/api/about', (route) =>
    route.fulfill({ status: 403, json: { success: false, message: '关于页已关闭', code: 'forbidden_x' } }),
  );
  await page.goto('/about');
  await expect(toast(page, '错误：请求次数过多，请稍后再试！')).toBeVisible();
  await expect(toast(page, '错误：关于页已关闭')).toBeVisible();
  await page.getByRole('link', { name: '首页' }).click();
  await expect(toast(page, '本站仅作演示之用，无服务端！')).toBeVisible();
});

test('toasts stack at most three, without duplicates, bottom-left', async ({ page }) => {
  await page.goto('/login');
  await page.getByTestId('login-username').fill('nobody-here');
  await page.getByTestId('login-password').fill('wrong-password');
  for (let i = 0; i < 2; i++) await page.getByTestId('login-submit').click();
  const denied = toast(page, '错误：用户名或密码错误，或用户已被封禁');
  await expect(denied).toHaveCount(1);
  const box = await denied.boundingBox();
  const viewport = page.viewportSize();
  expect(box && viewport && box.x < viewport.width / 3 && box.y > viewport.height / 2).toBe(true);
});

test('an unreachable server is reported and the cached site info is used', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByTestId('footer')).toContainText('Switchyard v0.14.9');
  await page.route('**/api/status', (route) => route.abort('connectionrefused'));
  await page.reload();
  await expect(toast(page, '无法正常连接至服务器！')).toBeVisible();
  await expect(page.getByTestId('footer')).toContainText('Switchyard v0.14.9');
});

test('a server of another version announces it, v0.0.0 does not', async ({ page }) => {
  let version = 'v0.15.2';
  await page.route('**/api/status', async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    body.data.version = version;
    await route.fulfill({ response, json: body });
  });
  await page.goto('/login');
  await expect(toast(page, '发现新版本：v0.15.2，请使用 Shift + F5 刷新页面')).toBeVisible();
  version = 'v0.0.0';
  const fetched = page.waitForResponse('**/api/status');
  await page.reload();
  await fetched;
  await expect(page.getByTestId('login-submit')).toBeVisible();
  await expect(page.locator('#notistack-snackbar')).toHaveCount(0);
});
