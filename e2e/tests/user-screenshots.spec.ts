import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import OpenAI from 'openai';
import { type Credentials, createUser, signIn } from './support';
import { startUpstream, type Upstream } from './user-support';

// Screenshots of the user screens in zh_CN and en_US for docs/screenshots:
// `SCREENSHOTS=1 npx playwright test -c e2e/playwright.config.ts tests/user-screenshots.spec.ts`.
test.skip(!process.env.SCREENSHOTS, 'set SCREENSHOTS=1 to refresh docs/screenshots');
test.describe.configure({ mode: 'serial', timeout: 300_000 });
test.use({ viewport: { width: 1400, height: 900 } });

const OUT = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const MODELS = ['gpt-4.1-mini', 'deepseek-chat', 'claude-3-5-haiku-latest'];

let upstream: Upstream;
let user: Credentials;

async function settle(page: Page) {
  await expect(page.locator('#notistack-snackbar')).toHaveCount(0, { timeout: 20_000 });
  await expect(page.getByRole('progressbar')).toHaveCount(0, { timeout: 20_000 });
  await page.waitForTimeout(500);
}

test.beforeAll(async ({ baseURL, request }) => {
  // The dashboard's rollup runs once a minute: this hook may wait that long.
  test.setTimeout(240_000);
  upstream = await startUpstream(baseURL!, MODELS);
  user = await createUser(request, 'shots');
  const login = await request.post('/api/user/login', { data: user });
  expect(login.ok()).toBe(true);
  const code = await upstream.redemptionCode(10_000_000);
  expect((await request.post('/api/user/topup', { data: { key: code } })).ok()).toBe(true);
  for (const [name, unlimited] of [
    ['laptop', false],
    ['ci pipeline', true],
  ] as const) {
    const res = await request.post('/api/token', {
      data: { name, expired_time: -1, remain_quota: 2_500_000, unlimited_quota: unlimited },
    });
    expect(res.ok()).toBe(true);
  }
  const key = (
    (await (await request.get('/api/token', { params: { keyword: 'laptop' } })).json()).data.data as {
      id: number;
    }[]
  )[0]?.id;
  const sk = (await (await request.get(`/api/token/${key}/key`)).json()).data as string;
  const client = new OpenAI({ apiKey: sk, baseURL: `${baseURL}/v1` });
  for (const [i, model] of MODELS.entries()) {
    for (let n = 0; n <= i; n++) {
      upstream.setScenario({
        kind: 'ok',
        content: 'Sure, here it is.',
        promptTokens: 1200 * (n + 1),
        completionTokens: 800,
      });
      await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Hello' }],
        stream: n % 2 === 1,
      });
    }
  }
  // The dashboard's chart reads the per-minute rollup.
  await expect
    .poll(
      async () => {
        const body = await (await request.get('/api/user/dashboard')).json();
        return (body.data as unknown[]).length;
      },
      {
        timeout: 150_000,
        intervals: [2000],
      },
    )
    .toBeGreaterThan(0);
});
test.afterAll(async () => upstream?.close());

for (const language of ['zh_CN', 'en_US'] as const) {
  test(`user screens, ${language}`, async ({ page }) => {
    await page.addInitScript((lang) => {
      localStorage.setItem('appLanguage', lang);
      localStorage.setItem('theme', 'light');
    }, language);
    await signIn(page, user);
    const shot = async (path: string, name: string, ready: () => Promise<void>) => {
      await page.goto(path);
      await ready();
      await settle(page);
      await page.screenshot({ path: `${OUT}user-${name}-${language}.png` });
    };
    await shot('/panel/dashboard', 'dashboard', () =>
      expect(page.getByTestId('dashboard-week-chart').locator('svg').first()).toBeVisible(),
    );
    await shot('/panel/token', 'tokens', () =>
      expect(page.locator('tr', { hasText: 'laptop' })).toBeVisible(),
    );
    await shot('/panel/log', 'logs', () => expect(page.locator('tbody tr').nth(6)).toBeVisible());
    await shot('/panel/topup', 'topup', () => expect(page.getByTestId('topup-balance')).toHaveText(/\$/));
    await shot('/panel/profile', 'profile', () =>
      expect(page.getByTestId('profile-invite-link')).toHaveValue(/aff=/),
    );
    await shot('/panel/model_price', 'model-price', () =>
      expect(page.getByTestId(`price-row-${MODELS[0]}`)).toBeVisible(),
    );
    await shot('/price', 'price', () => expect(page.getByTestId(`price-row-${MODELS[0]}`)).toBeVisible());
    await shot('/panel/midjourney', 'midjourney', () => expect(page.locator('tbody tr')).toHaveCount(1));
    await shot('/panel/task', 'task', () => expect(page.locator('tbody tr')).toHaveCount(1));

    upstream.setScenario({
      kind: 'ok',
      content: 'A gateway puts many model providers behind one endpoint, with keys, quotas and logs.',
      chunkDelayMs: 20,
    });
    await page.goto('/panel/playground');
    await page.getByTestId('playground-model').click();
    await page.getByRole('option', { name: MODELS[0] }).click();
    await page
      .getByTestId('playground-system')
      .fill(language === 'zh_CN' ? '请简洁回答。' : 'Answer briefly.');
    await page
      .getByTestId('playground-input')
      .fill(language === 'zh_CN' ? '什么是 API 网关？' : 'What is an API gateway?');
    await page.getByTestId('playground-send').click();
    await expect(page.getByTestId('playground-usage')).toContainText('$');
    await settle(page);
    await page.screenshot({ path: `${OUT}user-playground-${language}.png` });
  });
}
