import { type APIRequestContext, expect, request as newRequest, test } from '@playwright/test';
import {
  FAKE_IMAGE,
  type FakeTaskUpstream,
  startFakeMidjourney,
  startFakeSuno,
} from '../../server/src/test/fake-task-upstreams';
import { createUser, ROOT, signIn } from './support';

// The task screens fed by the relays themselves: a Midjourney imagine and a Suno song submitted with
// a user's key against fakes of midjourney-proxy and Suno-API, finished upstream, brought up to date
// by the server's own poller (TASK_POLL_SECONDS=1 in playwright.config.ts), then shown in the console
// with the image proxied by the gateway and the song's player.

const MJ_SECRET = 'e2e-mj-secret';
const SUNO_KEY = 'e2e-suno-key';

let mj: FakeTaskUpstream;
let suno: FakeTaskUpstream;
let root: APIRequestContext;
let user: { username: string; password: string };
let mjTask = '';
let sunoTask = '';

async function data<T>(res: Awaited<ReturnType<APIRequestContext['get']>>): Promise<T> {
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

test.beforeAll(async ({ baseURL }) => {
  [mj, suno] = await Promise.all([
    startFakeMidjourney({ secret: MJ_SECRET }),
    startFakeSuno({ key: SUNO_KEY }),
  ]);
  root = await newRequest.newContext({ baseURL });
  await data(await root.post('/api/user/login', { data: ROOT }));
  const suffix = Date.now().toString(36);
  await data(
    await root.post('/api/channel/', {
      data: {
        type: 34,
        name: `mj-${suffix}`,
        key: MJ_SECRET,
        base_url: mj.url,
        models: ['mj_*'],
        group: 'default',
      },
    }),
  );
  await data(
    await root.post('/api/channel/', {
      data: {
        type: 41,
        name: `suno-${suffix}`,
        key: SUNO_KEY,
        base_url: suno.url,
        models: ['chirp-v3-5'],
        group: 'default',
      },
    }),
  );
});

test.afterAll(async () => {
  await root?.dispose();
  await Promise.all([mj?.close(), suno?.close()]);
});

test('tasks submitted through the relays appear finished, with the proxied image and the song', async ({
  page,
  baseURL,
}) => {
  const own = await newRequest.newContext({ baseURL });
  user = await createUser(own, 'relay');
  await data(await own.post('/api/user/login', { data: user }));
  const self = await data<{ id: number }>(await own.get('/api/user/self'));
  await data(await root.post(`/api/user/quota/${self.id}`, { data: { quota: 5_000_000 } }));
  const token = await data<{ key: string }>(
    await own.post('/api/token/', {
      data: { name: 'tasks', expired_time: -1, remain_quota: 0, unlimited_quota: true },
    }),
  );

  const imagine = await own.post('/mj/submit/imagine', {
    headers: { 'mj-api-secret': token.key },
    data: { prompt: 'a lighthouse at dusk' },
  });
  const submitted = (await imagine.json()) as { code: number; result: string };
  expect(submitted.code, JSON.stringify(submitted)).toBe(1);
  mjTask = submitted.result;
  const song = await own.post('/suno/submit/music', {
    headers: { authorization: `Bearer ${token.key}` },
    data: { prompt: 'harbour lights', mv: 'chirp-v3-5' },
  });
  const songAnswer = (await song.json()) as { code: string; data: string };
  expect(songAnswer.code, JSON.stringify(songAnswer)).toBe('success');
  sunoTask = songAnswer.data;

  // Both upstreams finish their task; the server's poller notices within its interval.
  const upstreamSong = [...suno.tasks.keys()][0]!;
  mj.succeed([...mj.tasks.keys()][0]!);
  suno.succeed(upstreamSong);
  await expect
    .poll(
      async () => {
        const res = await own.get(`/mj/task/${mjTask}/fetch`, { headers: { 'mj-api-secret': token.key } });
        return ((await res.json()) as { status?: string }).status;
      },
      { timeout: 20_000 },
    )
    .toBe('SUCCESS');
  await expect
    .poll(
      async () => {
        const res = await own.get(`/suno/fetch/${sunoTask}`, {
          headers: { authorization: `Bearer ${token.key}` },
        });
        return ((await res.json()) as { data?: { status?: string } }).data?.status;
      },
      { timeout: 20_000 },
    )
    .toBe('SUCCESS');
  await own.dispose();

  await signIn(page, user);
  await page.goto('/panel/midjourney');
  const row = page.locator('tbody tr', { hasText: mjTask });
  const thumb = row.getByTestId('task-image-thumb').locator('img');
  await expect(thumb).toBeVisible();
  // The picture comes from the gateway, which fetched it through the channel: never the proxy's host.
  const src = await thumb.getAttribute('src');
  expect(src).toContain(`/mj/image/${mjTask}`);
  const image = await page.request.get(src!);
  expect(image.status()).toBe(200);
  expect(Buffer.from(await image.body()).equals(FAKE_IMAGE)).toBe(true);
  await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(256);
  await row.getByTestId('task-image-thumb').click();
  const large = page.getByTestId('task-image-dialog').locator('img');
  await expect(large).toBeVisible();
  expect((await large.boundingBox())!.width).toBeGreaterThan(200);
  await page.keyboard.press('Escape');

  await page.goto('/panel/task');
  const songRow = page.locator('tbody tr', { hasText: sunoTask });
  await expect(songRow.getByTestId('task-audio').locator('audio')).toHaveAttribute(
    'src',
    `https://cdn.example/${upstreamSong}.mp3`,
  );
});
