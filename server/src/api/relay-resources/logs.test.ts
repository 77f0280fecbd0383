import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewLog } from '../../db/queries/logs.js';
import { createTestApp, ROOT_PASSWORD, registerUser, type TestApp } from '../../test/test-app.js';

interface LogJson {
  id: number;
  type: number;
  user_id: number;
  username: string;
  model_name: string;
  token_name: string;
  quota: number;
  source_ip: string;
  channel_id?: number;
  channel?: { id: number; name: string } | null;
  is_stream: boolean;
  metadata: Record<string, unknown>;
}

describe('logs API', () => {
  let t: TestApp;
  let root: string;
  let dave: string;
  let daveId: number;
  let eveId: number;
  let channelId: number;

  const as =
    (cookie: string) =>
    async (url: string, method: InjectOptions['method'] = 'GET') => {
      const res = await t.call({ method, url, headers: { cookie } });
      return res;
    };
  const data = async (cookie: string, url: string) => {
    const res = await as(cookie)(url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };
  const log = (over: Partial<NewLog>): NewLog => ({
    user_id: daveId,
    created_at: 1_700_000_000,
    type: 2,
    content: '',
    username: 'dave',
    token_id: 1,
    token_name: 'laptop',
    model_name: 'gpt-4o',
    quota: 100,
    prompt_tokens: 10,
    completion_tokens: 20,
    channel_id: channelId,
    request_time: 300,
    first_response_time: 120,
    is_stream: 1,
    source_ip: '203.0.113.5',
    group: 'default',
    metadata: '{"group_ratio":1}',
    ...over,
  });

  beforeAll(async () => {
    t = await createTestApp();
    root = await t.signIn('root', ROOT_PASSWORD);
    daveId = await registerUser(t, 'dave');
    eveId = await registerUser(t, 'eve');
    dave = await t.signIn('dave', 'password-123');
    const ch = await t.call({
      method: 'POST',
      url: '/api/channel/',
      headers: { cookie: root },
      payload: { type: 1, name: 'upstream-a', key: 'k', models: ['gpt-4o'], group: ['default'] },
    });
    channelId = ch.json().data[0].id;
    const L = t.s.repos.logs;
    await L.insert(log({ created_at: 1_700_000_000, quota: 100 }));
    await L.insert(
      log({ created_at: 1_700_000_100, quota: 200, model_name: 'claude-x', token_name: 'phone' }),
    );
    await L.insert(log({ created_at: 1_700_000_200, quota: 50, type: 1, content: 'Top-up', channel_id: 0 }));
    await L.insert(
      log({
        created_at: 1_700_000_300,
        quota: 400,
        user_id: eveId,
        username: 'eve',
        source_ip: '198.51.100.1',
      }),
    );
  });
  afterAll(async () => t?.close());

  it('lists every log for administrators with the channel and all filters', async () => {
    const all = await data(root, '/api/log/');
    expect(all.total_count).toBe(4);
    const rows = all.data as LogJson[];
    expect(rows.map((r) => r.username)).toEqual(['eve', 'dave', 'dave', 'dave']);
    expect(rows[1]).toMatchObject({ type: 1, channel: null });
    expect(rows[0]).toMatchObject({
      channel_id: channelId,
      channel: { id: channelId, name: 'upstream-a' },
      is_stream: true,
      metadata: { group_ratio: 1 },
    });
    const count = async (q: string) => (await data(root, `/api/log/?${q}`)).total_count;
    expect(await count('log_type=2')).toBe(3);
    expect(await count('log_type=0')).toBe(4);
    expect(await count('username=dave')).toBe(3);
    expect(await count('model_name=claude-x')).toBe(1);
    expect(await count('token_name=phone')).toBe(1);
    expect(await count(`channel_id=${channelId}`)).toBe(3);
    expect(await count('source_ip=198.51.100.1')).toBe(1);
    expect(await count('start_timestamp=1700000100&end_timestamp=1700000200')).toBe(2);
    expect(await count('username=dave&log_type=2&start_timestamp=1700000050')).toBe(1);
    expect(await count('username=&model_name=')).toBe(4);
    const ordered = await data(root, '/api/log/?order=-channel_id,created_at');
    expect((ordered.data as LogJson[]).at(-1)?.type).toBe(1);
    expect((await as(root)('/api/log/?order=quota')).statusCode).toBe(400);
    expect((await as(root)('/api/log/?log_type=abc')).statusCode).toBe(400);
  });

  it("shows users their own logs only, without channels or other users' filters", async () => {
    const own = await data(dave, '/api/log/self/');
    expect(own.total_count).toBe(3);
    const rows = own.data as LogJson[];
    for (const r of rows) {
      expect(r.user_id).toBe(daveId);
      expect(r).not.toHaveProperty('channel_id');
      expect(r).not.toHaveProperty('channel');
    }
    expect(JSON.stringify(rows)).not.toContain('upstream-a');
    // Filters that would reach other users' or channel data are not read.
    expect((await data(dave, '/api/log/self/?username=eve')).total_count).toBe(3);
    expect((await data(dave, `/api/log/self/?channel_id=${channelId + 1}`)).total_count).toBe(3);
    expect((await data(dave, '/api/log/self/?source_ip=198.51.100.1')).total_count).toBe(3);
    expect((await data(dave, '/api/log/self/?model_name=claude-x')).total_count).toBe(1);
    expect((await data(dave, '/api/log/self/?log_type=1')).total_count).toBe(1);
    expect((await as(dave)('/api/log/self/?order=channel_id')).statusCode).toBe(400);
    expect((await as(dave)('/api/log/')).statusCode).toBe(403);
  });

  it('sums the quota of consume logs for the filter', async () => {
    expect(await data(root, '/api/log/stat')).toEqual({ quota: 700 });
    expect(await data(root, '/api/log/stat?username=dave')).toEqual({ quota: 300 });
    expect(await data(root, `/api/log/stat?channel=${channelId}&model_name=gpt-4o`)).toEqual({ quota: 500 });
    expect(await data(root, '/api/log/stat?start_timestamp=1700000100')).toEqual({ quota: 600 });
    expect(await data(dave, '/api/log/self/stat')).toEqual({ quota: 300 });
    expect(await data(dave, '/api/log/self/stat?token_name=phone')).toEqual({ quota: 200 });
    expect(await data(dave, '/api/log/self/stat?username=eve')).toEqual({ quota: 300 });
  });

  it('deletes consume logs older than a time, keeps the others, and records it', async () => {
    expect((await as(root)('/api/log/', 'DELETE')).statusCode).toBe(400);
    const res = await as(root)('/api/log/?target_timestamp=1700000250', 'DELETE');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toBe(2);
    const left = (await data(root, '/api/log/')).data as LogJson[];
    expect(left.map((r) => [r.username, r.type])).toEqual([
      ['eve', 2],
      ['dave', 1],
    ]);
    const [last] = await t.s.repos.auditLogs.recent(1);
    expect(last).toMatchObject({ action: 'log.delete', target_id: 'before:1700000250' });
    expect(JSON.parse(last!.detail)).toEqual({ deleted: 2 });
  });

  it('lists the settlements the database refused to administrators only, newest first', async () => {
    const letter = (id: number, charged: number) => ({
      created_at: 1_700_000_000 + id,
      user_id: daveId,
      token_id: 1,
      channel_id: channelId,
      reserved: 1000,
      final_quota: 700,
      charged,
      error: 'invalid byte sequence for encoding "UTF8": 0x00',
      log: JSON.stringify({ model_name: 'gpt\u00004o', user_id: daveId }),
    });
    await t.s.database.db
      .insertInto('settlement_dead_letters')
      .values([letter(1, 1), letter(2, 0)])
      .execute();
    const page = await data(root, '/api/log/dead_letters?size=10');
    expect(page.total_count).toBe(2);
    expect(
      page.data.map((r: { charged: boolean; final_quota: number }) => [r.charged, r.final_quota]),
    ).toEqual([
      [false, 700],
      [true, 700],
    ]);
    expect(page.data[0].log).toEqual({ model_name: 'gpt\u00004o', user_id: daveId });
    expect((await as(dave)('/api/log/dead_letters')).statusCode).toBe(403);
    expect((await as(root)('/api/log/dead_letters?order=error')).statusCode).toBe(400);
  });
});
