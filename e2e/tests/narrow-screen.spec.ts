import { expect, test } from '@playwright/test';
import { createUser, ROOT, signIn, toast } from './support';

test.use({ viewport: { width: 400, height: 800 } });

test('at 400 px the sidebar is a drawer that closes on selection', async ({ page }) => {
  await signIn(page, ROOT);
  const menu = page.getByTestId('sidebar-menu');
  await expect(menu).toHaveCount(0);
  await page.getByTestId('sidebar-toggle').click();
  await expect(menu).toBeVisible();
  await expect(page.getByTestId('welcome-username')).toHaveText('root');
  await menu.locator('[data-menu-id="token"]').click();
  await expect(page).toHaveURL(/\/panel\/token$/);
  await expect(menu).toHaveCount(0);

  await page.getByTestId('sidebar-toggle').click();
  await menu.locator('[data-menu-id="operation"]').click();
  await menu.locator('[data-menu-id="pricing"]').click();
  await expect(page).toHaveURL(/\/panel\/pricing$/);
  await expect(menu).toHaveCount(0);
});

test('at 400 px the avatar menu is a bottom drawer', async ({ page, request }) => {
  await signIn(page, await createUser(request));
  await page.getByTestId('account-menu').click();
  const setting = page.getByTestId('account-setting');
  await expect(setting).toBeVisible();
  const box = await setting.boundingBox();
  expect(box && box.y > 400).toBe(true);
  await setting.click();
  await expect(page).toHaveURL(/\/panel\/profile$/);
});

test('at 400 px the public links fold into a menu and toasts sit bottom-centre', async ({ page }) => {
  await page.goto('/login');
  await page.getByTestId('public-nav-menu').click();
  await page.getByRole('menuitem', { name: '关于' }).click();
  await expect(page).toHaveURL(/\/about$/);
  await page.goto('/login');
  await page.getByTestId('login-username').fill(ROOT.username);
  await page.getByTestId('login-password').fill('wrong-password');
  await page.getByTestId('login-submit').click();
  const denied = toast(page, '错误：用户名或密码错误，或用户已被封禁');
  await expect(denied).toBeVisible();
  const box = await denied.boundingBox();
  expect(box).not.toBeNull();
  if (box) expect(Math.abs(box.x + box.width / 2 - 200)).toBeLessThan(40);
});
