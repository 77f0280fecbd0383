import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UserGroupsTable } from '../db/tables.js';
import type { Clock } from '../services.js';
import { engineTargets } from '../test/databases.js';
import { type FakeUpstream, fakeErrors, startFakeUpstream } from '../test/fake-upstream.js';
import { createChannel, createToken, settled } from '../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../test/test-app.js';

// The relay's policies end to end (issue 4): group rate limits and ratios, token allow-lists,
// channel pins, freezes, the smaller endpoints and billing views, key headers, upstream errors,
// estimated usage, and no overdraft on every engine. The official OpenAI client talks to the real
// app on an ephemeral port; two fake upstreams stand in for the providers.

const UPSTREAM_KEY = 'sk-upstream-policy-key';
const GROUPS = ['default', 'vip', 'svip'] as const;

/**
 * Real time that a test can stop and move forward, so limits, freezes and caches are checked
 * without sleeping: everything in the app that keeps time reads this clock.
 */
class SteerableClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | undefined;

  nowMs = (): number => this.frozenAt ?? Date.now() + this.offsetMs;
  nowSeconds = (): number => Math.floor(this.nowMs() / 1000);

  freeze(): void {
    this.frozenAt ??= this.nowMs();
  }

  thaw(): void {
    if (this.frozenAt === undefined) return;
    this.offsetMs = this.frozenAt - Date.now();
    this.frozenAt = undefined;
  }

  advance(ms: number): void {
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offsetMs += ms;
  }
}

type GroupPatch = Partial<Pick<UserGroupsTable, 'ratio' | 'api_rate' | 'enable' | 'public'>>;

/** There is no groups API yet: groups change in the table, then the relay reloads them. */
async function setGroup(t: TestApp, symbol: string, patch: GroupPatch): Promise<void> {
  await t.s.database.db.updateTable('user_groups').set(patch).where('symbol', '=', symbol).execute();
  await t.s.relay.tables.reloadGroups();
}

async function setPrice(
  t: TestApp,
  rootCookie: string,
  model: string,
  type: 'tokens' | 'times',
  input: number,
  output: number,
): Promise<void> {
  const res = await t.call({
    method: 'POST',
    url: '/api/prices/single',
    headers: { cookie: rootCookie },
    payload: { model, type, channel_type: 1, input, output },
  });
  expect(res.statusCode, res.body).toBe(200);
}

function clientFor(baseURL: string, key: string): OpenAI {
  return new OpenAI({ apiKey: key, baseURL, maxRetries: 0 });
}

/** The error a call must fail with, for checks beyond status and code (headers, message). */
async function failureOf(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call;
  } catch (err) {
    if (err instanceof OpenAI.APIError) return err;
    throw err;
  }
  throw new Error('the call succeeded but was expected to fail');
}

function metadataOf(row: { metadata: string } | undefined): Record<string, unknown> {
  return JSON.parse(row?.metadata ?? '{}') as Record<string, unknown>;
}

describe('relay policies', () => {
  const clock = new SteerableClock();
  let t: TestApp;
  let hi: FakeUpstream;
  let lo: FakeUpstream;
  let gateway: string;
  let rootCookie: string;
  let userCookie: string;
  let userId: number;
  let hiChannel: number;
  let loChannel: number;

  beforeAll(async () => {
    hi = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
    lo = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
    t = await createTestApp({ overrides: { clock } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
    rootCookie = await t.signIn('root', ROOT_PASSWORD);
    // Round prices, so every expected charge can be worked out by hand.
    await setPrice(t, rootCookie, 'policy-chat', 'tokens', 2, 4);
    await setPrice(t, rootCookie, 'policy-other', 'tokens', 1, 1);
    await setPrice(t, rootCookie, 'policy-moderation', 'tokens', 3, 0);
    await setPrice(t, rootCookie, 'policy-rerank', 'tokens', 0.5, 0);
    await setPrice(t, rootCookie, 'policy-times', 'times', 5, 0);
    const models = ['policy-chat', 'policy-other', 'policy-moderation', 'policy-rerank', 'policy-times'];
    [hiChannel] = (await createChannel(t, rootCookie, {
      name: 'policy-hi',
      key: UPSTREAM_KEY,
      base_url: hi.url,
      models,
      group: [...GROUPS],
      priority: 10,
    })) as [number];
    [loChannel] = (await createChannel(t, rootCookie, {
      name: 'policy-lo',
      key: UPSTREAM_KEY,
      base_url: lo.url,
      models,
      group: [...GROUPS],
      priority: 0,
    })) as [number];
    await t.s.relay.tables.reload();
    userId = await registerUser(t, 'policyuser');
    await t.s.repos.users.update(userId, { quota: 10_000_000 });
    userCookie = await t.signIn('policyuser', 'password-123');
  });

  afterAll(async () => {
    await t?.close();
    await hi?.close();
    await lo?.close();
  });

  beforeEach(async () => {
    hi.reset();
    lo.reset();
    hi.setScenario({ kind: 'ok', content: 'from hi', promptTokens: 10, completionTokens: 6 });
    lo.setScenario({ kind: 'ok', content: 'from lo', promptTokens: 10, completionTokens: 6 });
    await t.s.options.update({
      RetryTimes: '0',
      RetryCooldownSeconds: '0',
      AutomaticDisableChannelEnabled: 'false',
    });
    // Every group open to tokens, unlimited and at ratio 1 unless a test says otherwise.
    for (const g of GROUPS) await setGroup(t, g, { ratio: 1, api_rate: 0, enable: 1, public: 1 });
  });

  afterEach(async () => {
    // Each test starts with every settlement committed, ten minutes after the last one: rate
    // windows, buckets, freezes and the key cache of one test are gone by the next.
    await settled(t);
    clock.thaw();
    clock.advance(600_000);
  });

  const client = (key: string) => clientFor(gateway, key);
  const chat = (key: string, model = 'policy-chat') =>
    client(key).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  const userRow = async (id = userId) => (await t.s.repos.users.byId(id))!;
  const lastLog = async (id = userId) =>
    t.s.database.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', id)
      .orderBy('id', 'desc')
      .executeTakeFirst();
  const logCount = async (id = userId) =>
    (await t.s.database.db.selectFrom('logs').select('id').where('user_id', '=', id).execute()).length;
  const channelStatus = async (id: number) =>
    (await t.s.database.db.selectFrom('channels').select('status').where('id', '=', id).executeTakeFirst())
      ?.status;

  describe('per-group rate limit', () => {
    it('counts requests per minute below 60 and answers the one over with 429 and retry-after', async () => {
      const { key } = await createToken(t, userCookie);
      await setGroup(t, 'default', { api_rate: 3 });
      const logsBefore = await logCount();
      clock.freeze();
      for (let i = 0; i < 3; i++) await chat(key);
      const err = await failureOf(chat(key));
      expect(err).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' });
      // The window opened with the first request and has the whole minute left.
      expect(err.headers?.get('retry-after')).toBe('60');
      // The refused request never reached an upstream and was not billed.
      expect(hi.requests).toHaveLength(3);
      await settled(t);
      expect(await logCount()).toBe(logsBefore + 3);

      // Still refused a second before the minute is over, let through once it is.
      clock.advance(59_000);
      await expect(chat(key)).rejects.toMatchObject({ status: 429 });
      clock.advance(1_000);
      await expect(chat(key)).resolves.toBeDefined();
    });

    it('uses a token bucket from 60 per minute up, with ten seconds worth of burst', async () => {
      const { key } = await createToken(t, userCookie);
      // 120 a minute: 2 a second, a burst of 20.
      await setGroup(t, 'default', { api_rate: 120 });
      clock.freeze();
      for (let i = 0; i < 20; i++) await chat(key);
      const err = await failureOf(chat(key));
      expect(err.status).toBe(429);
      expect(err.headers?.get('retry-after')).toBe('1');
      // Half a second refills exactly one request.
      clock.advance(500);
      await expect(chat(key)).resolves.toBeDefined();
      await expect(chat(key)).rejects.toMatchObject({ status: 429 });
      expect(hi.requests).toHaveLength(21);
    });

    it("is keyed by the token's effective group, not the user's", async () => {
      const vipKey = (await createToken(t, userCookie, { name: 'vip', group: 'vip' })).key;
      const ownKey = (await createToken(t, userCookie, { name: 'own' })).key;
      clock.freeze();

      // The user is in `default` (unlimited); a vip token obeys vip's 2 a minute.
      await setGroup(t, 'vip', { api_rate: 2 });
      await chat(vipKey);
      await chat(vipKey);
      await expect(chat(vipKey)).rejects.toMatchObject({ status: 429 });
      for (let i = 0; i < 4; i++) await chat(ownKey);

      // And the other way round: a strict `default` does not bind the vip token.
      clock.advance(61_000);
      await setGroup(t, 'vip', { api_rate: 0 });
      await setGroup(t, 'default', { api_rate: 2 });
      for (let i = 0; i < 4; i++) await chat(vipKey);
      await chat(ownKey);
      await chat(ownKey);
      await expect(chat(ownKey)).rejects.toMatchObject({ status: 429 });
    });
  });

  describe('group resolution and ratio', () => {
    it('uses the token group, else the user group', async () => {
      const own = await createToken(t, userCookie, { name: 'own' });
      const vip = await createToken(t, userCookie, { name: 'vip', group: 'vip' });
      await chat(own.key);
      await settled(t);
      expect((await lastLog())?.group).toBe('default');
      await chat(vip.key);
      await settled(t);
      expect((await lastLog())?.group).toBe('vip');

      await t.s.repos.users.update(userId, { group: 'svip' });
      await t.s.bus.publish('users');
      try {
        await chat(own.key);
        await settled(t);
        expect((await lastLog())?.group).toBe('svip');
        // The token's own group still wins over the user's new one.
        await chat(vip.key);
        await settled(t);
        expect((await lastLog())?.group).toBe('vip');
      } finally {
        await t.s.repos.users.update(userId, { group: 'default' });
        await t.s.bus.publish('users');
      }
    });

    it('refuses a key whose group is disabled or missing with 403 group_unavailable', async () => {
      const vip = await createToken(t, userCookie, { name: 'vip', group: 'vip' });
      await setGroup(t, 'vip', { enable: 0 });
      await expect(chat(vip.key)).rejects.toMatchObject({ status: 403, code: 'group_unavailable' });

      const ghost = await createToken(t, userCookie, { name: 'ghost' });
      await t.s.database.db
        .updateTable('tokens')
        .set({ group: 'ghost' })
        .where('id', '=', ghost.id)
        .execute();
      await t.s.bus.publish('tokens');
      await expect(chat(ghost.key)).rejects.toMatchObject({ status: 403, code: 'group_unavailable' });

      // A user whose own group is gone is refused the same way.
      const plain = await createToken(t, userCookie, { name: 'plain' });
      await t.s.repos.users.update(userId, { group: 'gone' });
      await t.s.bus.publish('users');
      try {
        await expect(chat(plain.key)).rejects.toMatchObject({ status: 403, code: 'group_unavailable' });
      } finally {
        await t.s.repos.users.update(userId, { group: 'default' });
        await t.s.bus.publish('users');
      }
      expect(hi.requests).toHaveLength(0);
      expect(lo.requests).toHaveLength(0);
    });

    it("multiplies the charge by the effective group's ratio", async () => {
      await setGroup(t, 'vip', { ratio: 1.25 });
      const vip = await createToken(t, userCookie, { name: 'vip', group: 'vip' });
      hi.setScenario({ kind: 'ok', content: 'x', promptTokens: 7, completionTokens: 4 });
      const before = await userRow();
      await chat(vip.key);
      await settled(t);
      const after = await userRow();
      // 7 x (2 x 1.25) + 4 x (4 x 1.25) = 17.5 + 20 = 37.5, rounded up to 38.
      expect(before.quota - after.quota).toBe(38);
      expect(after.used_quota - before.used_quota).toBe(38);
      const log = await lastLog();
      expect(log).toMatchObject({ quota: 38, prompt_tokens: 7, completion_tokens: 4, group: 'vip' });
      expect(metadataOf(log)).toMatchObject({ group_ratio: 1.25, input_ratio: 2.5, output_ratio: 5 });
    });
  });

  describe('token allow-lists', () => {
    it('refuses models outside the allow-list and lists only the allowed ones', async () => {
      const { key } = await createToken(t, userCookie, { models: ['policy-chat', 'not-served-anywhere'] });
      await expect(chat(key)).resolves.toBeDefined();
      await expect(chat(key, 'policy-other')).rejects.toMatchObject({
        status: 403,
        code: 'model_not_allowed',
        param: 'model',
      });
      // A listed model that no channel of the group serves is not offered either.
      const list = await client(key).models.list();
      expect(list.data.map((m) => m.id)).toEqual(['policy-chat']);
      await expect(client(key).models.retrieve('policy-other')).rejects.toMatchObject({ status: 404 });
      expect(hi.requests).toHaveLength(1);
    });

    it('lets a request from an allowed range through and refuses others with 403 ip_not_allowed', async () => {
      const local = await createToken(t, userCookie, { name: 'local', subnet: '127.0.0.0/8' });
      const remote = await createToken(t, userCookie, { name: 'remote', subnet: '10.0.0.0/8, 192.168.1.7' });
      await expect(chat(local.key)).resolves.toBeDefined();
      await expect(chat(remote.key)).rejects.toMatchObject({ status: 403, code: 'ip_not_allowed' });
      await expect(client(remote.key).models.list()).rejects.toMatchObject({
        status: 403,
        code: 'ip_not_allowed',
      });
      expect(hi.requests).toHaveLength(1);
    });
  });

  describe('channel pins', () => {
    it('lets an admin pin a channel with sk-KEY#<id>, even below a higher tier, without retries', async () => {
      const { key } = await createToken(t, rootCookie, { name: 'pin' });
      const res = await chat(`${key}#${loChannel}`);
      expect(res.choices[0]?.message.content).toBe('from lo');
      expect(hi.requests).toHaveLength(0);
      await settled(t);
      const rootId = (await t.s.repos.users.byUsername('root'))!.id;
      expect((await lastLog(rootId))?.channel_id).toBe(loChannel);

      // A pinned channel that fails is not swapped for another one.
      await t.s.options.update({ RetryTimes: '2' });
      lo.setScenario(fakeErrors.serverError(), { times: 1 });
      await expect(chat(`${key}#${loChannel}`)).rejects.toMatchObject({ status: 502 });
      expect(hi.requests).toHaveLength(0);
    });

    it('lets an admin exclude a channel with sk-KEY#!<id>', async () => {
      const { key } = await createToken(t, rootCookie, { name: 'exclude' });
      const res = await chat(`${key}#!${hiChannel}`);
      expect(res.choices[0]?.message.content).toBe('from lo');
      expect(hi.requests).toHaveLength(0);
      expect(lo.requests).toHaveLength(1);
    });

    it('refuses pins and exclusions from a normal user with 403 channel_pin_not_allowed', async () => {
      const { key } = await createToken(t, userCookie);
      await expect(chat(`${key}#${loChannel}`)).rejects.toMatchObject({
        status: 403,
        code: 'channel_pin_not_allowed',
      });
      await expect(chat(`${key}#!${hiChannel}`)).rejects.toMatchObject({
        status: 403,
        code: 'channel_pin_not_allowed',
      });
      expect(hi.requests).toHaveLength(0);
      expect(lo.requests).toHaveLength(0);
    });
  });

  describe('channel freeze', () => {
    it('fails over, then keeps later requests off the frozen channel for the cooldown', async () => {
      const { key } = await createToken(t, userCookie);
      await t.s.options.update({ RetryTimes: '1', RetryCooldownSeconds: '60' });
      clock.freeze();
      hi.setScenario(fakeErrors.serverError(), { times: 1 });
      expect((await chat(key)).choices[0]?.message.content).toBe('from lo');
      expect(hi.requests).toHaveLength(1);

      // hi would answer now, but the freeze is shared: the next request goes straight to the lower tier.
      expect((await chat(key)).choices[0]?.message.content).toBe('from lo');
      expect(hi.requests).toHaveLength(1);
      expect(lo.requests).toHaveLength(2);
      // The freeze is per (channel, model): another model still uses hi.
      expect((await chat(key, 'policy-other')).choices[0]?.message.content).toBe('from hi');

      clock.advance(59_000);
      expect((await chat(key)).choices[0]?.message.content).toBe('from lo');
      clock.advance(1_001);
      expect((await chat(key)).choices[0]?.message.content).toBe('from hi');
    });
  });

  describe('other endpoints and billing views', () => {
    it('relays and bills /v1/completions', async () => {
      const { key } = await createToken(t, userCookie);
      hi.setScenario({ kind: 'ok', content: 'completed text', promptTokens: 5, completionTokens: 3 });
      const before = (await userRow()).quota;
      const res = await client(key).completions.create({ model: 'policy-chat', prompt: 'Say something' });
      expect(res.choices[0]?.text).toBe('completed text');
      expect(hi.requests[0]?.endpoint).toBe('completions');
      await settled(t);
      // 5 x 2 + 3 x 4.
      expect(before - (await userRow()).quota).toBe(22);
      expect(await lastLog()).toMatchObject({ quota: 22, prompt_tokens: 5, completion_tokens: 3 });
    });

    it('relays /v1/moderations and bills the locally counted input', async () => {
      const { key } = await createToken(t, userCookie);
      const before = (await userRow()).quota;
      const res = await client(key).moderations.create({
        model: 'policy-moderation',
        input: 'I will kill the process now',
      });
      expect(res.results[0]?.flagged).toBe(true);
      await settled(t);
      const log = await lastLog();
      // The upstream reports no usage for moderations: the input is counted here, at 3 a token.
      expect(log?.model_name).toBe('policy-moderation');
      expect(log?.prompt_tokens).toBeGreaterThan(0);
      expect(log?.quota).toBe(3 * log!.prompt_tokens);
      expect(before - (await userRow()).quota).toBe(log?.quota);
      expect(metadataOf(log).estimated).toBe(true);
    });

    it('relays /v1/rerank and bills the upstream usage', async () => {
      const { key } = await createToken(t, userCookie);
      hi.setScenario({ kind: 'ok', promptTokens: 12 });
      const before = (await userRow()).quota;
      const res = await fetch(`${gateway}/rerank`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'policy-rerank',
          query: 'which fruit is red?',
          documents: ['apple', 'banana', 'cherry'],
          top_n: 2,
        }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { results: { index: number; relevance_score: number }[] };
      expect(body.results).toHaveLength(2);
      expect(body.results[0]).toMatchObject({ index: 0 });
      await settled(t);
      // 12 x 0.5.
      expect(before - (await userRow()).quota).toBe(6);
      expect(await lastLog()).toMatchObject({ quota: 6, prompt_tokens: 12, model_name: 'policy-rerank' });
    });

    /** Both billing views of a key, read under both prefixes (which must agree). */
    const billingOf = async (key: string) => {
      const site = gateway.replace(/\/v1$/, '');
      const read = async (path: string) => {
        const res = await fetch(`${site}${path}`, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status, path).toBe(200);
        return res.json();
      };
      const subscription = await read('/dashboard/billing/subscription');
      expect(await read('/v1/dashboard/billing/subscription')).toEqual(subscription);
      const usage = await read('/dashboard/billing/usage');
      expect(await read('/v1/dashboard/billing/usage')).toEqual(usage);
      return { subscription, usage };
    };
    const subscriptionOf = (usd: number, accessUntil: number) => ({
      object: 'billing_subscription',
      has_payment_method: true,
      soft_limit_usd: usd,
      hard_limit_usd: usd,
      system_hard_limit_usd: usd,
      access_until: accessUntil,
    });

    /**
     * A limited key holding $1 that expires in 30 days, and an unlimited key of an owner holding $2
     * with nothing used; each then makes one call at a times price (1000 x 5 = 5000 quota = 1 cent).
     */
    const keysWithOneCallEach = async () => {
      await t.s.repos.users.update(userId, { quota: 1_000_000, used_quota: 0 });
      await t.s.bus.publish('users');
      const expires = clock.nowSeconds() + 30 * 86400;
      const limited = await createToken(t, userCookie, {
        name: 'limited',
        unlimited_quota: false,
        remain_quota: 500_000,
        expired_time: expires,
      });
      const unlimited = await createToken(t, userCookie, { name: 'unlimited' });
      expect(await billingOf(limited.key)).toEqual({
        subscription: subscriptionOf(1, expires),
        usage: { object: 'list', total_usage: 0 },
      });
      expect(await billingOf(unlimited.key)).toEqual({
        subscription: subscriptionOf(2, 0),
        usage: { object: 'list', total_usage: 0 },
      });
      await client(limited.key).images.generate({ model: 'policy-times', prompt: 'a red fruit' });
      await client(unlimited.key).images.generate({ model: 'policy-times', prompt: 'a green fruit' });
      await settled(t);
      const token = await t.s.database.db
        .selectFrom('tokens')
        .select(['remain_quota', 'used_quota'])
        .where('id', '=', limited.id)
        .executeTakeFirst();
      expect(token).toEqual({ remain_quota: 495_000, used_quota: 5_000 });
      expect(await userRow()).toMatchObject({ quota: 990_000, used_quota: 10_000 });
      return { limited, unlimited, expires };
    };
    const restoreBalance = async () => {
      await t.s.repos.users.update(userId, { quota: 10_000_000 });
      await t.s.bus.publish('users');
    };

    it('answers the billing views from the key, or from its owner for an unlimited key', async () => {
      try {
        const { limited, unlimited, expires } = await keysWithOneCallEach();
        // The views read the key cache of the relay; past its lifetime they must show the calls
        // (right after a call they do not yet: see the skipped test below).
        clock.advance(5_001);
        // Limit = remain + used (still $1); usage = what the key used, in cents.
        expect(await billingOf(limited.key)).toEqual({
          subscription: subscriptionOf(1, expires),
          usage: { object: 'list', total_usage: 1 },
        });
        // Limit = the owner's quota + used (still $2); usage = everything the owner used.
        expect(await billingOf(unlimited.key)).toEqual({
          subscription: subscriptionOf(2, 0),
          usage: { object: 'list', total_usage: 2 },
        });
      } finally {
        await restoreBalance();
      }
    });

    it('shows a settled call in the billing views at once', async () => {
      try {
        const { limited, unlimited } = await keysWithOneCallEach();
        expect((await billingOf(limited.key)).usage).toEqual({ object: 'list', total_usage: 1 });
        expect((await billingOf(unlimited.key)).usage).toEqual({ object: 'list', total_usage: 2 });
      } finally {
        await restoreBalance();
      }
    });
  });

  describe('keys and request ids', () => {
    it('accepts the key in x-api-key instead of Authorization', async () => {
      const { key } = await createToken(t, userCookie);
      const viaHeader = new OpenAI({
        apiKey: 'unused',
        baseURL: gateway,
        maxRetries: 0,
        defaultHeaders: { authorization: null, 'x-api-key': key },
      });
      const res = await viaHeader.chat.completions.create({
        model: 'policy-chat',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(res.choices[0]?.message.content).toBe('from hi');
      expect(hi.requests[0]?.headers['x-api-key']).toBeUndefined();
      expect(hi.requests[0]?.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    });

    it('answers a request without a key with 401 missing_api_key', async () => {
      const res = await fetch(`${gateway}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'policy-chat', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(401);
      const body = (await res.json()) as { error: { code: string; message: string; type: string } };
      expect(body.error).toMatchObject({ code: 'missing_api_key', type: 'invalid_request_error' });
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f]{24}$/);
      expect(body.error.message).toContain(`(request id: ${id})`);
    });

    it('names the request id in error messages and the x-request-id header', async () => {
      const { key } = await createToken(t, userCookie);
      const err = await failureOf(
        client(key).chat.completions.create(
          { model: 'no-such-model-anywhere', messages: [{ role: 'user', content: 'hi' }] },
          { headers: { 'x-request-id': 'policy-request-0001' } },
        ),
      );
      expect(err.headers?.get('x-request-id')).toBe('policy-request-0001');
      expect(err.message).toContain('(request id: policy-request-0001)');

      const generated = await failureOf(chat('sk-not-a-key-of-ours-0000000000000000000000000000'));
      expect(generated).toMatchObject({ status: 401, code: 'invalid_api_key' });
      const id = generated.headers?.get('x-request-id');
      expect(id).toBeTruthy();
      expect(generated.message).toContain(`(request id: ${id})`);
    });
  });

  describe('upstream errors', () => {
    it('passes an upstream 400 through with its message and does not retry it elsewhere', async () => {
      const { key } = await createToken(t, userCookie);
      await t.s.options.update({ RetryTimes: '2' });
      hi.setScenario(fakeErrors.badRequest("Invalid value for 'messages': policy check."));
      const before = await userRow();
      const logsBefore = await logCount();
      const err = await failureOf(chat(key));
      expect(err).toMatchObject({ status: 400, type: 'invalid_request_error', param: 'messages' });
      expect(err.message).toContain("Invalid value for 'messages': policy check.");
      expect(hi.requests).toHaveLength(1);
      expect(lo.requests).toHaveLength(0);
      await settled(t);
      // The reserve came back and nothing was logged.
      expect((await userRow()).quota).toBe(before.quota);
      expect(await logCount()).toBe(logsBefore);
    });

    it("answers an upstream 401 with 502 (the client's key is fine) and keeps the channel enabled", async () => {
      const { key } = await createToken(t, userCookie);
      hi.setScenario(fakeErrors.invalidApiKey());
      const err = await failureOf(chat(key));
      expect(err).toMatchObject({ status: 502, code: 'upstream_auth_failed' });
      // The upstream's words about the gateway's own key are not shown to the client.
      expect(err.message).not.toContain('Incorrect API key');
      expect(hi.requests).toHaveLength(1);
      expect(await channelStatus(hiChannel)).toBe(1);
      expect(t.s.relay.tables.routing.channel(hiChannel)).toBeDefined();
      // And the channel keeps serving once the upstream is fine again.
      hi.reset();
      hi.setScenario({ kind: 'ok', content: 'from hi' });
      expect((await chat(key)).choices[0]?.message.content).toBe('from hi');
    });
  });

  describe('estimated usage', () => {
    it('counts the reply locally and marks the log estimated when the upstream sends no usage', async () => {
      const { key } = await createToken(t, userCookie);
      hi.setScenario({ kind: 'ok', content: 'several words of generated reply text', usage: 'never' });
      const before = (await userRow()).quota;
      const res = await chat(key);
      expect(res.usage).toBeUndefined();
      await settled(t);
      const log = await lastLog();
      expect(metadataOf(log).estimated).toBe(true);
      expect(log?.prompt_tokens).toBeGreaterThan(0);
      expect(log?.completion_tokens).toBeGreaterThan(0);
      expect(log?.quota).toBe(log!.prompt_tokens * 2 + log!.completion_tokens * 4);
      expect(before - (await userRow()).quota).toBe(log?.quota);
    });

    it('does the same for a stream without a usage chunk', async () => {
      const { key } = await createToken(t, userCookie);
      hi.setScenario({ kind: 'ok', content: 'streamed words without any usage', usage: 'never' });
      const stream = await client(key).chat.completions.create({
        model: 'policy-chat',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('streamed words without any usage');
      await settled(t);
      const log = await lastLog();
      expect(log?.is_stream).toBe(1);
      expect(metadataOf(log).estimated).toBe(true);
      expect(log?.completion_tokens).toBeGreaterThan(0);
    });
  });
});

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`no overdraft on ${target.engine}`, () => {
    let t: TestApp;
    let up: FakeUpstream;
    let gateway: string;
    let rootCookie: string;

    beforeAll(async () => {
      up = await startFakeUpstream({ apiKey: UPSTREAM_KEY });
      t = await createTestApp({ engine: target });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      gateway = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
      rootCookie = await t.signIn('root', ROOT_PASSWORD);
      await setPrice(t, rootCookie, 'policy-chat', 'tokens', 2, 4);
      await createChannel(t, rootCookie, {
        name: 'only',
        key: UPSTREAM_KEY,
        base_url: up.url,
        models: ['policy-chat'],
      });
      await t.s.relay.tables.reload();
      // The limit under test is money, not request rate.
      await setGroup(t, 'default', { api_rate: 0 });
    });

    afterAll(async () => {
      await t?.close();
      await up?.close();
    });

    it('never takes a user or a token below zero under 200 concurrent requests', async () => {
      const root = (await t.s.repos.users.byUsername('root'))!;
      const open = await createToken(t, rootCookie, { name: 'open' });
      const capped = await createToken(t, rootCookie, {
        name: 'capped',
        unlimited_quota: false,
        remain_quota: 2_000,
      });
      // Each call costs 10 x 2 + 200 x 4 = 820 but reserves only its prompt plus PreConsumedQuota
      // (500), so settlement must take more than was held, from a balance others are draining.
      const balance = 5_000;
      await t.s.repos.users.update(root.id, { quota: balance, used_quota: 0 });
      up.setScenario({ kind: 'ok', content: 'w', promptTokens: 10, completionTokens: 200 });
      const keys = [open.key, capped.key];
      const results = await Promise.allSettled(
        Array.from({ length: 200 }, (_, i) =>
          clientFor(gateway, keys[i % 2]!).chat.completions.create({
            model: 'policy-chat',
            messages: [{ role: 'user', content: 'hi' }],
          }),
        ),
      );
      await settled(t);

      const refusals = new Set<string>();
      for (const r of results) {
        if (r.status === 'fulfilled') continue;
        expect(r.reason).toBeInstanceOf(OpenAI.APIError);
        const err = r.reason as InstanceType<typeof OpenAI.APIError>;
        expect(err.status, err.message).toBe(403);
        refusals.add(String(err.code));
      }
      for (const code of refusals) {
        expect(['insufficient_user_quota', 'insufficient_token_quota', 'token_exhausted']).toContain(code);
      }
      const ok = results.filter((r) => r.status === 'fulfilled').length;
      expect(ok).toBeGreaterThan(0);

      const user = (await t.s.repos.users.byId(root.id))!;
      const tokens = await t.s.database.db
        .selectFrom('tokens')
        .select(['id', 'remain_quota', 'used_quota'])
        .where('id', 'in', [open.id, capped.id])
        .execute();
      const cappedRow = tokens.find((r) => r.id === capped.id)!;
      const openRow = tokens.find((r) => r.id === open.id)!;
      const logs = await t.s.database.db
        .selectFrom('logs')
        .select(['quota', 'token_id', 'metadata'])
        .where('user_id', '=', root.id)
        .where('type', '=', 2)
        .execute();
      const sum = (rows: { quota: number }[]) => rows.reduce((a, l) => a + Number(l.quota), 0);

      expect(user.quota).toBeGreaterThanOrEqual(0);
      expect(cappedRow.remain_quota).toBeGreaterThanOrEqual(0);
      // One log per delivered reply; money and records agree to the unit.
      expect(logs).toHaveLength(ok);
      expect(sum(logs)).toBe(balance - user.quota);
      expect(user.used_quota).toBe(balance - user.quota);
      const cappedLogs = logs.filter((l) => l.token_id === capped.id);
      expect(sum(cappedLogs)).toBe(2_000 - cappedRow.remain_quota);
      expect(cappedRow.used_quota).toBe(sum(cappedLogs));
      expect(openRow.used_quota).toBe(sum(logs.filter((l) => l.token_id === open.id)));
      // What could not be taken is written down, never taken below zero.
      const shortfall = logs.reduce((a, l) => a + Number(metadataOf(l).shortfall ?? 0), 0);
      expect(sum(logs) + shortfall).toBe(ok * 820);
    });
  });
}
