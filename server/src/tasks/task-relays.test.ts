import { LogType } from '@switchyard/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTargets } from '../test/databases.js';
import {
  FAKE_IMAGE,
  type FakeTaskUpstream,
  startFakeKling,
  startFakeMidjourney,
  startFakeSuno,
} from '../test/fake-task-upstreams.js';
import { createChannel, createToken } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';

// The Midjourney, Suno and Kling relays end to end against fakes of their upstreams: submit,
// fetch from the row (owner only), poll to success (the image proxied), and a failure given back
// exactly once with one system log row, on every engine configured.

const MJ_SECRET = 'mj-secret-123';
const SUNO_KEY = 'suno-key-456';
const KLING_AK = 'kling-access';
const KLING_SK = 'kling-secret-key-0123456789';
const START_QUOTA = 10_000_000;
/** Default prices: mj_imagine 50, mj_upscale 25, chirp-v3-5 50, suno_lyrics 5 (x 1000 per call). */
const IMAGINE = 50_000;
const UPSCALE = 25_000;
const KLING_MODEL = 'kling-video_kling-v1_std_5';
const KLING_PRICE = 7;

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`task relays on ${target.engine}`, () => {
    let t: TestApp;
    let mj: FakeTaskUpstream;
    let suno: FakeTaskUpstream;
    let kling: FakeTaskUpstream;
    let alice: { id: number; key: string; tokenId: number };
    let bob: { id: number; key: string };

    beforeAll(async () => {
      [mj, suno, kling] = await Promise.all([
        startFakeMidjourney({ secret: MJ_SECRET }),
        startFakeSuno({ key: SUNO_KEY }),
        startFakeKling({ accessKey: KLING_AK, secretKey: KLING_SK }),
      ]);
      // The background poller stays out of the way: the tests run each poll themselves.
      t = await createTestApp({ engine: target, env: { TASK_POLL_SECONDS: '3600' } });
      const root = await t.signIn('root', ROOT_PASSWORD);
      await t.call({
        method: 'POST',
        url: '/api/prices/single',
        headers: { cookie: root },
        payload: { model: KLING_MODEL, type: 'times', channel_type: 53, input: KLING_PRICE, output: 0 },
      });
      await createChannel(t, root, {
        type: 34,
        name: 'mj',
        key: MJ_SECRET,
        base_url: mj.url,
        models: ['mj_*'],
      });
      await createChannel(t, root, {
        type: 41,
        name: 'suno',
        key: SUNO_KEY,
        base_url: suno.url,
        models: ['chirp-v3-5', 'chirp-v3-0', 'suno_lyrics'],
      });
      await createChannel(t, root, {
        type: 53,
        name: 'kling',
        key: `${KLING_AK}|${KLING_SK}`,
        base_url: kling.url,
        models: [KLING_MODEL],
      });
      const aliceId = await registerUser(t, 'alice');
      const bobId = await registerUser(t, 'bob');
      await t.s.repos.users.update(aliceId, { quota: START_QUOTA });
      await t.s.repos.users.update(bobId, { quota: START_QUOTA });
      const aliceToken = await createToken(t, await t.signIn('alice', 'password-123'), {
        unlimited_quota: false,
        remain_quota: 5_000_000,
      });
      const bobToken = await createToken(t, await t.signIn('bob', 'password-123'));
      alice = { id: aliceId, key: aliceToken.key, tokenId: aliceToken.id };
      bob = { id: bobId, key: bobToken.key };
    });

    afterAll(async () => {
      await t?.close();
      await Promise.all([mj?.close(), suno?.close(), kling?.close()]);
    });

    /** The user's balances and what their token has left, read from the database. */
    const books = async () => {
      await t.s.relay.ledger.flush();
      const user = (await t.s.repos.users.byId(alice.id))!;
      const token = (await t.s.repos.tokens.byId(alice.tokenId))!;
      return {
        quota: user.quota,
        used: user.used_quota,
        remain: token.remain_quota,
        tokenUsed: token.used_quota,
      };
    };
    const systemLogs = async () => {
      await t.s.relay.ledger.flush();
      return t.s.database.db
        .selectFrom('logs')
        .selectAll()
        .where('user_id', '=', alice.id)
        .where('type', '=', LogType.System)
        .execute();
    };
    const poll = () => t.s.jobs.taskPoller.pollOnce();

    describe('Midjourney', () => {
      const submit = (path: string, body: unknown, key = alice.key, header = 'mj-api-secret') =>
        t.call({ method: 'POST', url: path, headers: { [header]: key }, payload: body as object });
      const fetchTask = (id: string, key = alice.key) =>
        t.call({ method: 'GET', url: `/mj/task/${id}/fetch`, headers: { 'mj-api-secret': key } });

      it('submits, answers fetches from the row, polls to success and proxies the image', async () => {
        const before = await books();
        const res = await submit('/mj/submit/imagine', {
          prompt: 'a lighthouse',
          notifyHook: 'http://x/hook',
        });
        expect(res.statusCode).toBe(200);
        const answer = res.json() as { code: number; result: string };
        expect(answer.code).toBe(1);
        const id = answer.result;
        // The proxy never learns the client's hook: the gateway polls.
        expect(mj.tasks.get(id)!.body.notifyHook).toBeUndefined();
        const after = await books();
        expect(before.quota - after.quota).toBe(IMAGINE);
        expect(after.used - before.used).toBe(IMAGINE);
        expect(before.remain - after.remain).toBe(IMAGINE);

        const asked = mj.requests.length;
        let dto = (await fetchTask(id)).json() as { status: string; progress: string; action: string };
        expect(dto).toMatchObject({ status: 'SUBMITTED', progress: '0%', action: 'IMAGINE' });
        // Answered from the row: the upstream was not asked.
        expect(mj.requests.length).toBe(asked);

        mj.progress(id, 40);
        expect((await poll()).updated).toBeGreaterThanOrEqual(1);
        dto = (await fetchTask(id)).json();
        expect(dto).toMatchObject({ status: 'IN_PROGRESS', progress: '40%' });

        mj.succeed(id);
        await poll();
        const done = (await fetchTask(id)).json() as { status: string; imageUrl: string; buttons: unknown[] };
        expect(done.status).toBe('SUCCESS');
        expect(done.buttons).toHaveLength(1);
        const address = t.s.options.current.ServerAddress;
        expect(done.imageUrl).toBe(`${address}/mj/image/${id}`);

        // The image link works without a key and gives the upstream's bytes.
        const image = await t.call({ method: 'GET', url: `/mj/image/${id}` });
        expect(image.statusCode).toBe(200);
        expect(image.headers['content-type']).toBe('image/png');
        expect(Buffer.compare(image.rawPayload, FAKE_IMAGE)).toBe(0);

        // Bearer works as well as mj-api-secret; list-by-condition shows only the caller's own tasks.
        const list = await submit(
          '/mj/task/list-by-condition',
          { ids: [id] },
          `Bearer ${alice.key}`,
          'authorization',
        );
        expect((list.json() as unknown[]).length).toBe(1);
        const theirs = await submit('/mj/task/list-by-condition', { ids: [id] }, bob.key);
        expect(theirs.json()).toEqual([]);

        const seed = await t.call({
          method: 'GET',
          url: `/mj/task/${id}/image-seed`,
          headers: { 'mj-api-secret': alice.key },
        });
        expect(seed.json()).toMatchObject({ code: 1, result: `seed-${id}` });
        expect(seed.statusCode).toBe(200);
        const poll2 = await poll();
        expect(poll2.asked).toBe(0);
      });

      it('keeps a task from everyone but its owner', async () => {
        const id = ((await submit('/mj/submit/imagine', { prompt: 'private' })).json() as { result: string })
          .result;
        const other = await fetchTask(id, bob.key);
        expect(other.statusCode).toBe(404);
        expect(other.json()).toMatchObject({ code: 4 });
        const seed = await t.call({
          method: 'GET',
          url: `/mj/task/${id}/image-seed`,
          headers: { 'mj-api-secret': bob.key },
        });
        expect(seed.statusCode).toBe(404);
        // Nor may another user press its buttons.
        const press = await submit(
          '/mj/submit/action',
          { taskId: id, customId: `MJ::JOB::upsample::1::${id}` },
          bob.key,
        );
        expect(press.statusCode).toBe(404);
        const anonymous = await t.call({ method: 'GET', url: `/mj/task/${id}/fetch` });
        expect(anonymous.statusCode).toBe(401);
        expect(anonymous.json()).toMatchObject({ code: 4 });
      });

      it('bills a button as its action and the mode prefix as its model', async () => {
        const id = ((await submit('/mj/submit/imagine', { prompt: 'parent' })).json() as { result: string })
          .result;
        // Its buttons work once it has succeeded.
        const early = await submit('/mj/submit/action', {
          taskId: id,
          customId: `MJ::JOB::upsample::2::${id}`,
        });
        expect(early.statusCode).toBe(400);
        expect(early.json()).toMatchObject({ code: 4 });
        mj.succeed(id);
        await poll();
        const before = await books();
        const res = await submit('/mj/submit/action', {
          taskId: id,
          customId: `MJ::JOB::upsample::2::${id}`,
        });
        expect(res.statusCode, res.body).toBe(200);
        expect(before.quota - (await books()).quota).toBe(UPSCALE);
        const row = await t.s.repos.midjourneys.byMjId((res.json() as { result: string }).result);
        expect(row).toMatchObject({ action: 'UPSCALE', quota: UPSCALE, prompt: 'parent' });

        const turbo = await submit('/mj-turbo/mj/submit/imagine', { prompt: 'fast' });
        expect(turbo.statusCode).toBe(200);
        // The mode picks the price; the proxy is asked under /mj as for any submit.
        expect(mj.requests.at(-1)!.path).toBe('/mj/submit/imagine');
        await t.s.relay.ledger.flush();
        const log = await t.s.database.db
          .selectFrom('logs')
          .select(['model_name', 'quota'])
          .where('user_id', '=', alice.id)
          .where('type', '=', LogType.Consume)
          .orderBy('id', 'desc')
          .executeTakeFirstOrThrow();
        expect(log).toEqual({ model_name: 'mj_turbo_imagine', quota: IMAGINE });

        const unknown = await submit('/mj/submit/action', { taskId: id, customId: 'MJ::Something::odd' });
        expect(unknown.statusCode).toBe(400);
        expect(unknown.json()).toMatchObject({ code: 4 });
      });

      it('answers an upload with its links at once, billed at its price (0 by default)', async () => {
        const before = await books();
        const res = await submit('/mj/submit/upload-discord-images', {
          base64Array: ['data:image/png;base64,iVBORw0KGgo='],
        });
        expect(res.statusCode).toBe(200);
        const links = (res.json() as { result: string[] }).result;
        expect(links).toHaveLength(1);
        expect(await books()).toEqual(before);
        // Finished when answered: nothing for the poller to follow.
        const row = await t.s.database.db
          .selectFrom('midjourneys')
          .selectAll()
          .where('action', '=', 'UPLOAD')
          .executeTakeFirstOrThrow();
        expect(row).toMatchObject({ status: 'SUCCESS', progress: '100%', quota: 0, user_id: alice.id });
        expect((await t.s.repos.midjourneys.unfinished(1000)).some((r) => r.id === row.id)).toBe(false);
      });

      it('takes queued and already known tasks as taken, answering code 1', async () => {
        const before = await books();
        mj.answerNext(200, {
          code: 22,
          description: 'queued',
          result: 'queued-1',
          properties: { numberOfQueues: 1 },
        });
        const queued = await submit('/mj/submit/imagine', { prompt: 'wait' });
        expect(queued.json()).toMatchObject({ code: 1, result: 'queued-1' });
        expect((await t.s.repos.midjourneys.byMjId('queued-1'))!.status).toBe('SUBMITTED');
        mj.answerNext(200, {
          code: 21,
          description: 'exists',
          result: 'known-1',
          properties: { status: 'SUCCESS', imageUrl: `${mj.url}/attachments/known-1.png` },
        });
        const known = await submit('/mj/submit/imagine', { prompt: 'again' });
        expect(known.json()).toMatchObject({ code: 1, result: 'known-1' });
        const row = (await t.s.repos.midjourneys.byMjId('known-1'))!;
        expect(row).toMatchObject({ status: 'SUCCESS', progress: '100%' });
        const image = await t.call({ method: 'GET', url: '/mj/image/known-1' });
        expect(image.statusCode).toBe(200);
        expect(before.quota - (await books()).quota).toBe(2 * IMAGINE);
      });

      it('passes a refusal on and charges nothing', async () => {
        const before = await books();
        mj.answerNext(200, { code: 24, description: 'banned prompt', properties: { bannedWord: 'x' } });
        const res = await submit('/mj/submit/imagine', { prompt: 'x' });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ code: 24, description: 'banned prompt' });
        expect(await books()).toEqual(before);
      });

      it('refunds a failed task exactly once, with one log row saying why', async () => {
        const before = await books();
        const logsBefore = (await systemLogs()).length;
        const id = ((await submit('/mj/submit/imagine', { prompt: 'doomed' })).json() as { result: string })
          .result;
        mj.fail(id, 'Banned prompt: doomed');
        const first = await poll();
        expect(first.refunded).toBe(1);
        expect((await poll()).refunded).toBe(0);
        expect(await books()).toEqual(before);
        const logs = await systemLogs();
        expect(logs.length).toBe(logsBefore + 1);
        const refund = logs.at(-1)!;
        expect(refund.quota).toBe(IMAGINE);
        expect(refund.content).toContain('Banned prompt: doomed');
        expect(refund.content).toContain(id);
        const dto = (await fetchTask(id)).json() as { status: string; failReason: string };
        expect(dto).toMatchObject({ status: 'FAILURE', failReason: 'Banned prompt: doomed' });
      });

      it('fails and refunds a task past the timeout; backs off a channel that is down', async () => {
        const before = await books();
        const id = ((await submit('/mj/submit/imagine', { prompt: 'slow' })).json() as { result: string })
          .result;
        mj.pollStatus = 503;
        const failed = await poll();
        expect(failed.channelsFailed).toBe(1);
        const asked = mj.requests.length;
        // Within the back-off the channel is not asked again.
        expect((await poll()).asked).toBe(0);
        expect(mj.requests.length).toBe(asked);
        mj.pollStatus = 200;
        const row = (await t.s.repos.midjourneys.byMjId(id))!;
        await t.s.database.db
          .updateTable('midjourneys')
          .set({ submit_time: row.submit_time - 2 * t.config.taskTimeoutSeconds })
          .where('id', '=', row.id)
          .execute();
        expect((await poll()).refunded).toBe(1);
        expect(await books()).toEqual(before);
        const log = (await systemLogs()).at(-1)!;
        expect(log.content).toContain('timed out');
      });
    });

    describe('Suno', () => {
      const call = (method: 'GET' | 'POST', url: string, body?: unknown, key = alice.key) =>
        t.call({
          method,
          url,
          headers: { authorization: `Bearer ${key}` },
          ...(body !== undefined ? { payload: body as object } : {}),
        });

      it('submits music at its model price, polls to success, answers its owner only', async () => {
        const before = await books();
        const res = await call('POST', '/suno/submit/music', {
          prompt: 'a song',
          mv: 'chirp-v3-5',
          tags: 'pop',
        });
        expect(res.statusCode).toBe(200);
        const id = (res.json() as { code: string; data: string }).data;
        expect(res.json()).toMatchObject({ code: 'success' });
        expect(before.quota - (await books()).quota).toBe(50_000);
        let one = (await call('GET', `/suno/fetch/${id}`)).json() as {
          data: { status: string; progress: string };
        };
        expect(one.data).toMatchObject({ status: 'SUBMITTED', progress: '0%' });
        suno.succeed(id);
        await poll();
        one = (await call('GET', `/suno/fetch/${id}`)).json();
        expect(one.data).toMatchObject({ status: 'SUCCESS', progress: '100%' });
        const clip = (one.data as unknown as { data: Record<string, unknown>[] }).data[0]!;
        expect(clip.audio_url).toContain(id);
        // The Suno account behind the channel is not the client's business.
        expect(clip).not.toHaveProperty('user_id');
        const many = (await call('POST', '/suno/fetch', { ids: [id] })).json() as { data: unknown[] };
        expect(many.data).toHaveLength(1);
        expect((await call('GET', `/suno/fetch/${id}`, undefined, bob.key)).statusCode).toBe(404);
        expect(
          ((await call('POST', '/suno/fetch', { ids: [id] }, bob.key)).json() as { data: unknown[] }).data,
        ).toEqual([]);
      });

      it('bills lyrics as suno_lyrics and refunds a failure once', async () => {
        const before = await books();
        const res = await call('POST', '/suno/submit/lyrics', { prompt: 'words' });
        const id = (res.json() as { data: string }).data;
        expect(before.quota - (await books()).quota).toBe(5_000);
        suno.fail(id, 'generation failed');
        expect((await poll()).refunded).toBe(1);
        expect((await poll()).refunded).toBe(0);
        expect(await books()).toEqual(before);
        expect((await systemLogs()).at(-1)!.quota).toBe(5_000);
      });

      it("does not pass the upstream's refusal of the gateway's key on as the client's", async () => {
        const before = await books();
        suno.answerNext(401, { code: 'unauthorized', message: 'invalid key', data: null });
        const res = await call('POST', '/suno/submit/music', { prompt: 'x', mv: 'chirp-v3-5' });
        expect(res.statusCode).toBe(502);
        expect(res.json()).toMatchObject({ code: 'upstream_auth_failed', data: null });
        expect(await books()).toEqual(before);
      });

      it('refuses an unknown action and a bad body in its own error shape', async () => {
        const bad = await call('POST', '/suno/submit/video', { prompt: 'x' });
        expect(bad.statusCode).toBe(400);
        expect(bad.json()).toMatchObject({ code: 'invalid_request', data: null });
        const notJson = await t.call({
          method: 'POST',
          url: '/suno/submit/music',
          headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/json' },
          payload: '{not json',
        });
        expect(notJson.statusCode).toBe(400);
      });
    });

    describe('Kling', () => {
      const call = (method: 'GET' | 'POST', url: string, body?: unknown, key = alice.key) =>
        t.call({
          method,
          url,
          headers: { authorization: `Bearer ${key}` },
          ...(body !== undefined ? { payload: body as object } : {}),
        });

      it('signs its JWT, bills kling-video_<model>_<mode>_<duration>, polls to success', async () => {
        const before = await books();
        const res = await call('POST', '/kling/v1/videos/text2video', {
          prompt: 'waves',
          model_name: 'kling-v1',
        });
        expect(res.statusCode).toBe(200);
        const body = res.json() as { code: number; data: { task_id: string } };
        expect(body.code).toBe(0);
        const id = body.data.task_id;
        expect(before.quota - (await books()).quota).toBe(KLING_PRICE * 1000);
        kling.progress(id, 50);
        await poll();
        let got = (await call('GET', `/kling/v1/videos/text2video/${id}`)).json() as {
          data: { task_status: string; task_result?: { videos: { url: string }[] } };
        };
        expect(got.data.task_status).toBe('processing');
        kling.succeed(id);
        await poll();
        got = (await call('GET', `/kling/v1/videos/text2video/${id}`)).json();
        expect(got.data.task_status).toBe('succeed');
        expect(got.data.task_result!.videos[0]!.url).toContain(id);
        expect((await call('GET', `/kling/v1/videos/text2video/${id}`, undefined, bob.key)).statusCode).toBe(
          404,
        );
        // An unpriced combination is refused before anything is sent.
        const sent = kling.requests.length;
        const pro = await call('POST', '/kling/v1/videos/text2video', {
          prompt: 'x',
          mode: 'pro',
          duration: 10,
        });
        expect(pro.statusCode).toBeGreaterThanOrEqual(400);
        expect(pro.json()).toHaveProperty('message');
        expect(kling.requests.length).toBe(sent);
      });

      it('passes a refusal on and refunds a failed video once', async () => {
        const before = await books();
        const refused = await call('POST', '/kling/v1/videos/text2video', { model_name: 'kling-v1' });
        expect(refused.statusCode).toBe(400);
        expect(refused.json()).toMatchObject({ code: 1201 });
        expect(await books()).toEqual(before);
        const res = await call('POST', '/kling/v1/videos/text2video', { prompt: 'fail me' });
        const id = (res.json() as { data: { task_id: string } }).data.task_id;
        kling.fail(id, 'content risk');
        expect((await poll()).refunded).toBe(1);
        expect((await poll()).refunded).toBe(0);
        expect(await books()).toEqual(before);
        const row = (await t.s.repos.tasks.byTaskId('kling', id))!;
        expect(row).toMatchObject({ status: 'FAILURE', fail_reason: 'content risk' });
      });
    });
  });
}
