import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { type Kysely, sql } from 'kysely';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importInto } from '../cli/import-command.js';
import { loadConfig } from '../config.js';
import { createDb, type Database } from '../db/create-db.js';
import type { DialectName } from '../db/dialect.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../test/databases.js';
import { type FakeUpstream, startFakeUpstream } from '../test/fake-upstream.js';
import { settled } from '../test/relay-fixtures.js';
import { createTestApp, registerUser, type TestApp } from '../test/test-app.js';
import type { ImportReport } from './report.js';
import { openSource } from './source.js';
import { oneHubSchema } from './testdata/old-schemas.js';

// A filled one-hub database (its GORM tables on the same engine), imported into a fresh gateway
// database; then the gateway runs on it and the old key, password, channel and code still work.

// biome-ignore lint/suspicious/noExplicitAny: the old system's tables are not ours.
type OldDb = Kysely<any>;

const SECRET_KEY = 'import-test-secret-key-0123456789abcdef';
const ALICE_KEY = 'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5kL7nP9rS1tU3'; // 48 characters, as one-hub stores it
const CAROL_KEY = 'Zy8Xw6Vu4Ts2Rq0Po8Nm6Lk4Ji2Hg0Fe8Dc6Ba4Zy2Xw0Vu8';
const CODE_UNUSED = '0123456789abcdef0123456789abcdef';
const CODE_USED = 'fedcba9876543210fedcba9876543210';

function deletedAt(engine: DialectName): string {
  return engine === 'mysql' ? '2024-05-01 10:00:00.000' : '2024-05-01T10:00:00Z';
}

async function fillOneHub(db: OldDb, engine: DialectName, upstream: string) {
  for (const ddl of oneHubSchema(engine)) await sql.raw(ddl).execute(db);
  const b = (v: boolean) => (engine === 'postgres' ? v : v ? 1 : 0);
  // Go's bcrypt writes $2a$.
  const hash = (p: string) => bcrypt.hashSync(p, 4).replace(/^\$2b\$/, '$2a$');
  const user = (id: number, username: string, role: number, extra: Record<string, unknown> = {}) => ({
    id,
    username,
    password: hash(`${username}-old-pass`),
    display_name: username.toUpperCase(),
    role,
    status: 1,
    email: `${username}@example.com`,
    avatar_url: '',
    oidc_id: '',
    github_id: '',
    github_id_new: 0,
    wechat_id: '',
    telegram_id: 0,
    lark_id: '',
    access_token: null,
    quota: 1_000_000,
    used_quota: 0,
    request_count: 0,
    group: 'default',
    aff_code: `AFF${id}`,
    inviter_id: 0,
    created_time: 1_700_000_000 + id,
    ...extra,
  });
  await db
    .insertInto('users')
    .values([
      user(1, 'root', 100),
      user(2, 'alice', 1, {
        group: 'vip',
        quota: 500_000,
        used_quota: 1234,
        github_id: 'gh-alice',
        access_token: 'a'.repeat(32),
        aff_quota: 50,
      }),
      user(3, 'bob', 1, { inviter_id: 2, deleted_at: deletedAt(engine), aff_code: 'AFF3' }),
      user(4, 'carol', 10, { aff_code: '' }),
    ])
    .execute();
  await db
    .insertInto('user_groups')
    .values([
      { symbol: 'default', name: 'Default', ratio: 1, api_rate: 600, public: b(true), enable: b(true) },
      { symbol: 'vip', name: 'VIP', ratio: 0.5, api_rate: 300, public: b(false), enable: b(true) },
    ])
    .execute();
  await db
    .insertInto('options')
    .values([
      { key: 'QuotaForNewUser', value: '4321' },
      { key: 'SystemName', value: 'Old Hub' },
      { key: 'SomethingOnlyOneHubHas', value: 'x' },
      { key: 'QuotaPerUnit', value: 'not a number' },
    ])
    .execute();
  await db
    .insertInto('prices')
    .values([
      {
        model: 'gpt-4o-mini',
        type: 'tokens',
        channel_type: 1,
        input: 2,
        output: 4,
        locked: b(true),
        extra_ratios: null,
      },
      {
        model: 'odd-model',
        type: 'weird',
        channel_type: 1,
        input: 1,
        output: 1,
        locked: b(false),
        extra_ratios: null,
      },
    ])
    .execute();
  await db.insertInto('model_ownedby').values({ id: 1001, name: 'MyLab', icon: '' }).execute();
  const channel = (id: number, type: number, baseUrl: string, extra: Record<string, unknown> = {}) => ({
    id,
    type,
    key: `sk-upstream-${id}`,
    status: 1,
    name: `channel-${id}`,
    weight: 1,
    created_time: 1_700_000_100,
    test_time: 0,
    response_time: 0,
    base_url: baseUrl,
    other: '',
    balance: 0,
    balance_updated_time: 0,
    models: 'gpt-4o-mini',
    group: 'default,vip',
    tag: '',
    used_quota: 0,
    model_mapping: '',
    priority: 0,
    only_chat: b(false),
    pre_cost: 1,
    ...extra,
  });
  await db
    .insertInto('channels')
    .values([
      // one-hub stores a host; it calls <host>/v1/chat/completions.
      channel(1, 1, upstream, { tag: 'main', priority: 5, weight: 3 }),
      // With a path it calls <base>/v1/chat/completions too.
      channel(2, 1, `${upstream}/proxy`, { model_mapping: JSON.stringify({ 'gpt-4o-mini': 'gpt-4o-mini' }) }),
      channel(3, 999, upstream),
      channel(4, 14, '', { models: 'claude-3-5-haiku', status: 2 }),
    ])
    .execute();
  const token = (id: number, userId: number, key: string, extra: Record<string, unknown> = {}) => ({
    id,
    user_id: userId,
    key,
    status: 1,
    name: `token-${id}`,
    created_time: 1_700_000_200,
    accessed_time: 0,
    expired_time: -1,
    remain_quota: 0,
    unlimited_quota: b(true),
    used_quota: 0,
    group: '',
    ...extra,
  });
  await db
    .insertInto('tokens')
    .values([
      token(1, 2, ALICE_KEY, {
        unlimited_quota: b(false),
        remain_quota: 200_000,
        setting: JSON.stringify({
          limits: {
            limit_model_setting: { enabled: true, models: ['gpt-4o-mini'] },
            limits_ip_setting: { enabled: false, whitelist: [] },
          },
        }),
      }),
      token(2, 4, CAROL_KEY),
      token(3, 99, 'x'.repeat(48)),
    ])
    .execute();
  await db
    .insertInto('redemptions')
    .values([
      {
        id: 1,
        user_id: 1,
        key: CODE_UNUSED,
        status: 1,
        name: 'gift',
        quota: 7000,
        created_time: 1_700_000_300,
        redeemed_time: 0,
      },
      {
        id: 2,
        user_id: 1,
        key: CODE_USED,
        status: 3,
        name: 'gift',
        quota: 7000,
        created_time: 1_700_000_300,
        redeemed_time: 1_700_000_400,
      },
    ])
    .execute();
  const log = (id: number, createdAt: number) => ({
    id,
    user_id: 2,
    created_at: createdAt,
    type: 2,
    content: 'old consume',
    username: 'alice',
    token_name: 'token-1',
    model_name: 'gpt-4o-mini',
    quota: 100,
    prompt_tokens: 10,
    completion_tokens: 5,
    channel_id: 1,
    request_time: 800,
    is_stream: b(true),
    source_ip: '10.0.0.1',
    metadata: JSON.stringify({ cached: 1 }),
  });
  // 2023-11-14 and 2024-06-01: `--logs since=2024-01-01` takes only the later two.
  await db
    .insertInto('logs')
    .values([log(1, 1_700_000_000), log(2, 1_717_200_000), log(3, 1_717_300_000)])
    .execute();
  const day = (date: string, quota: number) => ({
    date,
    user_id: 2,
    channel_id: 1,
    model_name: 'gpt-4o-mini',
    request_count: 3,
    quota,
    prompt_tokens: 30,
    completion_tokens: 15,
    request_time: 2400,
  });
  await db
    .insertInto('statistics')
    .values([day('2023-11-14', 300), day('2024-06-01', 600)])
    .execute();
}

const count = async (db: Database, table: string) => {
  const r = await (db.db as unknown as OldDb)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
};

// What the filled database gives: the dry run's report and the real run's are the same.
const EXPECTED = {
  users: { read: 4, imported: 4, present: 0, skipped: 0 },
  'user groups': { read: 2, imported: 2, present: 0, skipped: 0 },
  options: { read: 4, imported: 2, present: 0, skipped: 2 },
  prices: { read: 2, imported: 1, present: 0, skipped: 1 },
  'model owners': { read: 1, imported: 1, present: 0, skipped: 0 },
  channels: { read: 4, imported: 3, present: 0, skipped: 1 },
  tokens: { read: 3, imported: 2, present: 0, skipped: 1 },
  redemptions: { read: 2, imported: 2, present: 0, skipped: 0 },
  logs: { read: 2, imported: 2, present: 0, skipped: 0 },
  statistics: { read: 2, imported: 2, present: 0, skipped: 0 },
};

function summary(report: ImportReport) {
  return Object.fromEntries(
    report.steps.map((s) => [
      s.name,
      { read: s.read, imported: s.imported, present: s.present, skipped: s.skipped.length },
    ]),
  );
}

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`import from one-hub on ${target.engine}`, () => {
    let source: TestDatabase;
    let dest: TestDatabase;
    let dataDir: string;
    let up: FakeUpstream;
    let t: TestApp | undefined;
    const config = () => loadConfig({ DATA_DIR: dataDir, DATABASE_URL: dest.url, SECRET_KEY: SECRET_KEY });
    const args = (extra: { dryRun?: boolean; logsSince?: number } = {}) => ({
      from: 'one-hub' as const,
      source: source.url,
      dryRun: extra.dryRun ?? false,
      logsSince: extra.logsSince,
    });

    beforeAll(async () => {
      up = await startFakeUpstream();
      source = await createTestDatabase(target);
      dest = await createTestDatabase(target);
      dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-import-'));
      const writable = createDb(source.url, { poolSize: 1 });
      try {
        await fillOneHub(writable.db as unknown as OldDb, target.engine, up.url);
      } finally {
        await writable.close();
      }
    });

    afterAll(async () => {
      await t?.close();
      await up?.close();
      await source?.drop();
      await dest?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('a dry run reports counts and every row it cannot map, and writes no row', async () => {
      const report = await importInto(
        config(),
        args({ dryRun: true, logsSince: Date.UTC(2024, 0, 1) / 1000 }),
      );
      expect(summary(report)).toEqual(EXPECTED);
      const text = report.format();
      expect(text).toContain('dry run');
      expect(text).toContain(
        'skipped channels #3: one-hub channel type 999 has no counterpart in Switchyard',
      );
      expect(text).toContain('skipped tokens #3: its user #99 is not imported');
      expect(text).toContain('skipped options SomethingOnlyOneHubHas: no counterpart option');
      expect(text).toMatch(/skipped options QuotaPerUnit: QuotaPerUnit /);
      expect(text).toContain('skipped prices odd-model: price type weird');
      expect(text).toContain('note users #2: unclaimed invitation reward 50 not carried over');
      const db = createDb(dest.url, { poolSize: 1 });
      try {
        for (const table of ['users', 'tokens', 'channels', 'redemptions', 'logs', 'options', 'user_groups'])
          expect(await count(db, table), table).toBe(0);
      } finally {
        await db.close();
      }
    });

    it('imports every mappable row, and the counts match the old database', async () => {
      const report = await importInto(config(), args({ logsSince: Date.UTC(2024, 0, 1) / 1000 }));
      expect(report.dryRun).toBe(false);
      expect(summary(report)).toEqual(EXPECTED);
      const db = createDb(dest.url, { poolSize: 1 });
      try {
        // Read from the old database minus the rows reported as unmappable.
        expect(await count(db, 'users')).toBe(4);
        expect(await count(db, 'channels')).toBe(3);
        expect(await count(db, 'tokens')).toBe(2);
        expect(await count(db, 'redemptions')).toBe(2);
        expect(await count(db, 'logs')).toBe(2);
        expect(await count(db, 'user_groups')).toBe(2);
        expect(await count(db, 'options')).toBe(2);
        expect(await count(db, 'prices')).toBe(1);
        const days = await db.db.selectFrom('statistics').select(['date', 'quota']).orderBy('date').execute();
        expect(days).toEqual([
          { date: '2023-11-14', quota: 300 },
          { date: '2024-06-01', quota: 600 },
        ]);
        for (const s of report.steps) expect(s.read - s.skipped.length - s.present, s.name).toBe(s.imported);
        const bob = await db.db.selectFrom('users').selectAll().where('id', '=', 3).executeTakeFirstOrThrow();
        expect(bob.deleted_at).toBe(Date.UTC(2024, 4, 1, 10) / 1000);
        expect(bob.inviter_id).toBe(2);
        const alice = await db.db
          .selectFrom('users')
          .selectAll()
          .where('id', '=', 2)
          .executeTakeFirstOrThrow();
        expect(alice).toMatchObject({
          group: 'vip',
          quota: 500_000,
          used_quota: 1234,
          aff_code: 'AFF2',
          github_id: 'gh-alice',
        });
        expect(alice.password_hash.startsWith('$2a$')).toBe(true);
        const carol = await db.db
          .selectFrom('users')
          .selectAll()
          .where('id', '=', 4)
          .executeTakeFirstOrThrow();
        expect(carol.aff_code).toMatch(/^[A-Za-z0-9]{8}$/);
        const ch1 = await db.db
          .selectFrom('channels')
          .selectAll()
          .where('id', '=', 1)
          .executeTakeFirstOrThrow();
        expect(ch1).toMatchObject({
          base_url: `${up.url}/v1`,
          tag: 'main',
          priority: 5,
          weight: 3,
          group: 'default,vip',
        });
        expect(ch1.key_sealed).not.toContain('sk-upstream-1');
        const ch4 = await db.db
          .selectFrom('channels')
          .selectAll()
          .where('id', '=', 4)
          .executeTakeFirstOrThrow();
        expect(ch4).toMatchObject({ type: 14, base_url: '', status: 2 });
        const tok = await db.db
          .selectFrom('tokens')
          .selectAll()
          .where('id', '=', 1)
          .executeTakeFirstOrThrow();
        expect(tok.key_sealed).not.toContain(ALICE_KEY);
        expect(tok.models).toBe('["gpt-4o-mini"]');
        const vip = await db.db
          .selectFrom('user_groups')
          .selectAll()
          .where('symbol', '=', 'vip')
          .executeTakeFirstOrThrow();
        expect(vip).toMatchObject({ ratio: 0.5, api_rate: 300, public: 0, enable: 1 });
      } finally {
        await db.close();
      }
    });

    it('a second run creates nothing twice', async () => {
      const report = await importInto(config(), args({ logsSince: Date.UTC(2024, 0, 1) / 1000 }));
      for (const s of report.steps) expect(s.imported, s.name).toBe(0);
      expect(report.get('users')!.present).toBe(4);
      expect(report.get('tokens')!.present).toBe(2);
      expect(report.get('logs')!.present).toBe(2);
      // Widening the log window resumes: only the older row is new.
      const wider = await importInto(config(), args({ logsSince: 0 }));
      expect(wider.get('logs')).toMatchObject({ read: 3, imported: 1, present: 2 });
      const db = createDb(dest.url, { poolSize: 1 });
      try {
        expect(await count(db, 'users')).toBe(4);
        expect(await count(db, 'tokens')).toBe(2);
        expect(await count(db, 'logs')).toBe(3);
      } finally {
        await db.close();
      }
    });

    it('on the imported database: the old key calls a model and is billed, through the same upstream URL', async () => {
      t = await createTestApp({ env: { DATABASE_URL: dest.url, SECRET_KEY } });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
      const before = (await t.s.repos.users.byId(2))!;
      for (const apiKey of [`sk-${ALICE_KEY}`, ALICE_KEY]) {
        const client = new OpenAI({ apiKey, baseURL: base, maxRetries: 0 });
        const res = await client.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hello' }],
        });
        expect(res.choices[0]?.message.content).toBe('Hello from the fake upstream.');
      }
      await settled(t);
      const after = (await t.s.repos.users.byId(2))!;
      expect(after.quota).toBeLessThan(before.quota);
      expect(after.used_quota - before.used_quota).toBe(before.quota - after.quota);
      const token = await t.s.database.db
        .selectFrom('tokens')
        .selectAll()
        .where('id', '=', 1)
        .executeTakeFirstOrThrow();
      expect(Number(token.remain_quota)).toBe(200_000 - (before.quota - after.quota));
      // Each request reached the URL one-hub would have called for the channel that served it.
      expect(up.requests).toHaveLength(2);
      for (const r of up.requests) {
        const expected =
          r.authorization === 'Bearer sk-upstream-1' ? '/v1/chat/completions' : '/proxy/v1/chat/completions';
        expect(r.authorization).toMatch(/^Bearer sk-upstream-[12]$/);
        expect(r.path).toBe(expected);
      }
      // An administrator's old key pins each channel: both URLs as before.
      up.reset();
      for (const id of [1, 2]) {
        const client = new OpenAI({ apiKey: `sk-${CAROL_KEY}#${id}`, baseURL: base, maxRetries: 0 });
        await client.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi' }],
        });
      }
      expect(up.requests.map((r) => [r.authorization, r.path])).toEqual([
        ['Bearer sk-upstream-1', '/v1/chat/completions'],
        ['Bearer sk-upstream-2', '/proxy/v1/chat/completions'],
      ]);
    });

    it('a user signs in with the old password, which is then stored as argon2id', async () => {
      const cookie = await t!.signIn('alice', 'alice-old-pass');
      expect(cookie).toMatch(/^sy_session=/);
      const row = (await t!.s.repos.users.byId(2))!;
      expect(row.password_hash.startsWith('$argon2id$')).toBe(true);
      await t!.signIn('alice', 'alice-old-pass');
      const wrong = await t!.call({
        method: 'POST',
        url: '/api/user/login',
        payload: { username: 'root', password: 'nope' },
      });
      expect(wrong.statusCode).toBe(401);
      // An unused code stays redeemable; a used one does not.
      const before = (await t!.s.repos.users.byId(2))!.quota;
      const ok = await t!.call({
        method: 'POST',
        url: '/api/user/topup',
        headers: { cookie },
        payload: { key: CODE_UNUSED },
      });
      expect(ok.statusCode, ok.body).toBe(200);
      expect((await t!.s.repos.users.byId(2))!.quota).toBe(before + 7000);
      const used = await t!.call({
        method: 'POST',
        url: '/api/user/topup',
        headers: { cookie },
        payload: { key: CODE_USED },
      });
      expect(used.statusCode).not.toBe(200);
      // New rows get ids after the imported ones (PostgreSQL's identity counters were moved).
      const newId = await registerUser(t!, 'dave');
      expect(newId).toBeGreaterThan(4);
    });

    it('never writes to the source', async () => {
      const src = openSource(source.url);
      try {
        await expect(
          src.db.insertInto('options').values({ key: 'Written', value: '1' }).execute(),
        ).rejects.toThrow(/read.?only|readonly/i);
      } finally {
        await src.close();
      }
    });
  });
}

describe('import into a database the gateway already uses', () => {
  it("never gives an old user's id, or its tokens, to a different user of the target", async () => {
    const up = await startFakeUpstream();
    const sqlite = engineTargets()[0]!;
    const source = await createTestDatabase(sqlite);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-import-'));
    const dest = `sqlite:${path.join(dataDir, 'target.db')}`;
    const writable = createDb(source.url, { poolSize: 1 });
    await fillOneHub(writable.db as unknown as OldDb, 'sqlite', up.url);
    await writable.close();
    // The gateway started first: root is user 1, and zed signed up as user 2.
    const t = await createTestApp({ env: { DATABASE_URL: dest, SECRET_KEY } });
    try {
      expect(await registerUser(t, 'zed')).toBe(2);
      const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: dest, SECRET_KEY });
      const report = await importInto(config, {
        from: 'one-hub',
        source: source.url,
        dryRun: false,
        logsSince: undefined,
      });
      const users = report.get('users')!;
      expect(users).toMatchObject({ read: 4, imported: 2, present: 1 });
      expect(users.skipped).toEqual([{ id: '#2', reason: 'id 2 is taken by user zed in the target' }]);
      expect(report.get('tokens')!.skipped).toContainEqual({
        id: '#1',
        reason: 'its user #2 is not imported',
      });
      const zed = await t.s.database.db.selectFrom('tokens').select('id').where('user_id', '=', 2).execute();
      expect(zed).toEqual([]);
    } finally {
      await t.close();
      await up.close();
      await source.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
