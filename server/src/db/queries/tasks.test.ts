import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { createDb, type Database } from '../create-db.js';
import { migrateToLatest } from '../migrations/index.js';
import { type MidjourneysQueries, midjourneysQueries } from './midjourneys.js';
import { type NewTask, type TasksQueries, tasksQueries } from './tasks.js';

const task = (over: Partial<NewTask>): NewTask => ({
  created_at: 1,
  updated_at: 1,
  task_id: '',
  platform: 'suno',
  user_id: 1,
  token_id: 0,
  channel_id: 1,
  quota: 0,
  action: 'MUSIC',
  status: '',
  fail_reason: '',
  submit_time: 0,
  start_time: 0,
  finish_time: 0,
  progress: 0,
  properties: '{}',
  data: '[]',
  notify_hook: '',
  ...over,
});

const page = (size: number, offset = 0) => ({
  size,
  offset,
  order: [{ column: 'id' as const, direction: 'desc' as const }],
});

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`task list queries on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    let tasks: TasksQueries;
    let mj: MidjourneysQueries;

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url);
      await migrateToLatest(d.db, d.dialect);
      tasks = tasksQueries(d);
      mj = midjourneysQueries(d);
      for (let i = 1; i <= 5; i++)
        await tasks.insert(task({ task_id: `t${i}`, user_id: i % 2 ? 1 : 2, submit_time: i * 100 }));
      for (let i = 1; i <= 3; i++)
        await mj.insert({
          code: 1,
          user_id: i,
          token_id: 0,
          action: 'IMAGINE',
          mj_id: `m${i}`,
          prompt: 'p',
          prompt_en: '',
          description: '',
          state: '',
          submit_time: i * 100,
          start_time: 0,
          finish_time: 0,
          image_url: '',
          status: 'SUBMITTED',
          progress: '0%',
          fail_reason: '',
          channel_id: 1,
          quota: 0,
          buttons: '',
          properties: '',
          mode: '',
        });
    });
    afterAll(async () => {
      await d?.close();
      await testDb?.drop();
    });

    it('pages async tasks newest first with the total of the filter', async () => {
      const first = await tasks.list({ userIds: [1] }, page(2));
      expect(first.total).toBe(3);
      expect(first.rows.map((r) => r.task_id)).toEqual(['t5', 't3']);
      const rest = await tasks.list({ userIds: [1] }, page(2, 2));
      expect(rest.rows.map((r) => r.task_id)).toEqual(['t1']);
      const range = await tasks.list({ start: 200, end: 400 }, page(10));
      expect(range.rows.map((r) => r.task_id)).toEqual(['t4', 't3', 't2']);
    });

    it('pages image tasks and filters them by owner and id', async () => {
      expect((await mj.list({}, page(10))).rows.map((r) => r.mj_id)).toEqual(['m3', 'm2', 'm1']);
      expect((await mj.list({ userId: 2 }, page(10))).rows.map((r) => r.mj_id)).toEqual(['m2']);
      expect((await mj.list({ mjId: 'm1' }, page(10))).total).toBe(1);
    });
  });
}
