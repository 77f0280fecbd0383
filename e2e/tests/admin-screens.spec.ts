import {
  type APIRequestContext,
  expect,
  type Locator,
  request as newRequest,
  type Page,
  test,
} from '@playwright/test';
import { type FakeAnthropic, startFakeAnthropic } from '../../server/src/test/fake-anthropic';
import { type FakeGemini, startFakeGemini } from '../../server/src/test/fake-gemini';
import { type FakeUpstream, startFakeUpstream } from '../../server/src/test/fake-upstream';
import { type Credentials, createUser, ROOT, signIn, toast } from './support';

// Issue 8 "Done when": an administrator runs the gateway from the console against the real server and
// fake upstreams speaking each provider's wire format.

let openai: FakeUpstream;
let anthropic: FakeAnthropic;
let gemini: FakeGemini;
let serial = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${process.pid % 1000}${serial++}`;

test.beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([
    startFakeUpstream(),
    startFakeAnthropic(),
    startFakeGemini(),
  ]);
});
test.afterAll(async () => {
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]);
});

/** An API client signed in as `who` (cookie session). */
async function apiAs(baseURL: string, who: Credentials): Promise<APIRequestContext> {
  const api = await newRequest.newContext({ baseURL });
  const res = await api.post('/api/user/login', { data: who });
  expect(res.status(), await res.text()).toBe(200);
  return api;
}

async function data<T>(res: Awaited<ReturnType<APIRequestContext['get']>>): Promise<T> {
  const body = (await res.json()) as { success: boolean; data: unknown };
  expect(body.success, JSON.stringify(body)).toBe(true);
  return body.data as T;
}

interface Channel {
  id: number;
  name: string;
  type: number;
  status: number;
  priority: number;
  weight: number;
  tag: string;
  models: string[];
}

async function channelsNamed(api: APIRequestContext, name: string): Promise<Channel[]> {
  const page = await data<{ data: Channel[] }>(
    await api.get('/api/channel', { params: { name, size: 100 } }),
  );
  return page.data.filter((c) => c.name === name);
}

/** Fills the channel dialog (it must be open) and submits it. */
async function fillChannel(
  page: Page,
  c: {
    type?: string;
    name: string;
    key: string;
    baseUrl: string;
    models: string[];
    testModel: string;
    tag?: string;
  },
) {
  const dialog = page.getByRole('dialog');
  if (c.type) {
    await dialog.getByRole('combobox', { name: '类型' }).click();
    await page.getByRole('option', { name: c.type, exact: true }).click();
  }
  await dialog.getByRole('textbox', { name: /^名称/ }).fill(c.name);
  await dialog.getByRole('textbox', { name: /^密钥/ }).fill(c.key);
  await dialog.getByLabel('代理地址（Base URL）', { exact: true }).fill(c.baseUrl);
  const models = dialog.getByRole('combobox', { name: /^模型( \*)?$/ });
  for (const model of c.models) {
    await models.fill(model);
    await models.press('Enter');
  }
  await dialog.getByRole('combobox', { name: '测试模型' }).fill(c.testModel);
  if (c.tag) await dialog.getByLabel('标签', { exact: true }).fill(c.tag);
  await dialog.getByRole('button', { name: '提交' }).click();
  await expect(dialog).toBeHidden();
}

function channelRow(page: Page, name: string): Locator {
  return page.getByRole('row').filter({ hasText: name });
}

test('channels of each protocol are created on the fake upstreams, tested, tuned inline and tagged', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const api = await apiAs(baseURL as string, ROOT);
  await signIn(page, ROOT);
  await page.goto('/panel/channel');
  const tag = unique('tag');
  const first = unique('oa');
  const second = unique('ob');

  await page.getByRole('button', { name: '新建渠道' }).click();
  await fillChannel(page, {
    name: first,
    key: 'sk-fake-1',
    baseUrl: `${openai.url}/v1`,
    models: ['gpt-4o-mini', 'gpt-4o'],
    testModel: 'gpt-4o-mini',
    tag,
  });
  await expect(channelRow(page, first)).toBeVisible();
  await page.getByRole('button', { name: '新建渠道' }).click();
  await fillChannel(page, {
    name: second,
    key: 'sk-fake-2',
    baseUrl: `${openai.url}/v1`,
    models: ['gpt-4o-mini'],
    testModel: 'gpt-4o-mini',
    tag,
  });
  const [one] = await channelsNamed(api, first);
  const [two] = await channelsNamed(api, second);
  expect(one).toMatchObject({ type: 1, status: 1, tag, models: ['gpt-4o-mini', 'gpt-4o'] });
  expect(two).toMatchObject({ type: 1, tag });

  // Test one channel: a real request through the fake OpenAI upstream.
  const before = openai.requests.length;
  await channelRow(page, first).getByRole('button', { name: '测试', exact: true }).click();
  await expect(toast(page, `渠道 ${first} 测试成功`)).toBeVisible();
  expect(openai.requests.length).toBeGreaterThan(before);
  expect(openai.requests.at(-1)?.model).toBe('gpt-4o-mini');

  // Inline priority and weight; a weight below 1 is not saved.
  const priority = page.getByLabel(`${first} 的优先级`);
  await priority.fill('5');
  await priority.press('Enter');
  await expect.poll(async () => (await channelsNamed(api, first))[0]?.priority).toBe(5);
  // Weight is hidden by default: shown from the column menu.
  await page.getByRole('button', { name: '显示的列' }).click();
  await page.getByRole('menuitem', { name: '权重' }).click();
  await page.keyboard.press('Escape');
  const weight = page.getByLabel(`${first} 的权重`);
  await weight.fill('0');
  await weight.press('Enter');
  await expect(weight).toHaveValue('1');
  await weight.fill('3');
  await weight.press('Enter');
  await expect.poll(async () => (await channelsNamed(api, first))[0]?.weight).toBe(3);

  // The tag row disables both of its channels at once.
  const tagRow = page.getByTestId(`tag-${tag}`);
  await expect(tagRow).toContainText('2 / 2');
  await tagRow.getByRole('button', { name: '全部禁用' }).click();
  await expect(tagRow).toContainText('0 / 2');
  for (const name of [first, second]) expect((await channelsNamed(api, name))[0]?.status).toBe(2);

  // Anthropic and Gemini channels are generated from the same catalog-driven dialog.
  const claude = unique('cl');
  await page.getByRole('button', { name: '新建渠道' }).click();
  await fillChannel(page, {
    type: 'Anthropic Claude',
    name: claude,
    key: 'sk-ant-fake',
    baseUrl: anthropic.url,
    models: ['claude-haiku-4-5'],
    testModel: 'claude-haiku-4-5',
  });
  const gem = unique('ge');
  await page.getByRole('button', { name: '新建渠道' }).click();
  await fillChannel(page, {
    type: 'Google Gemini',
    name: gem,
    key: 'gemini-fake-key',
    baseUrl: gemini.url,
    models: ['gemini-2.5-flash'],
    testModel: 'gemini-2.5-flash',
  });
  expect((await channelsNamed(api, claude))[0]).toMatchObject({ type: 14, models: ['claude-haiku-4-5'] });
  expect((await channelsNamed(api, gem))[0]).toMatchObject({ type: 25, models: ['gemini-2.5-flash'] });

  // Each is tested in its own wire format against its fake.
  for (const [name, fake] of [
    [claude, anthropic],
    [gem, gemini],
  ] as const) {
    const sent = fake.requests.length;
    await channelRow(page, name).getByRole('button', { name: '测试', exact: true }).click();
    await expect(toast(page, `渠道 ${name} 测试成功`)).toBeVisible();
    expect(fake.requests.length).toBeGreaterThan(sent);
  }

  // Edit through the dialog: the stored values come back and a change is saved.
  await channelRow(page, claude).getByRole('button', { name: '编辑' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('textbox', { name: /^名称/ })).toHaveValue(claude);
  await dialog.getByLabel('优先级', { exact: true }).fill('2');
  await dialog.getByRole('button', { name: '提交' }).click();
  await expect(dialog).toBeHidden();
  expect((await channelsNamed(api, claude))[0]?.priority).toBe(2);
  await api.dispose();
});

test('a channel form with a repeated model, a bad wildcard or a weight of 0 is refused without a write', async ({
  page,
  baseURL,
}) => {
  const api = await apiAs(baseURL as string, ROOT);
  await signIn(page, ROOT);
  await page.goto('/panel/channel');
  await page.getByRole('button', { name: '新建渠道' }).click();
  const dialog = page.getByRole('dialog');
  const name = unique('bad');
  await dialog.getByRole('textbox', { name: /^名称/ }).fill(name);
  await dialog.getByRole('textbox', { name: /^密钥/ }).fill('sk-x');
  const models = dialog.getByRole('combobox', { name: /^模型( \*)?$/ });
  await models.fill('gpt-*-mini');
  await models.press('Enter');
  await dialog.getByLabel('权重', { exact: true }).fill('0');
  await dialog.getByRole('button', { name: '提交' }).click();
  await expect(dialog.getByText('权重不能小于 1')).toBeVisible();
  await expect(dialog.getByText(/模型 gpt-\*-mini 不合法/)).toBeVisible();
  expect(await channelsNamed(api, name)).toEqual([]);
  await api.dispose();
});

test('testing a channel without a test model asks for one first', async ({ page, baseURL }) => {
  const api = await apiAs(baseURL as string, ROOT);
  const name = unique('nt');
  await data(
    await api.post('/api/channel', {
      data: {
        type: 1,
        name,
        key: 'sk-x',
        base_url: `${openai.url}/v1`,
        models: ['gpt-4o-mini'],
        group: ['default'],
      },
    }),
  );
  await signIn(page, ROOT);
  await page.goto(`/panel/channel?name=${name}`);
  await channelRow(page, name).getByRole('button', { name: '测试', exact: true }).click();
  await expect(toast(page, '请先设置测试模型')).toBeVisible();
  await api.dispose();
});

test("a user's quota is adjusted in the console and an overdraft is refused", async ({
  page,
  request,
  baseURL,
}) => {
  const who = await createUser(request, 'q');
  const root = await apiAs(baseURL as string, ROOT);
  const users = await data<{ data: { id: number; username: string; quota: number }[] }>(
    await root.get('/api/user', { params: { keyword: who.username } }),
  );
  const id = users.data.find((u) => u.username === who.username)?.id as number;

  await signIn(page, ROOT);
  await page.goto(`/panel/user?keyword=${who.username}`);
  const row = page.getByRole('row').filter({ hasText: who.username });
  await row.getByRole('button', { name: '调整额度' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: '按额度' }).click();
  await dialog.getByTestId('quota-amount').fill('1000');
  await dialog.getByLabel('备注').fill('e2e top-up');
  await dialog.getByRole('button', { name: '提交' }).click();
  await expect(toast(page, '额度已调整')).toBeVisible();
  await expect
    .poll(async () => (await data<{ quota: number }>(await root.get(`/api/user/${id}`))).quota)
    .toBe(1000);

  await row.getByRole('button', { name: '调整额度' }).click();
  await dialog.getByRole('button', { name: '按额度' }).click();
  await dialog.getByTestId('quota-amount').fill('-1001');
  await dialog.getByRole('button', { name: '提交' }).click();
  await expect(dialog.getByText('不能扣减超过用户余额的额度')).toBeVisible();
  await page.keyboard.press('Escape');
  // The server refuses it too, and writes nothing.
  const refused = await root.post(`/api/user/quota/${id}`, { data: { quota: -1001, remark: '' } });
  expect(refused.status()).toBe(409);
  expect((await data<{ quota: number }>(await root.get(`/api/user/${id}`))).quota).toBe(1000);
  await root.dispose();
});

test('redemption codes created in the console are shown once and one is redeemed by a user', async ({
  page,
  request,
  baseURL,
}) => {
  const who = await createUser(request, 'r');
  await signIn(page, ROOT);
  await page.goto('/panel/redemption');
  await page.getByRole('button', { name: '批量生成' }).click();
  const dialog = page.getByRole('dialog');
  const name = unique('rc').slice(0, 20);
  await dialog.getByTestId('field-name').fill(name);
  await dialog.getByTestId('field-amount').fill('2');
  await dialog.getByTestId('field-count').fill('2');
  await dialog.getByTestId('form-submit').click();
  const keys = (await page.getByTestId('created-keys').inputValue()).split('\n');
  expect(keys).toHaveLength(2);
  for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: '下载' }).click();
  expect((await download).suggestedFilename()).toBe(`redemptions-${name}.txt`);
  await page.getByRole('button', { name: '关闭' }).click();

  const user = await apiAs(baseURL as string, who);
  await data(await user.post('/api/user/topup', { data: { key: keys[0] } }));
  expect((await data<{ quota: number }>(await user.get('/api/user/self'))).quota).toBe(1_000_000);
  await page.goto(`/panel/redemption?keyword=${name}`);
  await expect(page.getByRole('row').filter({ hasText: '已使用' })).toHaveCount(1);
  await expect(page.getByRole('row').filter({ hasText: '未使用' })).toHaveCount(1);
  await user.dispose();
});

test('a price changed in the console bills the next request', async ({ page, request, baseURL }) => {
  const model = unique('e2e-bill-');
  const root = await apiAs(baseURL as string, ROOT);
  await data(
    await root.post('/api/channel', {
      data: {
        type: 1,
        name: model,
        key: 'sk-bill',
        base_url: `${openai.url}/v1`,
        models: [model],
        group: ['default'],
      },
    }),
  );
  const who = await createUser(request, 'b');
  const user = await apiAs(baseURL as string, who);
  const me = await data<{ id: number }>(await user.get('/api/user/self'));
  await data(await root.post(`/api/user/quota/${me.id}`, { data: { quota: 1_000_000, remark: 'e2e' } }));
  const token = await data<{ key: string }>(
    await user.post('/api/token', {
      data: { name: 'bill', expired_time: -1, remain_quota: 0, unlimited_quota: true },
    }),
  );
  const used = async () => (await data<{ used_quota: number }>(await user.get('/api/user/self'))).used_quota;
  const call = async () => {
    const res = await user.post('/v1/chat/completions', {
      headers: { Authorization: `Bearer ${token.key}` },
      data: { model, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(res.status(), await res.text()).toBe(200);
  };

  await signIn(page, ROOT);
  await page.goto('/panel/pricing');
  await page.getByRole('button', { name: '新建价格' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('price-model').fill(model);
  await dialog.getByTestId('price-input').fill('1');
  await dialog.getByTestId('price-output').fill('1');
  await dialog.getByTestId('price-submit').click();
  await expect(dialog).toBeHidden();
  // Settlement goes through the group-commit writer: the balance follows the reply shortly after.
  await call();
  await expect.poll(used).toBeGreaterThan(0);
  const atOne = await used();

  await page.goto(`/panel/pricing?keyword=${model}`);
  await page.getByRole('row').filter({ hasText: model }).getByRole('button', { name: '编辑' }).click();
  await dialog.getByTestId('price-input').fill('3');
  await dialog.getByTestId('price-output').fill('3');
  await dialog.getByTestId('price-submit').click();
  await expect(dialog).toBeHidden();
  await call();
  await expect.poll(async () => (await used()) - atOne).toBe(atOne * 3);
  await Promise.all([root.dispose(), user.dispose()]);
});

test('settings saved in the console appear in /api/status, and invalid JSON is refused', async ({
  page,
  baseURL,
}) => {
  const root = await apiAs(baseURL as string, ROOT);
  const status = async () => data<{ system_name: string }>(await root.get('/api/status'));
  const original = (await status()).system_name;
  await signIn(page, ROOT);
  await page.goto('/panel/setting?tab=other');
  const card = page.getByTestId('settings-card-site');
  const name = unique('Gateway ');
  await card.getByTestId('option-SystemName').fill(name);
  await card.getByTestId('option-ChatLinks').fill('[{"name": ');
  await card.getByTestId('save-site').click();
  await expect(card.getByText('不是合法的 JSON')).toBeVisible();
  expect((await status()).system_name).toBe(original);

  await card.getByTestId('option-ChatLinks').fill('[]');
  await card.getByTestId('save-site').click();
  await expect(toast(page, '保存成功')).toBeVisible();
  expect((await status()).system_name).toBe(name);
  await data(await root.put('/api/option', { data: { key: 'SystemName', value: original } }));
  await data(await root.put('/api/option', { data: { key: 'ChatLinks', value: '' } }));
  await root.dispose();
});

test('the bot menu refuses built-in commands and saves a new one', async ({ page }) => {
  await signIn(page, ROOT);
  await page.goto('/panel/telegram');
  await expect(page.getByTestId('telegram-status')).toContainText('未运行');
  // Without a token the restart answers at once and the bot stays off.
  await page.getByRole('button', { name: '重启机器人' }).click();
  await expect(toast(page, '机器人未运行：请检查系统设置中的令牌和服务器日志')).toBeVisible();
  await expect(page.getByTestId('telegram-status')).toContainText('未运行');
  await page.screenshot({ path: test.info().outputPath('telegram.png') });
  await page.getByRole('button', { name: '新建菜单' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('field-command').fill('/balance');
  await dialog.getByTestId('field-description').fill('Balance');
  await dialog.getByTestId('field-reply_message').fill('hi');
  await dialog.getByTestId('form-submit').click();
  await expect(dialog.getByText('/balance 是机器人的内置命令，不能重新定义')).toBeVisible();
  const command = unique('m').toLowerCase().slice(0, 30);
  await dialog.getByTestId('field-command').fill(command);
  await dialog.getByTestId('form-submit').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('row').filter({ hasText: `/${command}` })).toBeVisible();
});

test('the payment screen states that no payment gateway is configured', async ({ page }) => {
  await signIn(page, ROOT);
  await page.goto('/panel/payment');
  await page.getByTestId('payment-tab-gateways').click();
  await expect(page.getByTestId('payment-none')).toContainText('尚未配置支付网关');
});

test('a normal user gets no admin screen, even by typing its URL', async ({ page, request }) => {
  await signIn(page, await createUser(request, 'n'));
  for (const path of [
    'channel',
    'user',
    'user_group',
    'pricing',
    'telegram',
    'model_ownedby',
    'redemption',
    'payment',
    'setting',
    'analytics',
  ]) {
    await page.goto(`/panel/${path}`);
    await expect(page.getByTestId('forbidden'), path).toBeVisible();
  }
});
