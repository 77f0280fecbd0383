import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../services.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

// 2026-03-14 10:00 UTC: every account made by this suite signs up on this day.
const NOW = Date.UTC(2026, 2, 14, 10) / 1000;
const DAY_12 = Date.UTC(2026, 2, 12) / 1000;

interface Usage {
  date: string;
  channel: string;
  requestCount: number;
  quota: number;
  promptTokens: number;
  completionTokens: number;
  requestTime: number;
}

describe('analytics', () => {
  const clock: Clock = { nowMs: () => NOW * 1000, nowSeconds: () => NOW };
  let t: TestApp;
  let root: string;
  let u1: number;
  let u2: number;
  let chA: number;
  let chB: number;
  const call = (opts: InjectOptions) => t.call({ ...opts, headers: { ...opts.headers, cookie: root } });
  const period = async (query: string) => {
    const res = await call({ method: 'GET', url: `/api/analytics/period?${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as {
      from: string;
      to: string;
      userStatistics: { date: string; userCount: number; inviterUserCount: number }[];
      channelStatistics: Usage[];
      redemptionStatistics: { date: string; count: number; quota: number; userCount: number }[];
      orderStatistics: { date: string; orderCurrency: string; orderAmount: number }[];
    };
  };
  const stat = (date: string, user: number, channel: number, model: string, n: number) => ({
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

  beforeAll(async () => {
    t = await createTestApp({ overrides: { clock } });
    root = await t.signIn('root', ROOT_PASSWORD);
    u1 = await registerUser(t, 'ana1');
    u2 = await registerUser(t, 'ana2');
    await t.s.repos.users.update(u2, { inviter_id: u1 });
    for (const [model, owner] of [
      ['ana-gpt', 1],
      ['ana-claude-*', 14],
    ] as const) {
      const res = await call({
        method: 'POST',
        url: '/api/prices/single',
        payload: { model, type: 'tokens', channel_type: owner, input: 1, output: 1 },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const created = async (name: string) => {
      const res = await call({
        method: 'POST',
        url: '/api/channel/',
        payload: { type: 1, name, key: `key-${name}`, models: ['gpt-4o'], group: ['default'] },
      });
      return (res.json().data as { id: number }[])[0]!.id;
    };
    chA = await created('ch-a');
    chB = await created('ch-b');
    await call({ method: 'PUT', url: '/api/channel/', payload: { id: chB, status: 2 } });
    await t.s.database.db
      .insertInto('statistics')
      .values([
        stat('2026-03-11', u1, chA, 'ana-gpt', 99), // before the period
        stat('2026-03-12', u1, chA, 'ana-gpt', 1),
        stat('2026-03-12', u2, chB, 'ana-gpt', 2),
        stat('2026-03-13', u1, chA, 'ana-claude-sonnet', 3),
        stat('2026-03-13', u1, chB, 'ana-claude-opus', 4),
        stat('2026-03-14', u2, chA, 'ana-mystery', 5),
      ])
      .execute();
    await t.s.database.db
      .insertInto('redemptions')
      .values([
        {
          user_id: 1,
          key_hash: 'r1',
          key_sealed: 's',
          status: 3,
          name: 'c',
          quota: 1000,
          created_time: DAY_12,
          redeemed_time: DAY_12 + 60,
          redeemed_by: u1,
        },
        {
          user_id: 1,
          key_hash: 'r2',
          key_sealed: 's',
          status: 3,
          name: 'c',
          quota: 2000,
          created_time: DAY_12,
          redeemed_time: NOW - 60,
          redeemed_by: u2,
        },
        {
          user_id: 1,
          key_hash: 'r3',
          key_sealed: 's',
          status: 1,
          name: 'c',
          quota: 500,
          created_time: DAY_12,
          redeemed_time: 0,
          redeemed_by: 0,
        },
      ])
      .execute();
    await t.s.database.db
      .insertInto('orders')
      .values({
        user_id: u2,
        gateway_id: 1,
        trade_no: 'T1',
        gateway_no: 'G1',
        amount: 10,
        order_amount: 10,
        order_currency: 'USD',
        quota: 5_000_000,
        fee: 0,
        discount: 0,
        status: 'success',
        created_at: NOW - 3600,
        updated_at: NOW - 3600,
      })
      .execute();
    // A deleted channel keeps its name in old statistics.
    await call({ method: 'DELETE', url: `/api/channel/${chB}` });
  });
  afterAll(async () => t?.close());

  it('gives the totals: users, channels by status, codes by status, paid orders by currency', async () => {
    const res = await call({ method: 'GET', url: '/api/analytics/statistics' });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.userStatistics).toMatchObject({ totalUser: 3, totalInviterUser: 1 });
    expect(data.channelStatistics).toEqual([{ status: 1, totalChannels: 1 }]);
    expect(data.redemptionStatistics).toEqual([
      { status: 1, count: 1, quota: 500 },
      { status: 3, count: 2, quota: 3000 },
    ]);
    expect(data.orderStatistics).toEqual([{ orderCurrency: 'USD', quota: 5_000_000, money: 10 }]);
  });

  it('groups consumption by model (the default) over the period, with sign-ups, redemptions and orders', async () => {
    const data = await period(`start_timestamp=${DAY_12}&end_timestamp=${NOW}`);
    expect(data).toMatchObject({ from: '2026-03-12', to: '2026-03-14' });
    expect(data.channelStatistics.map((r) => [r.date, r.channel, r.requestCount, r.quota])).toEqual([
      ['2026-03-12', 'ana-gpt', 3, 300],
      ['2026-03-13', 'ana-claude-opus', 4, 400],
      ['2026-03-13', 'ana-claude-sonnet', 3, 300],
      ['2026-03-14', 'ana-mystery', 5, 500],
    ]);
    expect(data.channelStatistics[0]).toEqual({
      date: '2026-03-12',
      channel: 'ana-gpt',
      requestCount: 3,
      quota: 300,
      promptTokens: 30,
      completionTokens: 15,
      requestTime: 3000,
    });
    expect(data.userStatistics).toEqual([{ date: '2026-03-14', userCount: 3, inviterUserCount: 1 }]);
    expect(data.redemptionStatistics).toEqual([
      { date: '2026-03-12', count: 1, quota: 1000, userCount: 1 },
      { date: '2026-03-14', count: 1, quota: 2000, userCount: 1 },
    ]);
    expect(data.orderStatistics).toEqual([
      { date: '2026-03-14', orderCurrency: 'USD', count: 1, orderAmount: 10, quota: 5_000_000 },
    ]);
  });

  it('groups by channel name (deleted channels too) and by the model’s owner', async () => {
    const byChannel = await period(`start_timestamp=${DAY_12}&end_timestamp=${NOW}&group_type=channel`);
    expect(byChannel.channelStatistics.map((r) => [r.date, r.channel, r.requestCount])).toEqual([
      ['2026-03-12', 'ch-a', 1],
      ['2026-03-12', 'ch-b', 2],
      ['2026-03-13', 'ch-a', 3],
      ['2026-03-13', 'ch-b', 4],
      ['2026-03-14', 'ch-a', 5],
    ]);
    const byOwner = await period(`start_timestamp=${DAY_12}&end_timestamp=${NOW}&group_type=model_type`);
    // Wildcard prices decide the owner as they decide the price; an unpriced model has no owner.
    expect(byOwner.channelStatistics.map((r) => [r.date, r.channel, r.requestCount, r.quota])).toEqual([
      ['2026-03-12', 'OpenAI', 3, 300],
      ['2026-03-13', 'Anthropic Claude', 7, 700],
      ['2026-03-14', '', 5, 500],
    ]);
  });

  it('narrows consumption, redemptions and orders to one user', async () => {
    const data = await period(`start_timestamp=${DAY_12}&end_timestamp=${NOW}&user_id=${u1}`);
    expect(data.channelStatistics.map((r) => [r.date, r.channel, r.requestCount])).toEqual([
      ['2026-03-12', 'ana-gpt', 1],
      ['2026-03-13', 'ana-claude-opus', 4],
      ['2026-03-13', 'ana-claude-sonnet', 3],
    ]);
    expect(data.redemptionStatistics).toEqual([{ date: '2026-03-12', count: 1, quota: 1000, userCount: 1 }]);
    expect(data.orderStatistics).toEqual([]);
  });

  it('defaults to the seven days ending now', async () => {
    const data = await period('');
    expect(data).toMatchObject({ from: '2026-03-08', to: '2026-03-14' });
    expect(data.channelStatistics.some((r) => r.date === '2026-03-11')).toBe(true);
  });

  it('refuses bad periods and groupings with a clear message', async () => {
    const cases: [string, string][] = [
      ['group_type=owner', 'group_type must be model, model_type or channel'],
      [`start_timestamp=${NOW}&end_timestamp=${DAY_12}`, 'start_timestamp must not be after end_timestamp'],
      [`start_timestamp=0&end_timestamp=${NOW}`, 'The period cannot be longer than 366 days'],
      ['start_timestamp=yesterday', 'start_timestamp must be a unix time in seconds'],
      ['end_timestamp=-5', 'end_timestamp must be a unix time in seconds'],
      ['user_id=0', 'user_id must be a user id'],
    ];
    for (const [query, message] of cases) {
      const res = await call({ method: 'GET', url: `/api/analytics/period?${query}` });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().message, query).toContain(message);
    }
  });
});
