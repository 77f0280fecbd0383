import { expect, test } from '@playwright/test';
import OpenAI from 'openai';
import { createUser, signIn, toast } from './support';
import { startUpstream, type Upstream } from './user-support';

// The "done when": a normal user redeems a code, creates and copies a token, calls the
// gateway with the openai client, finds the request in Logs and the balance on the Dashboard
// lowered by exactly the logged quota, and chats in the Playground with streamed output.

const MODEL = 'gpt-4.1-nano';
const CODE_QUOTA = 1_000_000;

// One worker for the file: the scenarios set on this process's fake must reach it.
test.describe.configure({ mode: 'serial', timeout: 120_000 });
test.use({ permissions: ['clipboard-read', 'clipboard-write'], viewport: { width: 1400, height: 900 } });

let upstream: Upstream;

test.beforeAll(async ({ baseURL }) => {
  upstream = await startUpstream(baseURL!, [MODEL]);
});
test.afterAll(async () => upstream?.close());

test('a user tops up, makes a token, calls the API with it and sees the charge in Logs and on the Dashboard', async ({
  page,
  request,
  baseURL,
}) => {
  const user = await createUser(request, 'flow');
  const code = await upstream.redemptionCode(CODE_QUOTA);
  await signIn(page, user);

  // Top-up by code: the balance shows the credit.
  await page.goto('/panel/topup');
  // No payment gateway: the page opens on the redemption-code tab.
  await expect(page.getByTestId('topup-tab-code')).toHaveAttribute('aria-selected', 'true');
  await page.getByTestId('topup-tab-online').click();
  await expect(page.getByTestId('topup-no-gateway')).toBeVisible();
  await page.getByTestId('topup-tab-code').click();
  await page.getByTestId('topup-redeem').click();
  await expect(page.getByText('请输入兑换码')).toBeVisible();
  await page.getByTestId('topup-code').fill(code);
  await page.getByTestId('topup-redeem').click();
  await expect(toast(page, '兑换成功，已增加 $2.00')).toBeVisible();
  await expect(page.getByTestId('topup-balance')).toHaveText('$2.00');
  // A used code is refused.
  await page.getByTestId('topup-code').fill(code);
  await page.getByTestId('topup-redeem').click();
  await expect(toast(page, '错误：该兑换码已被使用')).toBeVisible();

  // A token, created in the dialog and copied.
  await page.goto('/panel/token');
  await page.getByTestId('token-create').click();
  await page.getByTestId('token-submit').click();
  await expect(page.getByText('此项为必填项')).toBeVisible();
  await page.getByTestId('token-name').fill('e2e laptop');
  await page.getByTestId('token-submit').click();
  const keyField = page.getByTestId('token-created-key');
  await expect(keyField).toHaveValue(/^sk-[0-9A-Za-z]{48}$/);
  const key = await keyField.inputValue();
  await page.getByTestId('token-created-close').click();
  const row = page.locator('tr', { hasText: 'e2e laptop' });
  await expect(row).toContainText('$1.00');
  await row.getByRole('button', { name: '复制令牌' }).click();
  await expect(toast(page, '复制令牌成功！')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

  // The openai client with that key, against the real gateway.
  upstream.setScenario({
    kind: 'ok',
    content: 'Hi from upstream',
    promptTokens: 100_000,
    completionTokens: 50_000,
  });
  const client = new OpenAI({ apiKey: key, baseURL: `${baseURL}/v1` });
  const reply = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'Say hi' }],
  });
  expect(reply.choices[0]?.message.content).toBe('Hi from upstream');

  // Logs: the request with its tokens; the exact quota in raw mode.
  await page.goto('/panel/log');
  const logRow = page.locator('tr', { hasText: MODEL });
  await expect(logRow).toHaveCount(1);
  await expect(logRow).toContainText('e2e laptop');
  await expect(logRow).toContainText('100000');
  await page.getByLabel('显示原始额度').check();
  const quotaText = (await logRow.locator('[data-testid^="log-quota-"]').textContent()) ?? '';
  const charged = Number(quotaText);
  expect(charged).toBeGreaterThan(0);
  await expect(page.getByTestId('log-total')).toHaveText(`消费合计：${charged}`);
  await logRow.getByRole('button', { name: '日志详情' }).click();
  await expect(page.getByTestId('log-detail')).toContainText('分组倍率');
  await page.keyboard.press('Escape');

  // Dashboard: the balance went down by exactly that quota.
  await page.goto('/panel/dashboard');
  const balance = page.getByTestId('dashboard-balance');
  await expect(balance).toHaveAttribute('title', String(CODE_QUOTA - charged));
  await expect(balance).toHaveText(`$${((CODE_QUOTA - charged) / 500_000).toFixed(2)}`);
  await expect(page.getByTestId('dashboard-used')).toHaveAttribute('title', String(charged));
  await expect(page.getByTestId('dashboard-requests')).toHaveText('1');
  await expect(page.getByTestId('dashboard-models')).toContainText(MODEL);
  await expect(page.getByTestId('dashboard-invite-link')).toHaveValue(/\/register\?aff=/);
});

test('the playground streams a reply and shows its token usage and cost', async ({ page, request }) => {
  const user = await createUser(request, 'play');
  const code = await upstream.redemptionCode(CODE_QUOTA);
  const login = await request.post('/api/user/login', { data: user });
  expect(login.ok()).toBe(true);
  expect((await request.post('/api/user/topup', { data: { key: code } })).ok()).toBe(true);
  await signIn(page, user);

  upstream.setScenario({ kind: 'ok', content: 'one two three four five six', chunkDelayMs: 250 });
  await page.goto('/panel/playground');
  await page.getByTestId('playground-model').click();
  await page.getByRole('option', { name: MODEL }).click();
  await page.getByTestId('playground-system').fill('Be brief.');
  await page.getByTestId('playground-input').fill('Count to six');
  await page.getByTestId('playground-send').click();

  const answer = page.getByTestId('playground-turn-assistant');
  // Streamed: the first words are on screen before the last one arrives.
  await expect(answer).toContainText('one two');
  expect(await answer.textContent()).not.toContain('six');
  await expect(answer).toContainText('one two three four five six');
  await expect(page.getByTestId('playground-usage')).toContainText(
    /输入 \d+ · 输出 \d+ Tokens · 花费 \$\d+\.\d{2}/,
  );

  // The chat went through the playground token with the system prompt.
  const sent = upstream.fake.requests.at(-1)?.json as {
    messages: { role: string; content: string }[];
    stream: boolean;
  };
  expect(sent.stream).toBe(true);
  expect(sent.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });

  // Its tab list offers the chat links too.
  await expect(page.getByRole('tab')).toHaveCount(3);
});

test('the profile form checks username >= 3 and password >= 8, and saves a valid change', async ({
  page,
  request,
}) => {
  const user = await createUser(request, 'prof');
  await signIn(page, user);
  await page.goto('/panel/profile');
  await page.getByTestId('profile-username').fill('ab');
  await page.getByTestId('profile-password').fill('short');
  await page.getByTestId('profile-save').click();
  await expect(page.getByText('至少需要 3 个字符')).toBeVisible();
  await expect(page.getByText('至少需要 8 个字符')).toBeVisible();
  await page.getByTestId('profile-username').fill(`${user.username}x`.slice(0, 30));
  await page.getByTestId('profile-password').fill('');
  await page.getByTestId('profile-display-name').fill('Display Me');
  await page.getByTestId('profile-save').click();
  await expect(toast(page, '个人信息已更新')).toBeVisible();

  await page.getByTestId('profile-generate-token').click();
  await expect(page.getByTestId('profile-access-token')).toHaveValue(/^[0-9a-zA-Z]{16,}$/);
  await expect(page.getByTestId('profile-invite-link')).toHaveValue(/\/register\?aff=/);
});

test('top-up amounts are whole, within the minimum and 1000000, when a gateway is offered', async ({
  page,
  request,
}) => {
  const user = await createUser(request, 'amt');
  await signIn(page, user);
  await page.route('**/api/user/payment', (route) =>
    route.fulfill({
      json: {
        success: true,
        message: '',
        data: [{ uuid: 'g1', name: 'Pay', icon: '', fixed_fee: 0, percent_fee: 0, currency: 'USD', sort: 1 }],
      },
    }),
  );
  await page.goto('/panel/topup');
  const amount = page.getByTestId('topup-amount');
  for (const [typed, message] of [
    ['', '请输入充值金额'],
    ['2.5', '充值金额必须是正整数'],
    ['-1', '充值金额必须是正整数'],
    ['1000001', '充值金额不能超过 1000000'],
  ] as const) {
    await amount.fill(typed);
    await page.getByTestId('topup-pay').click();
    await expect(page.getByText(message)).toBeVisible();
  }
  // The buy-code link is not set on this site.
  await page.getByTestId('topup-tab-code').click();
  await page.getByTestId('topup-buy').click();
  await expect(toast(page, '超级管理员未设置充值链接！')).toBeVisible();
});

test('the public price list and the task lists open for a user', async ({ page, request }) => {
  await page.goto('/price');
  await expect(page.getByTestId(`price-row-${MODEL}`)).toBeVisible();
  await page.getByTestId('price-search').fill('nano');
  await expect(page.getByTestId('price-table').locator('tbody tr')).toHaveCount(1);
  await expect(page.getByTestId(`price-row-${MODEL}`)).toContainText('$');

  const user = await createUser(request, 'task');
  await signIn(page, user);
  await page.goto('/panel/midjourney');
  await expect(page.getByText('暂无任务')).toBeVisible();
  await page.goto('/panel/task?platform=suno');
  await expect(page.getByText('暂无任务')).toBeVisible();
});
