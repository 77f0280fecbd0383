import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, type StatisticsRow, utcDate } from '../../db/queries/statistics.js';
import type { Clock } from '../../services.js';
import { engineTargets } from '../../test/databases.js';
import { type FakeUpstream, fakeErrors, startFakeUpstream } from '../../test/fake-upstream.js';
import { createChannel, createToken, settled } from '../../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

const UPSTREAM_KEY = 'sk-upstream-stats';

interface DashboardRow {
  date: string;
  modelName: string;
  requestCount: number;
  quota: number;
  promptTokens: number;
  completionTokens: number;
  requestTime: number;
}

/** The rollup's expectation computed straight from the log table. */
async function fromLogs(t: TestApp, from: string, to: string): Promise<StatisticsRow[]> {
  const logs = await t.s.database.db.selectFrom('logs').selectAll().where('type', '=', 2).execute();
  const groups = new Map<string, StatisticsRow>();
  for (const l of logs) {
    const date = utcDate(Number(l.created_at));
    if (date < from || date > to) continue;
    const key = [date, l.user_id, l.channel_id, l.model_name].join('|');
    const g = groups.get(key) ?? {
      date,
      user_id: Number(l.user_id),
      channel_id: Number(l.channel_id),
      model_name: l.model_name,
      request_count: 0,
      quota: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      request_time: 0,
    };
    g.request_count++;
    g.quota += Number(l.quota);
    g.prompt_tokens += Number(l.prompt_tokens);
    g.completion_tokens += Number(l.completion_tokens);
    g.request_time += Number(l.request_time);
    groups.set(key, g);
  }
  return [...groups.values()].sort(
    (a, b) =>
      a.date.localeCompare(b.date) ||
      a.user_id - b.user_id ||
      a.channel_id - b.channel_id ||
      a.model_name.localeCompare(b.model_name),
  );
}

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(
    `statistics after real relay traffic on ${target.engine}`,
    () => {
      let t: TestApp;
      let up: FakeUpstream;
      let gateway: string;
      const users: { id: number; cookie: string; client: OpenAI }[] = [];

      beforeAll(async () => {
        up = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
        t = await createTestApp({ engine: target });
        await t.app.listen({ port: 0, host: '127.0.0.1' });
        gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
        const root = await t.signIn('root', ROOT_PASSWORD);
        for (const [model, input, output] of [
          ['stat-chat', 2, 4],
          ['stat-mini', 0.5, 1],
          ['stat-embed', 0.1, 0],
        ] as const) {
          const res = await t.call({
            method: 'POST',
            url: '/api/prices/single',
            headers: { cookie: root },
            payload: { model, type: 'tokens', channel_type: 1, input, output },
          });
          expect(res.statusCode, res.body).toBe(200);
        }
        // Two channels in one tier: traffic splits between them, so the rollup has several channels.
        for (const name of ['first', 'second'])
          await createChannel(t, root, {
            name,
            key: UPSTREAM_KEY,
            base_url: up.url,
            models: ['stat-chat', 'stat-mini', 'stat-embed'],
          });
        for (const name of ['statuser1', 'statuser2']) {
          const id = await registerUser(t, name);
          await t.s.repos.users.update(id, { quota: 50_000_000 });
          const cookie = await t.signIn(name, 'password-123');
          const { key } = await createToken(t, cookie);
          users.push({ id, cookie, client: new OpenAI({ apiKey: key, baseURL: gateway, maxRetries: 0 }) });
        }
      });
      afterAll(async () => {
        await t?.close();
        await up?.close();
      });

      it('sums exactly the consume logs of a mixed workload, and each user’s spending', async () => {
        const [a, b] = users as [(typeof users)[0], (typeof users)[0]];
        const calls: Promise<unknown>[] = [];
        for (let i = 0; i < 6; i++)
          calls.push(
            a.client.chat.completions.create({
              model: 'stat-chat',
              messages: [{ role: 'user', content: `hi ${i}` }],
            }),
          );
        for (let i = 0; i < 3; i++) {
          calls.push(
            (async () => {
              const stream = await a.client.chat.completions.create({
                model: 'stat-mini',
                stream: true,
                messages: [{ role: 'user', content: 'stream please' }],
              });
              for await (const _ of stream);
            })(),
          );
        }
        calls.push(a.client.embeddings.create({ model: 'stat-embed', input: ['one', 'two'] }));
        for (let i = 0; i < 4; i++)
          calls.push(
            b.client.chat.completions.create({
              model: 'stat-mini',
              messages: [{ role: 'user', content: 'x' }],
            }),
          );
        await Promise.all(calls);
        // A request the upstream refuses is not billed and leaves no consume log.
        up.setScenario(fakeErrors.badRequest(), { times: 1 });
        await expect(
          b.client.chat.completions.create({
            model: 'stat-chat',
            messages: [{ role: 'user', content: 'bad' }],
          }),
        ).rejects.toThrow();
        await settled(t);

        await t.s.jobs.statisticsRollup.run();
        const today = utcDate(t.s.clock.nowSeconds());
        const from = addDays(today, -1);
        const rows = await t.s.repos.statistics.rows({ from, to: today });
        const expected = await fromLogs(t, from, today);
        expect(rows).toEqual(expected);
        expect(rows.reduce((n, r) => n + r.request_count, 0)).toBe(14);
        expect(new Set(rows.map((r) => r.model_name))).toEqual(
          new Set(['stat-chat', 'stat-mini', 'stat-embed']),
        );

        for (const u of users) {
          const spent = rows.filter((r) => r.user_id === u.id).reduce((n, r) => n + r.quota, 0);
          expect(spent).toBeGreaterThan(0);
          expect(spent).toBe((await t.s.repos.users.byId(u.id))?.used_quota);
        }

        // The dashboard shows the same numbers, per model, for the caller only.
        const res = await t.call({
          method: 'GET',
          url: '/api/user/dashboard',
          headers: { cookie: a.cookie },
        });
        expect(res.statusCode, res.body).toBe(200);
        const dash = res.json().data as DashboardRow[];
        expect(dash.map((r) => r.modelName).sort()).toEqual(['stat-chat', 'stat-embed', 'stat-mini']);
        for (const r of dash) {
          const part = rows.filter(
            (x) => x.user_id === a.id && x.model_name === r.modelName && x.date === r.date,
          );
          expect(r.requestCount).toBe(part.reduce((n, x) => n + x.request_count, 0));
          expect(r.quota).toBe(part.reduce((n, x) => n + x.quota, 0));
          expect(r.promptTokens).toBe(part.reduce((n, x) => n + x.prompt_tokens, 0));
        }
      });
    },
  );
}

describe('the user dashboard', () => {
  // 2026-03-14 10:00 UTC, fixed so the seven-day window has known edges.
  const NOW = Date.UTC(2026, 2, 14, 10) / 1000;
  const clock: Clock = { nowMs: () => NOW * 1000, nowSeconds: () => NOW };
  let t: TestApp;
  let userId: number;
  let cookie: string;

  beforeAll(async () => {
    t = await createTestApp({ overrides: { clock } });
    userId = await registerUser(t, 'dashuser');
    cookie = await t.signIn('dashuser', 'password-123');
  });
  afterAll(async () => t?.close());

  const row = (date: string, user: number, channel: number, model: string, n: number) => ({
    date,
    user_id: user,
    channel_id: channel,
    model_name: model,
    request_count: n,
    quota: n * 100,
    prompt_tokens: n * 10,
    completion_tokens: n * 5,
    request_time: n * 1000,
  });

  it('shows the caller’s last seven days by model, oldest first, with camelCase keys', async () => {
    await t.s.database.db
      .insertInto('statistics')
      .values([
        row('2026-03-07', userId, 1, 'gpt-4o', 50), // eight days back: outside
        row('2026-03-08', userId, 1, 'gpt-4o', 1), // the first day of the window
        row('2026-03-14', userId, 1, 'gpt-4o', 2),
        row('2026-03-14', userId, 2, 'gpt-4o', 3), // another channel: summed with the row above
        row('2026-03-14', userId, 1, 'claude', 4),
        row('2026-03-15', userId, 1, 'gpt-4o', 70), // tomorrow (clock skew): outside
        row('2026-03-14', userId + 1, 1, 'gpt-4o', 90), // someone else's
      ])
      .execute();
    const res = await t.call({ method: 'GET', url: '/api/user/dashboard', headers: { cookie } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([
      {
        date: '2026-03-08',
        modelName: 'gpt-4o',
        requestCount: 1,
        quota: 100,
        promptTokens: 10,
        completionTokens: 5,
        requestTime: 1000,
      },
      {
        date: '2026-03-14',
        modelName: 'claude',
        requestCount: 4,
        quota: 400,
        promptTokens: 40,
        completionTokens: 20,
        requestTime: 4000,
      },
      {
        date: '2026-03-14',
        modelName: 'gpt-4o',
        requestCount: 5,
        quota: 500,
        promptTokens: 50,
        completionTokens: 25,
        requestTime: 5000,
      },
    ]);
    expect((await t.call({ method: 'GET', url: '/api/user/dashboard' })).statusCode).toBe(401);
  });
});
