import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeTaskUpstream, startFakeMidjourney } from '../test/fake-task-upstreams.js';
import { createChannel, createToken } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';

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
