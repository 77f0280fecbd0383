import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, fakeAnthropicErrors, startFakeAnthropic } from '../../test/fake-anthropic.js';
import { type FakeGemini, startFakeGemini } from '../../test/fake-gemini.js';
import { type FakeUpstream, fakeErrors, startFakeUpstream } from '../../test/fake-upstream.js';
import { createChannel } from '../../test/relay-fixtures.js';
import { createTestApp, ROOT_PASSWORD, type TestApp } from '../../test/test-app.js';
import type { ChannelTestRun } from './channel-tester.js';

describe('channel tests (GET /api/channel/test)', () => {
  let t: TestApp;
  let up: FakeUpstream;
  let claude: FakeAnthropic;
  let gemini: FakeGemini;
  let root: string;

  beforeAll(async () => {
    up = await startFakeUpstream({ apiKey: 'sk-up' });
    claude = await startFakeAnthropic({ apiKey: 'sk-ant-up' });
    gemini = await startFakeGemini({ apiKey: 'AIza-up' });
    t = await createTestApp();
    root = await t.signIn('root', ROOT_PASSWORD);
  });
  afterAll(async () => {
    await t?.close();
    await up?.close();
    await claude?.close();
    await gemini?.close();
  });
  beforeEach(async () => {
    up.reset();
    await t.s.options.update({
      AutomaticDisableChannelEnabled: 'false',
      AutomaticEnableChannelEnabled: 'false',
      ChannelDisableThreshold: '5',
    });
  });

  const channel = async (fields: Record<string, unknown> = {}) =>
    (
      await createChannel(t, root, {
        name: 'c',
        key: 'sk-up',
        base_url: up.url,
        models: ['gpt-4o-mini'],
        ...fields,
      })
    )[0]!;
  const test = (id: number, model?: string) =>
    t.call({
      method: 'GET',
      url: `/api/channel/test/${id}${model ? `?model=${model}` : ''}`,
      headers: { cookie: root },
    });
  const statusOf = async (id: number) => (await t.s.repos.channels.byId(id))!.status;

  it('asks for a test model when the channel has none', async () => {
    const id = await channel();
    const res = await test(id);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Please set a test model first');
  });

  it('sends one chat request, records the response time and does not bill', async () => {
    const id = await channel({ test_model: 'gpt-4o-mini' });
    const res = await test(id);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ ok: true, model: 'gpt-4o-mini' });
    expect(up.requests[0]?.path).toBe('/v1/chat/completions');
    const row = await t.s.repos.channels.byId(id);
    expect(row!.test_time).toBeGreaterThan(0);
    expect(row!.response_time).toBeGreaterThanOrEqual(0);
    expect(await t.s.database.db.selectFrom('logs').select('id').execute()).toHaveLength(0);
  });

  it('disables a slow channel only when automatic disabling is on', async () => {
    const id = await channel({ test_model: 'gpt-4o-mini' });
    await t.s.options.update({ ChannelDisableThreshold: '0.2' });
    up.setScenario({ kind: 'ok', firstByteDelayMs: 400 });
    expect((await test(id)).json().data.statusChange).toBeUndefined();
    expect(await statusOf(id)).toBe(1);
    await t.s.options.update({ AutomaticDisableChannelEnabled: 'true' });
    up.setScenario({ kind: 'ok', firstByteDelayMs: 400 });
    expect((await test(id)).json().data.statusChange).toBe('disabled');
    expect(await statusOf(id)).toBe(3);
  });

  it('disables on a refused key and re-enables only auto-disabled channels on success', async () => {
    await t.s.options.update({
      AutomaticDisableChannelEnabled: 'true',
      AutomaticEnableChannelEnabled: 'true',
    });
    const auto = await channel({ test_model: 'gpt-4o-mini' });
    up.setScenario(fakeErrors.invalidApiKey(), { times: 1 });
    const failed = await test(auto);
    expect(failed.json().data).toMatchObject({ ok: false, statusChange: 'disabled' });
    expect(await statusOf(auto)).toBe(3);
    expect((await test(auto)).json().data.statusChange).toBe('enabled');
    expect(await statusOf(auto)).toBe(1);

    const manual = await channel({ test_model: 'gpt-4o-mini' });
    await t.s.repos.channels.update(manual, { status: 2 });
    await test(manual);
    expect(await statusOf(manual)).toBe(2);
  });

  it('tests every channel in the background, one run at a time', async () => {
    await channel({ test_model: 'gpt-4o-mini' });
    up.setScenario({ kind: 'ok', firstByteDelayMs: 100 });
    const first = await t.call({ method: 'GET', url: '/api/channel/test', headers: { cookie: root } });
    expect(first.statusCode).toBe(200);
    const second = await t.call({ method: 'GET', url: '/api/channel/test', headers: { cookie: root } });
    expect(second.statusCode).toBe(409);
    await t.s.relay.testRun.settled();
    const report = (t.s.relay.testRun as ChannelTestRun).lastReport!;
    const enabled = (await t.s.repos.channels.allLive()).filter((c) => c.status === 1 || c.status === 3);
    expect(report.results.map((r) => r.id).sort()).toEqual(enabled.map((c) => c.id).sort());
  });

  it('tests Anthropic and Gemini channels in their own wire formats and reads their errors', async () => {
    const anthropic = await channel({
      type: 14,
      key: 'sk-ant-up',
      base_url: claude.url,
      models: ['claude-test'],
      test_model: 'claude-test',
    });
    expect((await test(anthropic)).json().data).toMatchObject({ ok: true, model: 'claude-test' });
    expect(claude.requests[0]).toMatchObject({ path: '/v1/messages', apiKey: 'sk-ant-up' });
    expect(claude.requests[0]?.json).toMatchObject({ model: 'claude-test', max_tokens: 8192 });
    claude.setScenario(fakeAnthropicErrors.overloaded(), { times: 1 });
    expect((await test(anthropic)).json().data).toMatchObject({ ok: false, message: 'Overloaded' });

    const google = await channel({
      type: 25,
      key: 'AIza-up',
      base_url: gemini.url,
      models: ['gemini-test'],
      test_model: 'gemini-test',
    });
    expect((await test(google)).json().data).toMatchObject({ ok: true });
    expect(gemini.requests[0]).toMatchObject({
      model: 'gemini-test',
      action: 'generateContent',
      apiKey: 'AIza-up',
    });
  });
});
