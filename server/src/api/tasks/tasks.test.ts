import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewMidjourney } from '../../db/queries/midjourneys.js';
import type { NewTask } from '../../db/queries/tasks.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

const mj = (over: Partial<NewMidjourney>): NewMidjourney => ({
  code: 1,
  user_id: 1,
  token_id: 0,
  action: 'IMAGINE',
  mj_id: '',
  prompt: 'a cat',
  prompt_en: 'a cat',
  description: '',
  state: '',
  submit_time: 1000,
  start_time: 1001,
  finish_time: 1010,
  image_url: '',
  status: 'SUCCESS',
  progress: '100%',
  fail_reason: '',
  channel_id: 7,
  quota: 50,
  buttons: '[]',
  properties: '{}',
  mode: 'fast',
  ...over,
});

const task = (over: Partial<NewTask>): NewTask => ({
  created_at: 1000,
  updated_at: 1000,
  task_id: '',
  platform: 'suno',
  user_id: 1,
  token_id: 0,
  channel_id: 7,
  quota: 10,
  action: 'MUSIC',
  status: 'SUCCESS',
  fail_reason: '',
  submit_time: 1000,
  start_time: 1001,
  finish_time: 1100,
  progress: 100,
  properties: '{}',
  data: '[]',
  notify_hook: '',
  ...over,
});

interface Page<T> {
  data: T[];
  total_count: number;
  page: number;
  size: number;
}

describe('image and async task lists', () => {
  let t: TestApp;
  let alice: string;
  let aliceId: number;
  let bobId: number;
  let root: string;

  const get = async <T>(cookie: string, url: string) => {
    const res = await t.call({ method: 'GET', url, headers: { cookie } } as InjectOptions);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Page<T>;
  };

  beforeAll(async () => {
    t = await createTestApp();
    aliceId = await registerUser(t, 'alice');
    bobId = await registerUser(t, 'bob');
    alice = await t.signIn('alice', 'password-123');
    root = await t.signIn('root', ROOT_PASSWORD);
    const { midjourneys, tasks } = t.s.repos;
    await midjourneys.insert(mj({ user_id: aliceId, mj_id: 'a1', submit_time: 1000, token_id: 3 }));
    await midjourneys.insert(mj({ user_id: aliceId, mj_id: 'a2', submit_time: 2000, channel_id: 8 }));
    await midjourneys.insert(mj({ user_id: bobId, mj_id: 'b1', submit_time: 3000 }));
    await tasks.insert(
      task({
        user_id: aliceId,
        task_id: 'song-1',
        submit_time: 1000,
        data: JSON.stringify([
          { id: 'clip', user_id: 'suno-account-9', metadata: { user_id: 'x', tags: 'pop' } },
        ]),
      }),
    );
    await tasks.insert(
      task({
        user_id: aliceId,
        task_id: 'video-1',
        platform: 'kling',
        action: 'text2video',
        submit_time: 2000,
        status: 'IN_PROGRESS',
        progress: 40,
      }),
    );
    await tasks.insert(task({ user_id: bobId, task_id: 'song-2', submit_time: 3000 }));
  });
  afterAll(async () => t?.close());

  it('shows a user only their own image tasks, newest first, without the channel', async () => {
    const page = await get<Record<string, unknown>>(alice, '/api/mj/self');
    expect(page.total_count).toBe(2);
    expect(page.data.map((r) => r.mj_id)).toEqual(['a2', 'a1']);
    expect(page.data[0]).not.toHaveProperty('channel_id');
    expect(page.data[0]).toMatchObject({ progress: '100%', status: 'SUCCESS', buttons: [] });
  });

  it('filters image tasks by id, token and submit time, and ignores a user trying to pick another owner', async () => {
    expect((await get<{ mj_id: string }>(alice, '/api/mj/self?mj_id=a1')).data.map((r) => r.mj_id)).toEqual([
      'a1',
    ]);
    expect((await get<{ mj_id: string }>(alice, '/api/mj/self?token_id=3')).data.map((r) => r.mj_id)).toEqual(
      ['a1'],
    );
    expect(
      (await get<{ mj_id: string }>(alice, '/api/mj/self?start_timestamp=1500&end_timestamp=2500')).data.map(
        (r) => r.mj_id,
      ),
    ).toEqual(['a2']);
    const other = await get<{ mj_id: string }>(alice, `/api/mj/self?user_id=${bobId}&channel_id=7`);
    expect(other.data.map((r) => r.mj_id)).toEqual(['a2', 'a1']);
  });

  it('shows administrators every image task with its channel, filtered by channel and paged', async () => {
    const all = await get<{ mj_id: string; channel_id: number }>(root, '/api/mj/?size=2&page=1');
    expect(all.total_count).toBe(3);
    expect(all.data.map((r) => r.mj_id)).toEqual(['b1', 'a2']);
    expect(all.data[1]?.channel_id).toBe(8);
    const second = await get<{ mj_id: string }>(root, '/api/mj/?size=2&page=2');
    expect(second.data.map((r) => r.mj_id)).toEqual(['a1']);
    const byChannel = await get<{ mj_id: string }>(root, '/api/mj/?channel_id=8');
    expect(byChannel.data.map((r) => r.mj_id)).toEqual(['a2']);
    const ordered = await get<{ mj_id: string }>(root, '/api/mj/?order=submit_time');
    expect(ordered.data.map((r) => r.mj_id)).toEqual(['a1', 'a2', 'b1']);
  });

  it('refuses to order a user list by channel', async () => {
    const res = await t.call({
      method: 'GET',
      url: '/api/mj/self?order=channel_id',
      headers: { cookie: alice },
    });
    expect(res.statusCode).toBe(400);
    const tasks = await t.call({
      method: 'GET',
      url: '/api/task/self?order=user_id',
      headers: { cookie: alice },
    });
    expect(tasks.statusCode).toBe(400);
  });

  it('shows a user only their own async tasks, without the channel or account ids inside the provider data', async () => {
    const page = await get<Record<string, unknown>>(alice, '/api/task/self');
    expect(page.data.map((r) => r.task_id)).toEqual(['video-1', 'song-1']);
    expect(page.data[0]).not.toHaveProperty('channel_id');
    expect(page.data[1]?.data).toEqual([{ id: 'clip', metadata: { tags: 'pop' } }]);
    const kling = await get<{ task_id: string; progress: number }>(alice, '/api/task/self?platform=kling');
    expect(kling.data).toMatchObject([{ task_id: 'video-1', progress: 40 }]);
    const byStatus = await get<{ task_id: string }>(alice, '/api/task/self?status=SUCCESS&action=MUSIC');
    expect(byStatus.data.map((r) => r.task_id)).toEqual(['song-1']);
  });

  it('rejects an unknown platform with a clear 400', async () => {
    const res = await t.call({
      method: 'GET',
      url: '/api/task/self?platform=midi',
      headers: { cookie: alice },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('platform must be one of suno, kling');
  });

  it('lets administrators filter async tasks by users, channel, task id and time', async () => {
    const all = await get<{ task_id: string; channel_id: number; data: unknown }>(root, '/api/task/');
    expect(all.total_count).toBe(3);
    expect(all.data[2]?.data).toEqual([
      { id: 'clip', user_id: 'suno-account-9', metadata: { user_id: 'x', tags: 'pop' } },
    ]);
    const several = await get<{ task_id: string }>(
      root,
      `/api/task/?user_ids=${aliceId}&user_ids=${bobId}&platform=suno`,
    );
    expect(several.data.map((r) => r.task_id)).toEqual(['song-2', 'song-1']);
    const bracketed = await get<{ task_id: string }>(root, `/api/task/?user_ids[]=${bobId}`);
    expect(bracketed.data.map((r) => r.task_id)).toEqual(['song-2']);
    const one = await get<{ task_id: string }>(root, `/api/task/?user_id=${aliceId}&start_timestamp=1500`);
    expect(one.data.map((r) => r.task_id)).toEqual(['video-1']);
    const byTask = await get<{ task_id: string }>(root, '/api/task/?task_id=song-2&channel_id=7');
    expect(byTask.data.map((r) => r.task_id)).toEqual(['song-2']);
  });
});
