import { expect, request as newRequest, test } from '@playwright/test';
import { type FakeBalance, startFakeBalance } from '../../server/src/test/fake-balance';
import { ROOT, signIn, toast } from './support';

// "Update balances" says what happened to each channel: a failed query is never reported as success.

const KEY = 'sk-balance-e2e';
let fake: FakeBalance;

test.beforeAll(async () => {
  fake = await startFakeBalance({ apiKey: KEY });
});
test.afterAll(async () => fake?.close());

test('updating balances lists the channels whose query failed, with the reason', async ({
  page,
  baseURL,
}) => {
  const api = await newRequest.newContext({ baseURL });
  await api.post('/api/user/login', { data: ROOT });
  const suffix = `${Date.now().toString(36)}${process.pid % 1000}`;
  const ids: Record<string, number> = {};
  for (const [name, key] of [
    [`good${suffix}`, KEY],
    [`wrongkey${suffix}`, 'sk-wrong'],
  ] as const) {
    const res = await api.post('/api/channel', {
      data: { type: 1, name, key, base_url: fake.url, models: ['gpt-4o-mini'], group: ['default'] },
    });
    expect(res.status(), await res.text()).toBe(200);
    const list = await (await api.get('/api/channel', { params: { name } })).json();
    ids[name] = list.data.data[0].id;
  }
  await api.dispose();

  // Another spec may have set an announcement; its dialog would hide the page from the test.
  await page.route('**/api/notice', (route) =>
    route.fulfill({ json: { success: true, message: '', data: '' } }),
  );
  await signIn(page, ROOT);
  await page.goto('/panel/channel');
  // The page header's button comes first; each balance chip of the list is named the same.
  await page.getByRole('button', { name: '更新余额', exact: true }).first().click();
  const report = page.getByTestId('balance-report');
  await expect(report).toBeVisible();
  await expect(toast(page, '余额已更新')).toHaveCount(0);
  await expect(page.getByTestId('balance-report-summary')).toContainText('失败');
  const failed = report.getByTestId(`balance-failure-${ids[`wrongkey${suffix}`]}`);
  await expect(failed).toContainText(`wrongkey${suffix}`);
  await expect(failed).toContainText('服务商拒绝了查询或无法连接');
  await expect(report.getByTestId(`balance-failure-${ids[`good${suffix}`]}`)).toHaveCount(0);
  await report.getByRole('button', { name: '关闭' }).click();
  await expect(report).toHaveCount(0);
});
