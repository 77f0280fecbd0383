import { expect, test } from '@playwright/test';
import { ROOT, signIn, toast } from './support';

test('sign-up keeps ?aff=, validates in the interface language and leads to login', async ({ page }) => {
  let sent: Record<string, unknown> | undefined;
  await page.route('**/api/user/register', async (route) => {
    sent = route.request().postDataJSON();
    await route.continue();
  });
  await page.goto('/register?aff=AB12');
  await expect(page.getByTestId('register-submit')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('aff'))).toBe('AB12');
  await page.getByTestId('register-submit').click();
  await expect(page.getByText('此项为必填项').first()).toBeVisible();
  const username = `reg${Date.now().toString(36)}`;
  await page.getByTestId('register-username').fill(username);
  await page.getByTestId('register-password').fill('long-enough-1');
  await page.getByTestId('register-password2').fill('long-enough-2');
  await page.getByTestId('register-submit').click();
  await expect(page.getByText('两次输入的密码不一致')).toBeVisible();
  await page.getByTestId('register-password2').fill('long-enough-1');
  await page.getByTestId('register-submit').click();
  await expect(page).toHaveURL(/\/login$/);
  expect(sent).toMatchObject({ username, password: 'long-enough-1', aff_code: 'AB12' });
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill('long-enough-1');
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/panel\/dashboard$/);
});

test('a wrong password is refused with the translated server reason', async ({ page }) => {
  await page.goto('/login');
  await page.getByTestId('login-submit').click();
  await expect(page.getByText('此项为必填项')).toHaveCount(2);
  await page.getByTestId('login-username').fill('root');
  await page.getByTestId('login-password').fill('not-the-password');
  await page.getByTestId('login-submit').click();
  await expect(toast(page, '错误：用户名或密码错误，或用户已被封禁')).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
});

test('the public top bar shows Playground and the Console button only when signed in', async ({ page }) => {
  await page.goto('/about');
  await expect(page.getByRole('link', { name: '操练场' })).toHaveCount(0);
  await expect(page.getByTestId('login-button')).toBeVisible();
  await signIn(page, ROOT);
  await page.goto('/about');
  await expect(page.getByRole('link', { name: '操练场' })).toBeVisible();
  await page.getByTestId('console-button').click();
  await expect(page).toHaveURL(/\/panel\/dashboard$/);
});

test('home and about show markdown, a framed https page, or the built-in content', async ({ page }) => {
  await page.goto('/about');
  await expect(page.getByTestId('about-empty')).toBeVisible();
  await page.route('**/api/about', (route) =>
    route.fulfill({
      json: { success: true, message: '', data: '# 关于我们\n\n<img src=x onerror="window.hacked=1">' },
    }),
  );
  await page.route('**/api/home_page_content', (route) =>
    route.fulfill({ json: { success: true, message: '', data: 'https://example.com/' } }),
  );
  await page.reload();
  await expect(page.getByRole('heading', { name: '关于我们' })).toBeVisible();
  expect(await page.evaluate(() => (window as { hacked?: number }).hacked)).toBeUndefined();
  await page.getByRole('link', { name: '首页' }).click();
  await expect(page.getByTestId('site-content-frame')).toHaveAttribute('src', 'https://example.com/');
});

test('the landing page is built in when no home content is set', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('landing')).toBeVisible();
});

test('forgot password asks for an email; a reset link without token is invalid', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('link', { name: '忘记密码？' }).click();
  await expect(page).toHaveURL(/\/reset$/);
  await page.getByRole('textbox', { name: '邮箱' }).fill('not-an-email');
  await page.getByRole('button', { name: '发送重置邮件' }).click();
  await expect(page.getByText('邮箱地址格式不正确')).toBeVisible();
  await page.goto('/user/reset?email=a%40b.example');
  await expect(page.getByTestId('reset-invalid')).toBeVisible();
});

test('a reset link the server rejects says the link is invalid', async ({ page }) => {
  await page.goto('/user/reset?email=a%40b.example&token=bogus');
  await page.getByTestId('reset-confirm').click();
  await expect(page.getByTestId('reset-invalid')).toBeVisible();
});

test('a failed third-party callback counts down to /login', async ({ page }) => {
  await page.route('**/api/oauth/github*', (route) =>
    route.fulfill({ status: 400, json: { success: false, message: 'state mismatch' } }),
  );
  await page.goto('/oauth/github?code=abc&state=wrong');
  await expect(page.getByTestId('oauth-callback')).toContainText('操作失败，正在重定向至登录页');
  await expect(page).toHaveURL(/\/login$/, { timeout: 6000 });
});

test('a third-party callback that binds goes to the panel', async ({ page }) => {
  await signIn(page, ROOT);
  await page.route('**/api/oauth/lark*', (route) =>
    route.fulfill({ json: { success: true, message: 'bind' } }),
  );
  await page.goto('/oauth/lark?code=abc&state=s');
  await expect(toast(page, '绑定成功！')).toBeVisible();
  await expect(page).toHaveURL(/\/panel\/dashboard$/);
});

test('unknown pages and bad jumps are handled', async ({ page }) => {
  await page.goto('/no/such/page');
  await expect(page).toHaveURL(/\/404$/);
  await expect(page.getByTestId('not-found')).toBeVisible();
  await page.goto('/jump?url=https%3A%2F%2Fevil.example');
  await expect(page.getByTestId('jump')).toContainText('跳转地址无效');
});
