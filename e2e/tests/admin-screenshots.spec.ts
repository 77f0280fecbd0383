import { fileURLToPath } from 'node:url';
import { expect, request as newRequest, type Page, test } from '@playwright/test';
import { type FakeUpstream, startFakeUpstream } from '../../server/src/test/fake-upstream';
import { ROOT, signIn } from './support';

// Screenshots of every administrator screen in zh_CN and en_US for docs/screenshots:
// `SCREENSHOTS=1 npx playwright test -c e2e/playwright.config.ts tests/admin-screenshots`.
test.skip(!process.env.SCREENSHOTS, 'set SCREENSHOTS=1 to refresh docs/screenshots');
test.use({ viewport: { width: 1280, height: 800 } });
test.describe.configure({ mode: 'serial' });

const OUT = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const SCREENS: { path: string; name: string; ready: (page: Page) => Promise<void> }[] = [
  { path: 'channel', name: 'channels', ready: (p) => expect(p.getByTestId('channel-tags')).toBeVisible() },
  { path: 'user', name: 'users', ready: (p) => expect(p.getByRole('row').nth(2)).toBeVisible() },
  { path: 'user_group', name: 'user-groups', ready: (p) => expect(p.getByRole('row').nth(3)).toBeVisible() },
  { path: 'redemption', name: 'redemptions', ready: (p) => expect(p.getByRole('row').nth(2)).toBeVisible() },
  { path: 'pricing', name: 'pricing', ready: (p) => expect(p.getByRole('row').nth(5)).toBeVisible() },
  {
    path: 'pricing?view=grouped',
    name: 'pricing-grouped',
    ready: (p) => expect(p.getByRole('row').nth(3)).toBeVisible(),
  },
  {
    path: 'model_ownedby',
    name: 'model-owners',
    ready: (p) => expect(p.getByRole('row').nth(5)).toBeVisible(),
  },
  {
    path: 'setting',
    name: 'settings',
    ready: (p) => expect(p.getByTestId('settings-card-quota')).toBeVisible(),
  },
  {
    path: 'setting?tab=other',
    name: 'settings-other',
    ready: (p) => expect(p.getByTestId('settings-card-site')).toBeVisible(),
  },
  { path: 'analytics', name: 'analytics', ready: (p) => expect(p.getByTestId('stat-users')).toBeVisible() },
  { path: 'telegram', name: 'telegram', ready: (p) => expect(p.getByRole('row').nth(1)).toBeVisible() },
  {
    path: 'payment?tab=gateways',
    name: 'payment',
    ready: (p) => expect(p.getByTestId('payment-none')).toBeVisible(),
  },
];

let upstream: FakeUpstream;

test.beforeAll(async ({ baseURL }) => {
  upstream = await startFakeUpstream();
  const api = await newRequest.newContext({ baseURL });
  await api.post('/api/user/login', { data: ROOT });
  const post = async (url: string, data: unknown) => {
    const res = await api.post(url, { data });
    expect(res.status(), await res.text()).toBe(200);
    return (await res.json()).data;
  };
  const base = {
    key: 'sk-shot',
    base_url: `${upstream.url}/v1`,
    group: ['default'],
    test_model: 'gpt-4o-mini',
  };
  await post('/api/channel', {
    ...base,
    type: 1,
    name: 'OpenAI main',
    models: ['gpt-4o-mini', 'gpt-4o'],
    tag: 'primary',
    priority: 10,
  });
  await post('/api/channel', {
    ...base,
    type: 1,
    name: 'OpenAI backup',
    models: ['gpt-4o-mini'],
    tag: 'primary',
    weight: 3,
  });
  await post('/api/channel', {
    ...base,
    type: 28,
    name: 'DeepSeek',
    models: ['deepseek-chat'],
    test_model: 'deepseek-chat',
  });
  const list = (await (await api.get('/api/channel')).json()).data.data as { id: number }[];
  for (const c of list) await api.get(`/api/channel/test/${c.id}`);
  for (const name of ['alice', 'bob'])
    await api.post('/api/user', {
      data: { username: `${name}${Date.now() % 1000}`, password: 'password-123', group: 'default' },
    });
  await post('/api/redemption', { name: 'Welcome', quota: 500000, count: 3 });
  await post('/api/model_ownedby', { id: 2001, name: 'Acme AI', icon: '' });
  await post('/api/option/telegram', {
    id: 0,
    command: 'help',
    description: 'How to use the gateway',
    parse_mode: 'MarkdownV2',
    reply_message: 'Send /balance to see your balance.',
  });
  await api.dispose();
});
test.afterAll(async () => upstream?.close());

async function settle(page: Page) {
  await expect(page.locator('#notistack-snackbar')).toHaveCount(0, { timeout: 20_000 });
  await page.waitForTimeout(500);
}

for (const language of ['zh_CN', 'en_US'] as const) {
  test(`admin screens, ${language}`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.addInitScript((lang) => {
      localStorage.setItem('appLanguage', lang);
      localStorage.setItem('theme', 'light');
      // The announcement dialog would cover the screens.
      localStorage.setItem('notice', '');
    }, language);
    await signIn(page, ROOT);
    for (const screen of SCREENS) {
      await page.goto(`/panel/${screen.path}`);
      await screen.ready(page);
      await settle(page);
      await page.screenshot({ path: `${OUT}admin-${screen.name}-${language}.png` });
    }
    await page.goto('/panel/channel');
    await page
      .getByRole('row')
      .filter({ hasText: 'OpenAI main' })
      .getByRole('button', { name: language === 'zh_CN' ? '编辑' : 'Edit' })
      .click();
    await expect(page.getByRole('dialog').getByRole('textbox').first()).toBeVisible();
    await settle(page);
    await page.screenshot({ path: `${OUT}admin-channel-edit-${language}.png` });
  });
}
