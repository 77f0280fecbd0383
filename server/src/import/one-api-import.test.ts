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
import { createDb } from '../db/create-db.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../test/databases.js';
import { type FakeUpstream, startFakeUpstream } from '../test/fake-upstream.js';
import { settled } from '../test/relay-fixtures.js';
import { createTestApp } from '../test/test-app.js';
import { oneApiSchema } from './testdata/old-schemas.js';

// one-api numbers channel types its own way, keeps groups in the GroupRatio option and token limits
// in columns: the same proofs as for one-hub on its schema.

// biome-ignore lint/suspicious/noExplicitAny: the old system's tables are not ours.
type OldDb = Kysely<any>;

const SECRET_KEY = 'one-api-import-secret-key-0123456789abcdef';
const KEY = 'Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5Nm7Qw9Er1Ty3';

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`import from one-api on ${target.engine}`, () => {
    let source: TestDatabase;
    let dest: TestDatabase;
    let dataDir: string;
    let up: FakeUpstream;

    beforeAll(async () => {
      up = await startFakeUpstream();
      source = await createTestDatabase(target);
      dest = await createTestDatabase(target);
      dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-import-'));
      const w = createDb(source.url, { poolSize: 1 });
      const db = w.db as unknown as OldDb;
      const b = (v: boolean) => (target.engine === 'postgres' ? v : v ? 1 : 0);
      try {
        for (const ddl of oneApiSchema(target.engine)) await sql.raw(ddl).execute(db);
        await db
          .insertInto('users')
          .values({
            id: 1,
            username: 'erin',
            password: bcrypt.hashSync('erin-old-pass', 4).replace(/^\$2b\$/, '$2a$'),
            display_name: 'Erin',
            role: 1,
            status: 1,
            email: '',
            quota: 300_000,
            used_quota: 0,
            group: 'pro',
            aff_code: 'ERIN',
            inviter_id: 0,
          })
          .execute();
        await db
          .insertInto('options')
          .values([
            { key: 'GroupRatio', value: '{"default":1,"pro":0.8}' },
            { key: 'ModelRatio', value: '{"gpt-4o-mini":0.075}' },
          ])
          .execute();
        const channel = (id: number, type: number, baseUrl: string, models = 'gpt-4o-mini') => ({
          id,
          type,
          key: `sk-one-api-${id}`,
          status: 1,
          name: `c${id}`,
          weight: 0,
          created_time: 1_700_000_000,
          base_url: baseUrl,
          models,
          group: 'default,pro',
          model_mapping: '',
          priority: 0,
          config: '{}',
          system_prompt: '',
        });
        await db
          .insertInto('channels')
          .values([channel(1, 1, up.url), channel(2, 24, '', 'gemini-1.5-flash'), channel(3, 43, '')])
          .execute();
        await db
          .insertInto('tokens')
          .values({
            id: 7,
            user_id: 1,
            key: KEY,
            status: 1,
            name: 'erin key',
            created_time: 1_700_000_000,
            accessed_time: 0,
            expired_time: -1,
            remain_quota: 0,
            unlimited_quota: b(true),
            used_quota: 0,
            models: 'gpt-4o-mini,gpt-4o',
            subnet: '127.0.0.1/32',
          })
          .execute();
      } finally {
        await w.close();
      }
    });

    afterAll(async () => {
      await up?.close();
      await source?.drop();
      await dest?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('maps types, groups and token limits; the old key and password work', async () => {
      const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: dest.url, SECRET_KEY });
      const report = await importInto(config, {
        from: 'one-api',
        source: source.url,
        dryRun: false,
        logsSince: 0,
      });
      expect(report.get('channels')).toMatchObject({ read: 3, imported: 2 });
      expect(report.get('channels')!.skipped).toEqual([
        { id: '#3', reason: 'one-api channel type 43 has no counterpart in Switchyard' },
      ]);
      expect(report.get('user groups')).toMatchObject({ read: 2, imported: 2 });
      expect(report.format()).toContain('note prices ModelRatio');

      const t = await createTestApp({ env: { DATABASE_URL: dest.url, SECRET_KEY } });
      try {
        const channels = await t.s.database.db
          .selectFrom('channels')
          .select(['id', 'type', 'base_url'])
          .orderBy('id')
          .execute();
        expect(channels).toEqual([
          { id: 1, type: 1, base_url: `${up.url}/v1` },
          { id: 2, type: 25, base_url: '' },
        ]);
        const token = await t.s.database.db
          .selectFrom('tokens')
          .selectAll()
          .where('id', '=', 7)
          .executeTakeFirstOrThrow();
        expect(token).toMatchObject({
          models: '["gpt-4o-mini","gpt-4o"]',
          subnet: '127.0.0.1/32',
          unlimited_quota: 1,
        });
        const pro = await t.s.database.db
          .selectFrom('user_groups')
          .selectAll()
          .where('symbol', '=', 'pro')
          .executeTakeFirstOrThrow();
        expect(pro.ratio).toBe(0.8);

        await t.signIn('erin', 'erin-old-pass');
        await t.app.listen({ port: 0, host: '127.0.0.1' });
        const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
        const client = new OpenAI({ apiKey: `sk-${KEY}`, baseURL: base, maxRetries: 0 });
        await client.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi' }],
        });
        await settled(t);
        expect(up.requests.map((r) => [r.authorization, r.path])).toEqual([
          ['Bearer sk-one-api-1', '/v1/chat/completions'],
        ]);
        expect((await t.s.repos.users.byId(1))!.quota).toBeLessThan(300_000);
      } finally {
        await t.close();
      }
    });
  });
}
