import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engineTargets, type TestDatabase } from '../test/databases.js';
import { createDb, type Database } from './create-db.js';
import {
  insertIgnore,
  insertReturningId,
  isUniqueViolation,
  mysqlVersionProblem,
  toNumber,
  upsert,
} from './dialect.js';
import { migrateToLatest } from './migrations/index.js';

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`dialect differences on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;
    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url);
      await migrateToLatest(d.db, d.dialect);
    });
    afterAll(async () => {
      await d?.close();
      await testDb?.drop();
    });

    it('returns the new id from an insert', async () => {
      const values = (symbol: string) => ({
        symbol,
        name: symbol,
        ratio: 1,
        api_rate: 60,
        public: 0,
        enable: 1,
      });
      const a = await insertReturningId(d.dialect, d.db.insertInto('user_groups').values(values('a')));
      const b = await insertReturningId(d.dialect, d.db.insertInto('user_groups').values(values('b')));
      expect(typeof a).toBe('number');
      expect(b).toBe(a + 1);
    });

    it('skips duplicates with insertIgnore and updates them with upsert', async () => {
      const row = { key: 'K', value: 'one', updated_at: 1 };
      await insertIgnore(d.dialect, d.db.insertInto('options').values(row)).execute();
      await insertIgnore(d.dialect, d.db.insertInto('options').values({ ...row, value: 'two' })).execute();
      expect(
        (await d.db.selectFrom('options').select('value').where('key', '=', 'K').executeTakeFirst())?.value,
      ).toBe('one');
      await upsert(d.dialect, d.db.insertInto('options').values({ ...row, value: 'three' }), ['key'], {
        value: 'three',
        updated_at: 2,
      }).execute();
      const after = await d.db.selectFrom('options').selectAll().where('key', '=', 'K').execute();
      expect(after).toEqual([{ key: 'K', value: 'three', updated_at: 2 }]);
    });

    it('recognises a unique violation', async () => {
      const row = { symbol: 'dup', name: 'x', ratio: 1, api_rate: 1, public: 0, enable: 1 };
      await d.db.insertInto('user_groups').values(row).execute();
      const err = await d.db
        .insertInto('user_groups')
        .values(row)
        .execute()
        .catch((e: unknown) => e);
      expect(isUniqueViolation(err)).toBe(true);
      expect(isUniqueViolation(new Error('other'))).toBe(false);
    });

    it('hands back bigint columns and aggregates as numbers', async () => {
      const big = 9_000_000_000_123; // beyond 32 bits, inside 2^53
      await d.db
        .insertInto('statistics')
        .values([
          {
            date: '2026-01-01',
            user_id: 1,
            channel_id: 1,
            model_name: 'm',
            request_count: 1,
            quota: big,
            prompt_tokens: 0,
            completion_tokens: 0,
            request_time: 0,
          },
          {
            date: '2026-01-02',
            user_id: 1,
            channel_id: 1,
            model_name: 'm',
            request_count: 2,
            quota: 7,
            prompt_tokens: 0,
            completion_tokens: 0,
            request_time: 0,
          },
        ])
        .execute();
      const row = await d.db
        .selectFrom('statistics')
        .select('quota')
        .where('date', '=', '2026-01-01')
        .executeTakeFirstOrThrow();
      expect(row.quota).toBe(big);
      const agg = await d.db
        .selectFrom('statistics')
        .select((eb) => [eb.fn.sum<number>('quota').as('total'), eb.fn.countAll<number>().as('n')])
        .executeTakeFirstOrThrow();
      expect(toNumber(agg.total)).toBe(big + 7);
      expect(toNumber(agg.n)).toBe(2);
    });

    it('quotes reserved words used as column names (group, key)', async () => {
      const res = await sql<{
        n: number;
      }>`select count(*) as n from ${sql.table('options')} where ${sql.ref('key')} = ${'K'}`.execute(d.db);
      expect(toNumber(res.rows[0]?.n)).toBe(1);
      await d.db
        .insertInto('logs')
        .values({
          user_id: 1,
          created_at: 1,
          type: 2,
          content: '',
          username: 'u',
          token_id: 0,
          token_name: '',
          model_name: 'm',
          quota: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
          channel_id: 0,
          request_time: 0,
          first_response_time: 0,
          is_stream: 0,
          source_ip: '',
          group: 'vip',
          metadata: '{}',
        })
        .execute();
      const logs = await d.db.selectFrom('logs').select('group').where('group', '=', 'vip').execute();
      expect(logs).toEqual([{ group: 'vip' }]);
    });

    it('stores and compares text exactly (case and non-Latin characters)', async () => {
      const values = (name: string) => ({ key: name, value: name, updated_at: 0 });
      await d.db
        .insertInto('options')
        .values([values('Name'), values('name'), values('名前')])
        .execute();
      const found = await d.db.selectFrom('options').select('value').where('key', '=', 'name').execute();
      expect(found).toEqual([{ value: 'name' }]);
      const cjk = await d.db
        .selectFrom('options')
        .select('value')
        .where('key', '=', '名前')
        .executeTakeFirst();
      expect(cjk?.value).toBe('名前');
    });
  });
}

describe('mysqlVersionProblem', () => {
  it('takes MySQL 8.0.4+ and MariaDB 10.6+, and names an older server', () => {
    for (const ok of [
      '8.0.4',
      '8.0.36',
      '8.4.2-log',
      '9.1.0',
      '10.6.0-MariaDB',
      '10.11.6-MariaDB-0+deb12u1',
      '11.4.2-MariaDB',
    ])
      expect(mysqlVersionProblem(ok)).toBeUndefined();
    expect(mysqlVersionProblem('8.0.3-rc')).toBe(
      'MySQL 8.0.3-rc is too old: Switchyard needs MySQL 8.0.4+ or MariaDB 10.6+',
    );
    expect(mysqlVersionProblem('5.7.44')).toMatch(/^MySQL 5\.7\.44 is too old/);
    expect(mysqlVersionProblem('10.5.27-MariaDB')).toMatch(/^MariaDB 10\.5\.27-MariaDB is too old/);
    expect(mysqlVersionProblem('5.5.5-10.4.0-MariaDB')).toMatch(/^MariaDB/);
  });
});
