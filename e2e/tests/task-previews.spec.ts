import { join } from 'node:path';
import { expect, type Page, type Route, test } from '@playwright/test';
import { openSqliteFile } from '../../server/src/db/sqlite-file';
import { type Credentials, createUser, ROOT, signIn } from './support';

// The task screens with every kind of result: a Suno song with its cover and player, lyrics, a Kling
// video, failures with their reasons, progress; the admin view's extra columns. The rows are written
// straight into the server's SQLite file, to show kinds and states the fakes of task-relays.spec.ts
// (which drives the relays end to end) do not produce; their media addresses are https ones
// answered by the page's route handler below, as a CDN would.

const SHOTS = process.env.TASK_SHOTS_DIR;
const CDN = 'https://cdn.e2e-tasks.test';

/** A picture with some structure, so a screenshot shows whether it is scaled and cropped well. */
function svg(label: string, hue: number): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024" viewBox="0 0 1024 1024">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},70%,55%)"/>
<stop offset="1" stop-color="hsl(${(hue + 60) % 360},70%,35%)"/></linearGradient></defs>
<rect width="1024" height="1024" fill="url(#g)"/><circle cx="512" cy="430" r="220" fill="rgba(255,255,255,0.35)"/>
<text x="512" y="860" font-size="96" text-anchor="middle" fill="#fff" font-family="sans-serif">${label}</text></svg>`;
}

/** One second of a 440 Hz tone as a 16-bit mono WAV. */
function wav(): Buffer {
  const rate = 8000;
  const samples = rate;
  const buf = Buffer.alloc(44 + samples * 2);
  buf.write('RIFF', 0);
  buf.writeUInt32LE(36 + samples * 2, 4);
  buf.write('WAVEfmt ', 8);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36);
  buf.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++)
    buf.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  return buf;
}

async function serveCdn(page: Page) {
  await page.route(`${CDN}/**`, (route: Route) => {
    const url = route.request().url();
    if (url.endsWith('.wav')) return route.fulfill({ contentType: 'audio/wav', body: wav() });
    if (url.endsWith('.mp4')) return route.fulfill({ status: 404, body: '' });
    const name = url.split('/').pop() ?? '';
    return route.fulfill({
      contentType: 'image/svg+xml',
      body: svg(name.replace(/\..*$/, ''), name.length * 37),
    });
  });
}

let user: Credentials;
let userId = 0;

test.beforeAll(async ({ request }) => {
  user = await createUser(request, 'tasks');
  const login = await request.post('/api/user/login', { data: user });
  expect(login.status()).toBe(200);
  userId = ((await (await request.get('/api/user/self')).json()).data as { id: number }).id;
  const dataDir = process.env.SWITCHYARD_E2E_DATA_DIR;
  if (!dataDir) throw new Error('SWITCHYARD_E2E_DATA_DIR is not set (the Playwright config sets it)');
  const db = openSqliteFile(join(dataDir, 'switchyard.db'));
  try {
    const now = Math.floor(Date.now() / 1000);
    const mj = db.prepare(
      `insert into midjourneys (code, user_id, token_id, action, mj_id, prompt, prompt_en, description, state,
         submit_time, start_time, finish_time, image_url, status, progress, fail_reason, channel_id, quota,
         buttons, properties, mode)
       values (1, ?, 0, ?, ?, ?, ?, '', '', ?, ?, ?, ?, ?, ?, ?, 7, 50000, '[]', '{}', 'fast')`,
    );
    mj.run(
      userId,
      'IMAGINE',
      `mj-fox-${userId}`,
      'a red fox in fresh snow',
      'a red fox in fresh snow',
      now - 90,
      now - 80,
      now - 20,
      `${CDN}/mj/fox.png`,
      'SUCCESS',
      '100%',
      '',
    );
    mj.run(
      userId,
      'IMAGINE',
      `mj-bad-${userId}`,
      'something refused',
      '',
      now - 60,
      now - 59,
      now - 58,
      '',
      'FAILURE',
      '0%',
      'Banned prompt: the moderation refused it',
    );
    const task = db.prepare(
      `insert into tasks (created_at, updated_at, task_id, platform, user_id, token_id, channel_id, quota, action,
         status, fail_reason, submit_time, start_time, finish_time, progress, properties, data, notify_hook)
       values (?, ?, ?, ?, ?, 0, 9, 20000, ?, ?, ?, ?, ?, ?, ?, ?, ?, '')`,
    );
    const clips = [
      {
        id: 'c1',
        title: 'Night drive',
        audio_url: `${CDN}/suno/night.wav`,
        image_url: `${CDN}/suno/night-cover.jpg`,
        user_id: 'suno-user',
      },
      {
        id: 'c2',
        title: 'Night drive (take 2)',
        audio_url: `${CDN}/suno/night2.wav`,
        image_url: `${CDN}/suno/cover2.jpg`,
      },
    ];
    task.run(
      now - 300,
      now - 200,
      `suno-${userId}`,
      'suno',
      userId,
      'MUSIC',
      'SUCCESS',
      '',
      now - 300,
      now - 299,
      now - 200,
      100,
      JSON.stringify({ prompt: 'synthwave, neon, night drive' }),
      JSON.stringify(clips),
    );
    task.run(
      now - 250,
      now - 240,
      `lyrics-${userId}`,
      'suno',
      userId,
      'LYRICS',
      'SUCCESS',
      '',
      now - 250,
      now - 249,
      now - 240,
      100,
      '{}',
      JSON.stringify({
        id: 'l1',
        title: 'City lights',
        text: '[Verse]\nNeon on the water\n[Chorus]\nCity lights',
      }),
    );
    task.run(
      now - 150,
      now - 100,
      `kling-${userId}`,
      'kling',
      userId,
      'text2video',
      'SUCCESS',
      '',
      now - 150,
      now - 149,
      now - 100,
      100,
      JSON.stringify({ prompt: 'a paper boat on a river' }),
      JSON.stringify({
        task_id: 'k1',
        task_status: 'succeed',
        task_result: { videos: [{ id: 'v1', url: `${CDN}/kling/boat.mp4`, duration: '5' }] },
      }),
    );
    task.run(
      now - 50,
      now - 40,
      `fail-${userId}`,
      'suno',
      userId,
      'MUSIC',
      'FAILURE',
      'Upstream refused: insufficient credits',
      now - 50,
      now - 49,
      now - 40,
      0,
      '{}',
      'null',
    );
    task.run(
      now - 10,
      now - 5,
      `run-${userId}`,
      'kling',
      userId,
      'image2video',
      'IN_PROGRESS',
      '',
      now - 10,
      now - 9,
      0,
      40,
      '{}',
      'null',
    );
  } finally {
    db.close();
  }
});

test.use({ viewport: { width: 1440, height: 900 } });

test('the image task screen shows a failed task with its reason, and no channel to a user', async ({
  page,
}) => {
  await serveCdn(page);
  await signIn(page, user);
  await page.goto('/panel/midjourney');
  // A finished task's picture is the gateway's copy (task-relays.spec.ts drives that end to end).
  await expect(
    page
      .locator('tbody tr', { hasText: `mj-fox-${userId}` })
      .getByTestId('task-image-thumb')
      .locator('img'),
  ).toHaveAttribute('src', new RegExp(`/mj/image/mj-fox-${userId}$`));
  await expect(page.locator('tbody tr', { hasText: `mj-bad-${userId}` })).toContainText('Banned prompt');
  // A user never sees which channel ran a task.
  await expect(page.locator('thead')).not.toContainText(/渠道|Channel/);
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'midjourney-user.png') });
});

test('the async task screen plays a Suno song with its cover, and shows lyrics, video and failures', async ({
  page,
}) => {
  await serveCdn(page);
  await signIn(page, user);
  await page.goto('/panel/task');
  const song = page.locator('tbody tr', { hasText: `suno-${userId}` });
  const audio = song.getByTestId('task-audio');
  await expect(audio).toHaveCount(2);
  await expect(audio.first()).toContainText('Night drive');
  await expect(audio.first().locator('audio')).toHaveAttribute('src', `${CDN}/suno/night.wav`);
  const cover = audio.first().locator('img');
  await expect.poll(() => cover.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1024);
  // The player really loads the clip: its duration is the WAV's one second.
  await expect
    .poll(() =>
      audio
        .first()
        .locator('audio')
        .evaluate(async (a: HTMLAudioElement) => {
          a.preload = 'metadata';
          a.load();
          await new Promise((r) => setTimeout(r, 200));
          return Math.round(a.duration);
        }),
    )
    .toBe(1);
  await expect(song).toContainText('synthwave');
  await expect(
    page.locator('tbody tr', { hasText: `kling-${userId}` }).getByTestId('task-video'),
  ).toHaveAttribute('src', `${CDN}/kling/boat.mp4`);
  await expect(page.locator('tbody tr', { hasText: `fail-${userId}` })).toContainText('insufficient credits');
  await expect(page.locator('tbody tr', { hasText: `run-${userId}` })).toContainText('40%');
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'task-user.png'), fullPage: true });
  await page
    .locator('tbody tr', { hasText: `lyrics-${userId}` })
    .getByTestId('task-lyrics')
    .click();
  await expect(page.getByRole('dialog')).toContainText('Neon on the water');
  await page.keyboard.press('Escape');

  // Filters: by platform and by status, kept in the address.
  await page.goto('/panel/task?platform=kling');
  await expect(page.locator('tbody tr', { hasText: `kling-${userId}` })).toBeVisible();
  await expect(page.locator('tbody tr', { hasText: `suno-${userId}` })).toHaveCount(0);
  await page.goto('/panel/task?status=FAILURE');
  await expect(page.locator('tbody tr', { hasText: `fail-${userId}` })).toBeVisible();
  await expect(page.locator('tbody tr', { hasText: `kling-${userId}` })).toHaveCount(0);
});

test('administrators see every task with its user and channel', async ({ page }) => {
  await serveCdn(page);
  await signIn(page, ROOT);
  await page.goto(`/panel/task?user_id=${userId}`);
  const song = page.locator('tbody tr', { hasText: `suno-${userId}` });
  await expect(song.getByTestId('task-audio').first()).toBeVisible();
  const headers = await page.locator('thead th').allTextContents();
  const channelColumn = headers.findIndex((h) => /渠道|Channel/.test(h));
  const userColumn = headers.findIndex((h) => /用户|User/.test(h));
  expect(channelColumn).toBeGreaterThan(-1);
  expect(userColumn).toBeGreaterThan(-1);
  await expect(song.locator('td').nth(channelColumn)).toHaveText('9');
  await expect(song.locator('td').nth(userColumn)).toHaveText(String(userId));
  if (SHOTS) await page.screenshot({ path: join(SHOTS, 'task-admin.png'), fullPage: true });
  await page.goto(`/panel/midjourney?user_id=${userId}`);
  await expect(page.locator('tbody tr', { hasText: `mj-fox-${userId}` })).toContainText('7');
});
