import { expect, test } from '@playwright/test';
import { createUser, toast } from './support';

test('a failed sign-in error does not stay on screen after the next sign-in succeeds', async ({
  page,
  request,
}) => {
  const who = await createUser(request, 't');
  await page.goto('/login');
  await page.getByTestId('login-username').fill(who.username);
  await page.getByTestId('login-password').fill('not-the-password');
  await page.getByTestId('login-submit').click();
  const denied = toast(page, '错误：用户名或密码错误，或用户已被封禁');
  await expect(denied).toBeVisible();

  await page.getByTestId('login-password').fill(who.password);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/panel\/dashboard$/);
  // Well before the error's own five seconds are up.
  await expect(denied).toHaveCount(0, { timeout: 2000 });
});
