import { expect, test } from '@playwright/test';
import { createUser, ROOT, sidebarIds, signIn } from './support';

// The sidebar's groups and its administrator-only entries: what each role sees.
const EVERYONE = [
  'dashboard',
  'playground',
  'token',
  'profile',
  'topup',
  'model_price',
  'log',
  'midjourney',
  'task',
];
const ADMIN_ONLY = ['analytics', 'user', 'channel', 'operation', 'paySetting', 'setting'];

test('signing in lands on /panel/dashboard with the welcome card, version and breadcrumbs', async ({
  page,
}) => {
  await signIn(page, ROOT);
  await expect(page.getByTestId('welcome-username')).toHaveText('root');
  await expect(page.getByTestId('sidebar-version')).toHaveText('0.14.9');
  await expect(page.getByTestId('breadcrumbs')).toHaveText('仪表盘');
  await expect(page.getByTestId('dashboard-balance')).toHaveText(/^\$\d+\.\d{2}$/);
});

test('an administrator sees every sidebar group and entry', async ({ page }) => {
  await signIn(page, ROOT);
  const ids = await sidebarIds(page);
  for (const id of [...EVERYONE, ...ADMIN_ONLY]) expect(ids).toContain(id);
  await expect(page.locator('[data-menu-group]')).toHaveCount(4);
});

test('a normal user sees no administrator entries and cannot open their screens', async ({
  page,
  request,
}) => {
  await signIn(page, await createUser(request));
  const ids = await sidebarIds(page);
  for (const id of EVERYONE) expect(ids).toContain(id);
  for (const id of ADMIN_ONLY) expect(ids).not.toContain(id);
  for (const child of ['user_group', 'pricing', 'telegram', 'model_ownedby', 'redemption', 'payment']) {
    expect(ids).not.toContain(child);
  }
  await page.goto('/panel/channel');
  await expect(page.getByTestId('forbidden')).toBeVisible();
});

test('a collapse opens by itself on one of its pages, and the crumbs follow the menu', async ({ page }) => {
  await signIn(page, ROOT);
  await page.goto('/panel/telegram');
  await expect(page.locator('[data-menu-id="operation"]')).toHaveAttribute('aria-expanded', 'true');
  await expect(page.locator('[data-menu-id="paySetting"]')).toHaveAttribute('aria-expanded', 'false');
  await expect(page.locator('[data-menu-id="telegram"]')).toHaveClass(/Mui-selected/);
  await expect(page.getByTestId('breadcrumbs')).toHaveText(/仪表盘.*运营.*Telegram Bot/);
  await page.locator('[data-menu-id="paySetting"]').click();
  await expect(page.locator('[data-menu-id="paySetting"]')).toHaveAttribute('aria-expanded', 'true');
  // With both collapses open the entry sits below the fold of the sidebar: bring it into view first.
  const payment = page.locator('[data-menu-id="payment"]');
  await payment.scrollIntoViewIfNeeded();
  await payment.click();
  await expect(page).toHaveURL(/\/panel\/payment$/);
  await expect(page.getByTestId('breadcrumbs')).toHaveText(/仪表盘.*支付设置.*支付/);
});

test('every /panel child path of the console opens', async ({ page }) => {
  // Twenty full page loads of real screens (each with its own API calls) under a parallel run.
  test.setTimeout(180_000);
  await signIn(page, ROOT);
  const paths = [
    'dashboard',
    'channel',
    'log',
    'redemption',
    'setting',
    'token',
    'topup',
    'user',
    'profile',
    'analytics',
    '404',
    'telegram',
    'pricing',
    'midjourney',
    'model_price',
    'playground',
    'payment',
    'task',
    'user_group',
    'model_ownedby',
  ];
  for (const path of paths) {
    await page.goto(`/panel/${path}`);
    await expect(page).toHaveURL(new RegExp(`/panel/${path}$`));
    await expect(page.getByTestId('breadcrumbs')).toBeVisible();
    await expect(page.getByTestId('error-fallback')).toHaveCount(0);
  }
  await page.goto('/panel');
  await expect(page).toHaveURL(/\/panel\/dashboard$/);
  await page.goto('/panel/no-such-screen');
  await expect(page).toHaveURL(/\/panel\/404$/);
  await expect(page.getByTestId('not-found')).toBeVisible();
});

test('the sidebar toggle hides and shows the sidebar on a wide screen', async ({ page }) => {
  await signIn(page, ROOT);
  const sidebar = page.getByTestId('sidebar-menu');
  await expect(sidebar).toBeInViewport();
  await page.getByTestId('sidebar-toggle').click();
  await expect(sidebar).not.toBeInViewport();
  await page.getByTestId('sidebar-toggle').click();
  await expect(sidebar).toBeInViewport();
});

test('the avatar menu opens the profile and signs out to /, after which the panel asks to sign in', async ({
  page,
  request,
}) => {
  await signIn(page, await createUser(request));
  await page.getByTestId('account-menu').click();
  await page.getByTestId('account-setting').click();
  await expect(page).toHaveURL(/\/panel\/profile$/);
  await page.getByTestId('account-menu').click();
  await page.getByTestId('account-sign-out').click();
  await expect(page).toHaveURL(/\/$/);
  expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();
  await page.goto('/panel/token');
  await expect(page).toHaveURL(/\/login$/);
});
