import { type APIRequestContext, expect, request as newRequest, test } from '@playwright/test';
import { type FakeGitHub, startFakeGitHub } from '../../server/src/test/fake-github';
import { type FakeLark, startFakeLark } from '../../server/src/test/fake-lark';
import { FakeOidcProvider } from '../../server/src/test/fake-oidc-provider';
import { type FakeWeChatServer, startFakeWeChatServer } from '../../server/src/test/fake-wechat-server';
import { decodeMail, startSmtpSink } from '../../server/src/test/smtp-sink';
import { createUser, fakeProviderPorts, ROOT, signIn, toast } from './support';

// Third-party sign-in in a real browser against fakes of the providers: an in-process OpenID
// provider (real discovery, JWKS, code + PKCE) and GitHub's OAuth endpoints. The options these
// tests set are the server's; the tests run one after another. The "postgres" project of
// playwright.config.ts runs them again against a server on PostgreSQL.
test.describe.configure({ mode: 'serial' });

let idp: FakeOidcProvider;
let gh: FakeGitHub;
let lark: FakeLark;
let wechat: FakeWeChatServer;
let root: APIRequestContext;

async function setOptions(options: Record<string, string>) {
  const res = await root.put('/api/option/', { data: { options } });
  expect(res.status(), await res.text()).toBe(200);
}

test.beforeAll(async ({ baseURL }) => {
  const ports = fakeProviderPorts(Number(new URL(baseURL as string).port));
  idp = await FakeOidcProvider.start({
    clientId: 'e2e-console',
    clientSecret: 'e2e-oidc-secret',
    redirectUris: [`${baseURL}/oauth/oidc`],
  });
  gh = await startFakeGitHub({ clientId: 'e2e-gh', clientSecret: 'e2e-gh-secret' }, ports.github);
  gh.callbackUrl = `${baseURL}/oauth/github`;
  lark = await startFakeLark({ appId: 'cli_e2e', appSecret: 'e2e-lark-secret' }, ports.lark);
  wechat = await startFakeWeChatServer('e2e-wechat-token');
  root = await newRequest.newContext({ baseURL });
  const login = await root.post('/api/user/login', { data: ROOT });
  expect(login.status()).toBe(200);
  await setOptions({
    ServerAddress: baseURL as string,
    OIDCClientId: 'e2e-console',
    OIDCClientSecret: 'e2e-oidc-secret',
    OIDCIssuer: idp.issuer,
    OIDCScopes: 'openid profile email',
    OIDCUsernameClaims: 'preferred_username',
    OIDCAuthEnabled: 'true',
    GitHubClientId: 'e2e-gh',
    GitHubClientSecret: 'e2e-gh-secret',
    GitHubOAuthEnabled: 'true',
    LarkClientId: 'cli_e2e',
    LarkClientSecret: 'e2e-lark-secret',
    LarkAuthEnabled: 'true',
    WeChatServerAddress: wechat.url,
    WeChatServerToken: 'e2e-wechat-token',
    WeChatAuthEnabled: 'true',
  });
});

test.afterAll(async () => {
  await setOptions({
    OIDCAuthEnabled: 'false',
    GitHubOAuthEnabled: 'false',
    LarkAuthEnabled: 'false',
    WeChatAuthEnabled: 'false',
  }).catch(() => {});
  await root?.dispose();
  await idp?.close();
  await gh?.close();
  await lark?.close();
  await wechat?.close();
});

test('signs up through OIDC from the login page and lands in the console', async ({ page }) => {
  const name = `oidc${Date.now().toString(36)}`;
  idp.nextAccount = {
    sub: `sub-${name}`,
    claims: { preferred_username: name, name: 'Olivia OIDC', email: `${name}@idp.test` },
  };
  await page.goto('/login');
  await page.getByTestId('login-oidc').click();
  await expect(page).toHaveURL(/\/panel/);
  const self = await page.request.get('/api/user/self');
  expect((await self.json()).data).toMatchObject({
    username: name,
    oidc_id: `sub-${name}`,
    display_name: 'Olivia OIDC',
  });
});

test('a replayed OIDC callback is refused with the reason on the failure page', async ({ page }) => {
  const name = `oidcr${Date.now().toString(36)}`;
  idp.nextAccount = { sub: `sub-${name}`, claims: { preferred_username: name } };
  let callback = '';
  page.on('request', (r) => {
    if (r.isNavigationRequest() && new URL(r.url()).pathname === '/oauth/oidc') callback = r.url();
  });
  await page.goto('/login');
  await page.getByTestId('login-oidc').click();
  await expect(page).toHaveURL(/\/panel/);
  expect(callback).toContain('code=');
  await page.goto(callback);
  await expect(page.getByTestId('oauth-error')).toContainText('expired or was already used');
});

test('signs in with GitHub, binds GitHub from the profile and unbinds it', async ({ page }) => {
  // The console sends the browser to github.com; here github.com is the fake.
  await page.route('https://github.com/**', (route) => {
    const url = new URL(route.request().url());
    return route.fulfill({ status: 302, headers: { location: `${gh.url}${url.pathname}${url.search}` } });
  });
  const user = await createUser(page.request, 'gb');
  await signIn(page, user);
  gh.nextUser = { id: 4242000 + Math.floor(Math.random() * 1000), login: `gh-${user.username}` };
  await page.goto('/panel/profile');
  const row = page.getByTestId('binding-github');
  await row.getByRole('button').first().click();
  await expect(page).toHaveURL(/\/panel/);
  await expect(toast(page, '绑定成功！')).toBeVisible();
  const self = await (await page.request.get('/api/user/self')).json();
  expect(self.data.github_id).toBe(String(gh.nextUser.id));

  // Signed out, the same GitHub account signs this user in from the login page.
  await page.request.get('/api/user/logout');
  await page.goto('/login');
  await page.getByTestId('login-github').click();
  await expect(page).toHaveURL(/\/panel/);
  expect((await (await page.request.get('/api/user/self')).json()).data.username).toBe(user.username);

  await page.goto('/panel/profile');
  await row.getByRole('button', { name: '解绑' }).click();
  await expect(toast(page, '已解绑')).toBeVisible();
  await expect(row.getByText('未绑定')).toBeVisible();
});

test('binds an email from the profile with the code mailed to it', async ({ page }) => {
  const smtp = await startSmtpSink();
  try {
    await setOptions({
      SMTPServer: '127.0.0.1',
      SMTPPort: String(smtp.port),
      SMTPAccount: 'noreply@example.com',
      SMTPFrom: 'noreply@example.com',
    });
    const user = await createUser(page.request, 'em');
    await signIn(page, user);
    await page.goto('/panel/profile');
    const row = page.getByTestId('binding-email');
    await row.getByTestId('email-bind-open').click();
    const address = `${user.username}@mail.test`;
    await page.getByTestId('email-bind-address').fill(address);
    await page.getByTestId('email-bind-send').click();
    await expect.poll(() => smtp.mails.length).toBe(1);
    const code = /\b(\d{6})\b/.exec(decodeMail(smtp.mails[0]!.raw))?.[1];
    expect(code).toBeDefined();
    // (A wrong code spends the mailed one: the server's tests cover refusals.)
    await page.getByTestId('email-bind-code').fill(code!);
    await page.getByTestId('email-bind-submit').click();
    await expect(toast(page, '绑定成功！')).toBeVisible();
    await expect(row.getByText(address)).toBeVisible();
    expect((await (await page.request.get('/api/user/self')).json()).data.email).toBe(address);
  } finally {
    await smtp.close();
  }
});

test('signs up through Lark from the login page', async ({ page }) => {
  // The console sends the browser to Lark's authorization page; here that is the fake.
  await page.route('https://accounts.feishu.cn/**', (route) => {
    const url = new URL(route.request().url());
    return route.fulfill({ status: 302, headers: { location: `${lark.url}${url.pathname}${url.search}` } });
  });
  const openId = `ou_${Date.now().toString(36)}`;
  lark.nextUser = { open_id: openId, name: 'Lark Person' };
  await page.goto('/login');
  await page.getByTestId('login-lark').click();
  await expect(page).toHaveURL(/\/panel/);
  const self = (await (await page.request.get('/api/user/self')).json()).data;
  expect(self).toMatchObject({ lark_id: openId, display_name: 'Lark Person' });
  expect(self.username).toMatch(/^lark_\d+$/);
});

test('signs in with a WeChat code from the login dialog', async ({ page }) => {
  const openid = `wx-${Date.now().toString(36)}`;
  await page.goto('/login');
  await page.getByTestId('login-wechat').click();
  await page.getByTestId('wechat-code').fill(wechat.issueCode(openid));
  await page.getByTestId('wechat-submit').click();
  await expect(page).toHaveURL(/\/panel/);
  const self = (await (await page.request.get('/api/user/self')).json()).data;
  expect(self.wechat_id).toBe(openid);
});

test('registers a passkey on the profile, renames it, signs in with it and deletes it', async ({
  page,
  baseURL,
}) => {
  // WebAuthn refuses IP addresses as relying party ids: this test uses the site as localhost.
  const site = (baseURL as string).replace('127.0.0.1', 'localhost');
  await setOptions({ ServerAddress: site, PasskeyLoginEnabled: 'true' });
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    const user = await createUser(page.request, 'pk');
    await page.goto(`${site}/login`);
    await page.getByTestId('login-username').fill(user.username);
    await page.getByTestId('login-password').fill(user.password);
    await page.getByTestId('login-submit').click();
    await expect(page).toHaveURL(/\/panel\/dashboard$/);

    await page.goto(`${site}/panel/profile`);
    await page.getByTestId('passkey-alias').fill('Laptop');
    await page.getByTestId('passkey-add').click();
    await expect(toast(page, '已添加通行密钥')).toBeVisible();
    const row = page.getByTestId('passkey-row');
    await expect(row).toContainText('Laptop');
    await row.getByRole('button', { name: '重命名' }).click();
    await page.getByTestId('passkey-alias-edit').fill('Work laptop');
    await row.getByRole('button', { name: '确认' }).click();
    await expect(row).toContainText('Work laptop');

    await page.request.get(`${site}/api/user/logout`);
    await page.goto(`${site}/login`);
    await page.getByTestId('login-passkey').click();
    await expect(page).toHaveURL(/\/panel/);
    const self = (await (await page.request.get(`${site}/api/user/self`)).json()).data;
    expect(self.username).toBe(user.username);

    await page.goto(`${site}/panel/profile`);
    await expect(row).toContainText('上次使用');
    await row.getByRole('button', { name: '删除' }).click();
    await expect(toast(page, '已删除通行密钥')).toBeVisible();
    await expect(page.getByTestId('passkey-row')).toHaveCount(0);
  } finally {
    await setOptions({ ServerAddress: baseURL as string, PasskeyLoginEnabled: 'false' });
  }
});
