import { expect, request as newRequest, type Page, test } from '@playwright/test';
import { type FakeUpstream, startFakeUpstream } from '../../server/src/test/fake-upstream';
import { ROOT, signIn } from './support';

// Every list screen fits a 1280 px window without scrolling sideways (row actions included), and at
// 390 px (a phone) the page does not scroll sideways either: its lists become cards.

const CHANNEL = 'A channel with a rather long name for its column';
// Lists another spec fills at the same time are narrowed to this spec's rows, so the check does not
// depend on what else ran.
const LISTS = [
  `channel?name=${encodeURIComponent(CHANNEL)}`,
  'user?keyword=root',
  'user_group',
  'redemption',
  'model_ownedby',
  'pricing',
  'token',
  'log?model_name=list-width-model-a',
  'telegram',
];

let upstream: FakeUpstream;
// One worker builds the data once; a failing width still lets the others run.
test.describe.configure({ mode: 'default' });

test.beforeAll(async ({ baseURL }) => {
  upstream = await startFakeUpstream();
  const api = await newRequest.newContext({ baseURL });
  await api.post('/api/user/login', { data: ROOT });
  const post = async (url: string, data: unknown) => {
    const res = await api.post(url, { data });
    expect(res.status(), await res.text()).toBe(200);
  };
  await post('/api/channel', {
    type: 1,
    name: CHANNEL,
    key: 'sk-wide',
    base_url: `${upstream.url}/v1`,
    // Disabled, with models nobody calls: other specs' requests must never be routed to it.
    models: ['list-width-model-a', 'list-width-model-b'],
    group: ['default', 'vip'],
    tag: 'wide',
    status: 2,
  });
  await post('/api/redemption', { name: 'Welcome code', quota: 500000, count: 1 });
  await post('/api/token', {
    name: 'A token with a long name',
    remain_quota: 5000,
    unlimited_quota: false,
    expired_time: -1,
  });
  await post('/api/option/telegram', {
    id: 0,
    command: `w${Date.now() % 100000}`,
    description: 'How to use the gateway',
    parse_mode: 'MarkdownV2',
    reply_message: 'Send /balance to see your balance.',
  });
  await api.dispose();
});
test.afterAll(async () => upstream?.close());

/** What scrolls sideways: the page itself, or a table inside its box. */
async function overflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth + 1) out.push(`page ${doc.scrollWidth} > ${doc.clientWidth}`);
    for (const box of Array.from(document.querySelectorAll('.MuiTableContainer-root'))) {
      if (box.scrollWidth > box.clientWidth + 1) out.push(`table ${box.scrollWidth} > ${box.clientWidth}`);
    }
    return out;
  });
}

for (const language of ['zh_CN', 'en_US'] as const) {
  for (const width of [1280, 390]) {
    test(`list screens fit ${width} px, ${language}`, async ({ page }) => {
      test.setTimeout(120_000);
      await page.setViewportSize({ width, height: 900 });
      await page.addInitScript((lang) => {
        localStorage.setItem('appLanguage', lang);
        localStorage.setItem('notice', '');
      }, language);
      await signIn(page, ROOT);
      const problems: string[] = [];
      for (const path of LISTS) {
        await page.goto(`/panel/${path}`);
        await expect(page.getByTestId('data-table').first()).toBeVisible();
        await page.waitForLoadState('networkidle');
        for (const p of await overflow(page)) problems.push(`${path}: ${p}`);
        // A title that wraps one character per line is taller than two lines.
        const title = page.locator('main h1, main h2, main h4, main h5').first();
        if ((await title.count()) > 0) {
          const box = await title.boundingBox();
          if (box && box.height > 80) problems.push(`${path}: title ${Math.round(box.height)} px tall`);
        }
      }
      expect(problems).toEqual([]);
    });
  }
}
