import { type APIRequestContext, expect, type Page } from '@playwright/test';

export interface Credentials {
  username: string;
  password: string;
}

/**
 * Where sign-in.spec.ts's fakes of GitHub and Lark listen for the gateway on `port`: beside it, so
 * checkouts side by side, and the SQLite and PostgreSQL servers of one run, each have their own.
 */
export const fakeProviderPorts = (port: number) => ({ github: port + 1000, lark: port + 2000 });

export const ROOT: Credentials = { username: 'root', password: 'root-e2e-password' };

let serial = 0;

/** A fresh normal user made through the public sign-up call (tests share one server). */
export async function createUser(request: APIRequestContext, prefix = 'u'): Promise<Credentials> {
  const username = `${prefix}${Date.now().toString(36)}${process.pid % 1000}${serial++}`.slice(0, 30);
  const credentials = { username, password: 'user-e2e-password' };
  const response = await request.post('/api/user/register', { data: credentials });
  expect(response.status(), await response.text()).toBe(200);
  return credentials;
}

export async function signIn(page: Page, who: Credentials): Promise<void> {
  await page.goto('/login');
  await page.getByTestId('login-username').fill(who.username);
  await page.getByTestId('login-password').fill(who.password);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/panel\/dashboard$/);
}

/** The ids of the sidebar entries on screen (collapses and items; groups carry data-menu-group). */
export async function sidebarIds(page: Page): Promise<string[]> {
  const menu = page.getByTestId('sidebar-menu');
  await expect(menu).toBeVisible();
  return menu
    .locator('[data-menu-id]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-menu-id') ?? ''));
}

/** A toast with exactly this text. */
export function toast(page: Page, text: string) {
  return page.locator('#notistack-snackbar', { hasText: text });
}
