import { expect, test } from '@playwright/test';
import { createUser, signIn } from './support';
import { startUpstream, type Upstream } from './user-support';

// The playground chats with a token the user picks; its own default token is marked in the list.

// A model no other spec routes, so no other spec's channel (or its closed fake) answers for it.
const MODEL = 'gpt-4-turbo';
let upstream: Upstream;

test.describe.configure({ timeout: 120_000 });
test.beforeAll(async ({ baseURL }) => {
  upstream = await startUpstream(baseURL!, [MODEL]);
});
test.afterAll(async () => upstream?.close());

test('the playground sends with the token the user picks and marks its own token in the list', async ({
  page,
  request,
}) => {
  const user = await createUser(request, 'pt');
  expect((await request.post('/api/user/login', { data: user })).ok()).toBe(true);
  const code = await upstream.redemptionCode(1_000_000);
  expect((await request.post('/api/user/topup', { data: { key: code } })).ok()).toBe(true);
  const made = await request.post('/api/token', {
    data: { name: 'mine', remain_quota: 0, unlimited_quota: true, expired_time: -1 },
  });
  expect(made.ok(), await made.text()).toBe(true);

  // Another spec may have set an announcement; its dialog would hide the page from the test.
  await page.route('**/api/notice', (route) =>
    route.fulfill({ json: { success: true, message: '', data: '' } }),
  );
  await signIn(page, user);
  upstream.setScenario({ kind: 'ok', content: 'picked token reply' });
  await page.goto('/panel/playground');
  await page.getByTestId('playground-token').click();
  await page.getByRole('option', { name: 'mine' }).click();
  await page.getByTestId('playground-model').click();
  await page.getByRole('option', { name: MODEL }).click();
  await page.getByTestId('playground-input').fill('Hello');
  await page.getByTestId('playground-send').click();
  await expect(page.getByTestId('playground-turn-assistant')).toContainText('picked token reply');
  await expect(page.getByTestId('playground-usage')).toBeVisible();

  // Billed to the chosen token, not to the playground's.
  await expect
    .poll(async () => {
      const logs = await (await request.get('/api/log/self', { params: { log_type: 2, size: 5 } })).json();
      return (logs.data.data as { token_name: string }[]).map((l) => l.token_name);
    })
    .toEqual(['mine']);

  // The playground's own token (made on the first visit) is marked as such in the token list.
  await page.goto('/panel/token');
  await expect(page.getByTestId('token-playground')).toHaveText('游乐场');
});
