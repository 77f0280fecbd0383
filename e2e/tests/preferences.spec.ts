import { expect, test } from '@playwright/test';
import { ROOT, signIn } from './support';

test('the language choice survives a reload and reaches the panel', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByTestId('login-submit')).toHaveText('登录');
  await page.getByTestId('language-menu').click();
  await page.getByRole('menuitem', { name: 'English' }).click();
  await expect(page.getByTestId('login-submit')).toHaveText('Login');
  expect(await page.evaluate(() => localStorage.getItem('appLanguage'))).toBe('en_US');
  await page.reload();
  await expect(page.getByTestId('login-submit')).toHaveText('Login');
  await expect(page.locator('html')).toHaveAttribute('lang', 'en-US');
  await signIn(page, ROOT);
  await expect(page.getByTestId('breadcrumbs')).toHaveText('Dashboard');
  await page.getByTestId('language-menu').click();
  await page.getByRole('menuitem', { name: '日本語' }).click();
  await expect(page.getByTestId('breadcrumbs')).toHaveText('ダッシュボード');
  await page.reload();
  await expect(page.getByTestId('breadcrumbs')).toHaveText('ダッシュボード');
});

test('the theme choice survives a reload', async ({ page }) => {
  await page.goto('/login');
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-theme', 'light');
  const lightBackground = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.getByTestId('theme-toggle').click();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  const darkBackground = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(darkBackground).not.toBe(lightBackground);
  await page.reload();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(darkBackground);
  await signIn(page, ROOT);
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await page.getByTestId('theme-toggle').click();
  await page.reload();
  await expect(html).toHaveAttribute('data-theme', 'light');
});

test('without a saved choice the server default language applies', async ({ page }) => {
  await page.route('**/api/status', async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    body.data.language = 'zh_HK';
    await route.fulfill({ response, json: body });
  });
  await page.goto('/login');
  await expect(page.getByTestId('login-submit')).toHaveText('登入');
  expect(await page.evaluate(() => localStorage.getItem('appLanguage'))).toBeNull();
});
