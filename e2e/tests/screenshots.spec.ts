import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import { ROOT, signIn } from './support';

// README screenshots: `SCREENSHOTS=1 npx playwright test -c e2e/playwright.config.ts screenshots`.
test.skip(!process.env.SCREENSHOTS, 'set SCREENSHOTS=1 to refresh docs/screenshots');
test.use({ viewport: { width: 1280, height: 800 } });

const OUT = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const LOOKS = [
  { language: 'zh_CN', theme: 'light' },
  { language: 'zh_CN', theme: 'dark' },
  { language: 'en_US', theme: 'light' },
  { language: 'en_US', theme: 'dark' },
] as const;

async function settle(page: Page) {
  await expect(page.locator('#notistack-snackbar')).toHaveCount(0, { timeout: 20_000 });
  await page.waitForTimeout(400);
}

for (const { language, theme } of LOOKS) {
  test(`login and panel, ${language}, ${theme}`, async ({ page }) => {
    await page.addInitScript(
      (look) => {
        localStorage.setItem('appLanguage', look.language);
        localStorage.setItem('theme', look.theme);
      },
      { language, theme },
    );
    await page.goto('/login');
    await expect(page.getByTestId('login-submit')).toBeVisible();
    await settle(page);
    await page.screenshot({ path: `${OUT}login-${language}-${theme}.png` });

    await signIn(page, ROOT);
    await page.goto('/panel/user_group');
    await page.goto('/panel/dashboard');
    await expect(page.getByTestId('dashboard-balance')).toHaveText(/\$/);
    await settle(page);
    await page.screenshot({ path: `${OUT}panel-${language}-${theme}.png` });
  });
}
