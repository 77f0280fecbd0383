import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterQueries } from '../cluster/cluster-queries.js';
import { JobLease } from '../cluster/job-lease.js';
import { type FakeTaskUpstream, startFakeMidjourney } from '../test/fake-task-upstreams.js';
import { createChannel, createToken } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';
import { TaskPoller } from './task-poller.js';

// An upstream that takes a task and then hangs: submits and polls give up after the channel's
// first-byte timeout instead of waiting for ever, nothing is charged for a submit that got no
// answer, and the task still ends (timed out, refunded) once the upstream is back.

const SECRET = 'mj-hanging';

describe('task relays against a hanging upstream', () => {
  let t: TestApp;
  let fake: FakeTaskUpstream;
  let userId: number;
  let key: string;
  let adminKey: string;

  beforeAll(async () => {
    fake = await startFakeMidjourney({ secret: SECRET });
    t = await createTestApp({ env: { TASK_POLL_SECONDS: '3600' } });
    const root = await t.signIn('root', ROOT_PASSWORD);
    await createChannel(t, root, {
      type: 34,
      name: 'slow mj',
      key: SECRET,
      base_url: fake.url,
      models: ['mj_*'],
      plugin: { upstream: { first_byte_timeout: 0.3 } },
    });
    userId = await registerUser(t, 'waiter');
    await t.s.repos.users.update(userId, { quota: 1_000_000 });
    key = (await createToken(t, await t.signIn('waiter', 'password-123'))).key;
    adminKey = (await createToken(t, root)).key;
  });

  afterAll(async () => {
    fake.hang = false;
    await t?.close();
    await fake?.close();
  });

  const quota = async () => {
    await t.s.relay.ledger.flush();
    return (await t.s.repos.users.byId(userId))!.quota;
  };
  const submit = () =>
    t.call({
      method: 'POST',
      url: '/mj/submit/imagine',
      headers: { 'mj-api-secret': key },
      payload: { prompt: 'p' },
    });

  it('gives up on a hanging submit and charges nothing; a hanging poll backs off', async () => {
    const taken = await submit();
    expect(taken.statusCode).toBe(200);
    const id = (taken.json() as { result: string }).result;
    // An administrator sees every task.
    const asAdmin = await t.call({
      method: 'GET',
      url: `/mj/task/${id}/fetch`,
      headers: { 'mj-api-secret': adminKey },
    });
    expect(asAdmin.statusCode).toBe(200);

    fake.hang = true;
    const before = await quota();
    const hung = await submit();
    expect(hung.statusCode).toBe(502);
    expect(hung.json()).toMatchObject({ code: 5 });
    expect(await quota()).toBe(before);

    const report = await t.s.jobs.taskPoller.pollOnce();
    expect(report).toMatchObject({ asked: 1, channelsFailed: 1, updated: 0, refunded: 0 });

    fake.hang = false;
    const row = (await t.s.repos.midjourneys.byMjId(id))!;
    await t.s.database.db
      .updateTable('midjourneys')
      .set({ submit_time: row.submit_time - t.config.taskTimeoutSeconds })
      .where('id', '=', row.id)
      .execute();
    // The timeout does not wait for the channel's back-off.
    expect((await t.s.jobs.taskPoller.pollOnce()).refunded).toBe(1);
    expect(await quota()).toBe(before + row.quota);
  });
});

describe('more unfinished tasks than one run reads', () => {
  let t: TestApp;
  let fake: FakeTaskUpstream;
  let key: string;

  beforeAll(async () => {
    fake = await startFakeMidjourney({ secret: SECRET });
    t = await createTestApp({ env: { TASK_POLL_SECONDS: '3600' } });
    const root = await t.signIn('root', ROOT_PASSWORD);
    await createChannel(t, root, { type: 34, name: 'mj', key: SECRET, base_url: fake.url, models: ['mj_*'] });
    key = (await createToken(t, root)).key;
  });

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('reads on from where the last run stopped, so later tasks are not starved', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.call({
        method: 'POST',
        url: '/mj/submit/imagine',
        headers: { 'mj-api-secret': key },
        payload: { prompt: `batch ${i}` },
      });
      ids.push((res.json() as { result: string }).result);
    }
    // The oldest two stay unfinished upstream; the rest are done.
    for (const id of ids.slice(2)) fake.succeed(id);
    const lease = new JobLease(clusterQueries(t.s.database), 'batch-test-poller', 'batch-node', 60_000, () =>
      Date.now(),
    );
    const poller = new TaskPoller(
      () => t.s,
      lease,
      { timeoutSeconds: 3600, batchSize: 2 },
      () => {},
    );
    const asked = () =>
      fake.requests
        .filter((r) => r.path === '/mj/task/list-by-condition')
        .map((r) => (r.json as { ids: string[] }).ids);
    await poller.pollOnce();
    await poller.pollOnce();
    await poller.pollOnce();
    expect(asked()).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
    const statuses = await Promise.all(
      ids.map(async (id) => (await t.s.repos.midjourneys.byMjId(id))!.status),
    );
    expect(statuses).toEqual(['SUBMITTED', 'SUBMITTED', 'SUCCESS', 'SUCCESS', 'SUCCESS']);
    // Back to the start: the two still open are asked about again.
    await poller.pollOnce();
    expect(asked().at(-1)).toEqual(ids.slice(0, 2));
  });
});
