import { expect, type Page, test } from '@playwright/test';
import { ROOT, signIn } from './support';

// The server's notice is shared by every test, so this one answers /api/notice itself.
async function serveNotice(page: Page, text: () => string) {
  await page.route('**/api/notice', (route) =>
    route.fulfill({ json: { success: true, message: '', data: text() } }),
  );
}

test('the notice opens once per new text, and again from the bell', async ({ page }) => {
  let notice = '';
  await serveNotice(page, () => notice);
  await signIn(page, ROOT);
  const dialog = page.getByRole('dialog', { name: '公告' });
  await expect(dialog).toHaveCount(0);

  notice = '## 维护通知\n\n今晚 **22:00** 升级。<script>window.hacked = true</script>';
  let fetched = page.waitForResponse('**/api/notice');
  await page.reload();
  await fetched;
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading', { name: '维护通知' })).toBeVisible();
  await expect(dialog.locator('strong')).toHaveText('22:00');
  expect(await page.evaluate(() => (window as { hacked?: boolean }).hacked)).toBeUndefined();
  await dialog.getByRole('button', { name: '关闭' }).click();
  await expect(dialog).toHaveCount(0);

  fetched = page.waitForResponse('**/api/notice');
  await page.reload();
  await fetched;
  await expect(page.getByTestId('welcome-username')).toBeVisible();
  await page.waitForTimeout(300);
  await expect(dialog).toHaveCount(0);

  await page.getByTestId('notice-bell').click();
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('今晚 22:00 升级');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);

  notice = '新的公告';
  await page.reload();
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('新的公告');
});
