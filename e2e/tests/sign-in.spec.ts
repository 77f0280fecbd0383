import { type APIRequestContext, expect, request as newRequest, test } from '@playwright/test';
import { type FakeGitHub, startFakeGitHub } from '../../server/src/test/fake-github';
import { FakeOidcProvider } from '../../server/src/test/fake-oidc-provider';
import { createUser, FAKE_GITHUB_PORT, ROOT, signIn, toast } from './support';

// Third-party sign-in in a real browser against fakes of the providers: an in-process OpenID
// provider (real discovery, JWKS, code + PKCE) and GitHub's OAuth endpoints. The options these
// tests set are the server's; the tests run one after another.
test.describe.configure({ mode: 'serial' });

let idp: FakeOidcProvider;
let gh: FakeGitHub;
let root: APIRequestContext;

async function setOptions(options: Record<string, string>) {
  const res = await root.put('/api/option/', { data: { options } });
  expect(res.status(), await res.text()).toBe(200);
}

test.beforeAll(async ({ baseURL }) => {
  idp = await FakeOidcProvider.start({
    clientId: 'e2e-console',
    clientSecret: 'e2e-oidc-secret',
    redirectUris: [`${baseURL}/oauth/oidc`],
  });
  gh = await startFakeGitHub({ clientId: 'e2e-gh', clientSecret: 'e2e-gh-secret' }, FAKE_GITHUB_PORT);
  gh.callbackUrl = `${baseURL}/oauth/github`;
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
  });
});

test.afterAll(async () => {
  await setOptions({ OIDCAuthEnabled: 'false', GitHubOAuthEnabled: 'false' }).catch(() => {});
  await root?.dispose();
  await idp?.close();
  await gh?.close();
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
