import { LogType, TokenStatus } from '@switchyard/domain';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database } from '../../db/create-db.js';
import { insertReturningId } from '../../db/dialect.js';
import { migrateToLatest } from '../../db/migrations/index.js';
import { newTokenRow } from '../../db/queries/tokens.js';
import { newUserRow } from '../../db/queries/users.js';
import { channelRow } from '../../relay/routing/test-fixtures.js';
import { createTestDatabase, engineTargets, type TestDatabase } from '../../test/databases.js';
import { type GroupLogRow, GroupStatements, PG_GROUP_WRITES } from './group-statements.js';

/** Texts a client controls (model names, token names, request content) that must be stored as given. */
const AWKWARD = [
  "it's",
  "'); delete from logs; --",
  "back\\slash \\' and \\\\",
  'dollar $1 $$ quoted $$ and ? marks',
  'line\nbreak;\nand a semicolon',
  'emoji 🦊 and 中文',
  'tab\there, carriage\r\nreturn',
  '\\.',
  '\\N',
  'ends with a backslash\\',
  '',
];

function row(content: string, i: number): GroupLogRow {
  return {
    user_id: 7,
    created_at: 1_700_000_000 + i,
    type: LogType.Consume,
    content,
    username: content.slice(0, 40),
    token_id: 3,
    token_name: content.slice(0, 20),
    model_name: `m${i}`,
    quota: 100 + i,
    prompt_tokens: i,
    completion_tokens: 2 * i,
    channel_id: 1,
    request_time: 12,
    first_response_time: 3,
    is_stream: i % 2,
    source_ip: '127.0.0.1',
    group: 'default',
    metadata: JSON.stringify({ note: content }),
  };
}

const { Enabled, Disabled, Exhausted } = TokenStatus;

for (const target of engineTargets()) {
  describe.skipIf(target.skipReason !== undefined)(`group statements on ${target.engine}`, () => {
    let testDb: TestDatabase;
    let d: Database;

    beforeAll(async () => {
      testDb = await createTestDatabase(target);
      d = createDb(testDb.url, { poolSize: 2 });
      await migrateToLatest(d.db, d.dialect);
    });
    afterAll(async () => {
      await d?.close();
      await testDb?.drop();
    });

    /** Live leases of 1000 each, the i-th for user and token `firstOwner + i`. */
    const insertLeases = (ids: readonly string[], firstOwner = 1) =>
      d.db
        .insertInto('quota_leases')
        .values(
          ids.map((id, i) => ({
            id,
            node_id: 'n',
            user_id: firstOwner + i,
            token_id: firstOwner + i,
            token_limited: 1,
            amount: 1000,
            expires_at: 0,
            returned: 0,
          })),
        )
        .execute();

    /** A token with 1000 remaining; returns its id. */
    const insertToken = (name: string, status: number, userId: number) =>
      insertReturningId(
        d.dialect,
        d.db.insertInto('tokens').values(
          newTokenRow({
            user_id: userId,
            name,
            key_hash: `group-statements-${name}`,
            key_sealed: '',
            created_time: 0,
            remain_quota: 1000,
            status,
          }),
        ),
      );

    it('stores client text exactly, whether copied (PostgreSQL) or sent as parameters', async () => {
      const rows = AWKWARD.map(row);
      await d.db.transaction().execute(async (trx) => {
        const out = new GroupStatements(d.dialect, d.quoteLiteral);
        // Three rows per statement elsewhere: several INSERTs.
        out.insertLogs(rows, 3);
        await out.run(trx);
      });
      const stored = await d.db
        .selectFrom('logs')
        .select(['content', 'username', 'token_name', 'metadata', 'quota', 'is_stream'])
        .where('user_id', '=', 7)
        .orderBy('created_at')
        .execute();
      expect(stored.map((r) => r.content)).toEqual(AWKWARD);
      expect(stored.map((r) => r.username)).toEqual(rows.map((r) => r.username));
      expect(stored.map((r) => r.token_name)).toEqual(rows.map((r) => r.token_name));
      expect(stored.map((r) => JSON.parse(r.metadata).note)).toEqual(AWKWARD);
      expect(stored.map((r) => Number(r.quota))).toEqual(rows.map((r) => r.quota));
      expect(stored.map((r) => Number(r.is_stream))).toEqual(rows.map((r) => r.is_stream));
    });

    it('updates rows by string id, each by its own amount, and leaves the others alone', async () => {
      const ids = ["a'1", 'b\\2', 'c;3', 'd$4'];
      await insertLeases(ids);
      await d.db.transaction().execute(async (trx) => {
        const out = new GroupStatements(d.dialect, d.quoteLiteral);
        out.update(
          'quota_leases',
          ids.slice(0, 3).map((id, i) => ({ id, used: 10 * (i + 1) })),
          [{ column: 'amount', op: '-', amount: (l) => l.used }],
        );
        await out.run(trx);
      });
      const amounts = await d.db.selectFrom('quota_leases').select(['id', 'amount']).orderBy('id').execute();
      expect(amounts.map((r) => [r.id, Number(r.amount)])).toEqual([
        ["a'1", 990],
        ['b\\2', 980],
        ['c;3', 970],
        ['d$4', 1000],
      ]);
    });

    it('a statement that fails fails the group: what ran before it in the same message is rolled back', async () => {
      await insertLeases(['fails']);
      const good = { ...row('kept?', 0), user_id: 8 };
      // A log row without content breaks its table's NOT NULL rule, after the first statements ran.
      const bad = { ...row('x', 1), user_id: 8, content: null as unknown as string };
      const ran = d.db.transaction().execute(async (trx) => {
        const out = new GroupStatements(d.dialect, d.quoteLiteral);
        out.update(
          'quota_leases',
          [{ id: 'fails', used: 10 }],
          [{ column: 'amount', op: '-', amount: (l) => l.used }],
        );
        out.insertLogs([good, bad, good], 1);
        await out.run(trx);
      });
      await expect(ran).rejects.toThrow();
      const lease = await d.db
        .selectFrom('quota_leases')
        .select('amount')
        .where('id', '=', 'fails')
        .executeTakeFirst();
      expect(Number(lease?.amount)).toBe(1000);
      const logged = await d.db.selectFrom('logs').select('id').where('user_id', '=', 8).execute();
      expect(logged).toEqual([]);
    });

    it('updates forty rows by the same rules as four (MySQL joins that many to a json_table)', async () => {
      const leaseIds = Array.from({ length: 45 }, (_, i) => `big'${i}\\;$`);
      await insertLeases(leaseIds, 100);
      const tokenIds: number[] = [];
      for (let i = 0; i < 40; i++)
        tokenIds.push(await insertToken(`big${i}`, i % 2 === 0 ? Enabled : Disabled, 2));
      await d.db.transaction().execute(async (trx) => {
        const out = new GroupStatements(d.dialect, d.quoteLiteral);
        out.update(
          'quota_leases',
          leaseIds.slice(0, 40).map((id, i) => ({ id, used: i + 1 })),
          [
            { column: 'amount', op: '-', amount: (l) => l.used },
            { column: 'request_count', op: '+', amount: () => 1 },
          ],
        );
        out.update(
          'tokens',
          tokenIds.map((id, i) => ({ id, used: 10 + i })),
          [{ column: 'remain_quota', op: '-', amount: (t) => t.used }],
          { ids: tokenIds.slice(0, 4), enabled: Enabled, exhaustedStatus: Exhausted },
        );
        await out.run(trx);
      });
      const leases = await d.db
        .selectFrom('quota_leases')
        .select(['id', 'amount', 'request_count'])
        .where('id', 'in', leaseIds)
        .execute();
      const byId = new Map(leases.map((l) => [l.id, [Number(l.amount), Number(l.request_count)]]));
      expect(leaseIds.map((id) => byId.get(id))).toEqual(
        leaseIds.map((_, i) => (i < 40 ? [1000 - (i + 1), 1] : [1000, 0])),
      );
      const tokens = await d.db
        .selectFrom('tokens')
        .select(['id', 'status', 'remain_quota'])
        .where('id', 'in', tokenIds)
        .orderBy('id')
        .execute();
      expect(tokens.map((t) => [Number(t.status), Number(t.remain_quota)])).toEqual(
        tokenIds.map((_, i) => [
          i < 4 && i % 2 === 0 ? Exhausted : i % 2 === 0 ? Enabled : Disabled,
          1000 - (10 + i),
        ]),
      );
    });

    it('turns enabled tokens it exhausts to exhausted, leaving disabled ones, with each amount', async () => {
      const ids: number[] = [];
      for (const [i, status] of [Enabled, Enabled, Disabled, Enabled].entries())
        ids.push(await insertToken(`t${i}`, status, 1));
      await d.db.transaction().execute(async (trx) => {
        const out = new GroupStatements(d.dialect, d.quoteLiteral);
        out.update(
          'tokens',
          ids.slice(0, 3).map((id, i) => ({ id, used: 100 * (i + 1) })),
          [
            { column: 'remain_quota', op: '-', amount: (t) => t.used },
            { column: 'used_quota', op: '+', amount: (t) => t.used },
          ],
          { ids: [ids[0]!, ids[2]!], enabled: Enabled, exhaustedStatus: Exhausted },
        );
        await out.run(trx);
      });
      const tokens = await d.db
        .selectFrom('tokens')
        .select(['status', 'remain_quota', 'used_quota'])
        .where('id', 'in', ids)
        .orderBy('id')
        .execute();
      expect(tokens.map((t) => [Number(t.status), Number(t.remain_quota), Number(t.used_quota)])).toEqual([
        [Exhausted, 900, 100],
        [Enabled, 800, 200],
        [Disabled, 700, 300],
        [Enabled, 1000, 0],
      ]);
    });

    // PostgreSQL refuses NUL in text; written as a literal it would also end the message early.
    it.skipIf(target.engine !== 'postgres')(
      'refuses text with a NUL character, writing nothing of the group',
      async () => {
        const before = await d.db
          .selectFrom('logs')
          .select(d.db.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        await expect(
          d.db.transaction().execute(async (trx) => {
            const out = new GroupStatements(d.dialect, d.quoteLiteral);
            out.insertLogs([row('fine', 100), row('nul\0inside', 101)], 1);
            await out.run(trx);
          }),
        ).rejects.toThrow();
        const after = await d.db
          .selectFrom('logs')
          .select(d.db.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        expect(Number(after.n)).toBe(Number(before.n));
      },
    );
  });
}

const postgres = engineTargets().find((t) => t.engine === 'postgres')!;

describe.skipIf(postgres.skipReason !== undefined)('the prepared group writes on PostgreSQL', () => {
  let testDb: TestDatabase;
  let d: Database;
  const ROWS = 3000;

  beforeAll(async () => {
    testDb = await createTestDatabase(postgres);
    d = createDb(testDb.url, { poolSize: 1 });
    await migrateToLatest(d.db, d.dialect);
    const range = Array.from({ length: ROWS }, (_, i) => i + 1);
    for (let from = 0; from < ROWS; from += 500) {
      const ids = range.slice(from, from + 500);
      await d.db
        .insertInto('users')
        .values(
          ids.map((i) =>
            newUserRow({
              username: `u${i}`,
              password_hash: 'x',
              role: 1,
              quota: 1000,
              aff_code: `a${i}`,
              created_time: 0,
            }),
          ),
        )
        .execute();
      await d.db
        .insertInto('tokens')
        .values(
          ids.map((i) =>
            newTokenRow({
              user_id: i,
              name: 't',
              key_hash: `h${i}`,
              key_sealed: '',
              created_time: 0,
              remain_quota: 1000,
            }),
          ),
        )
        .execute();
      await d.db
        .insertInto('channels')
        .values(ids.map((i) => channelRow({ id: i })))
        .execute();
      await d.db
        .insertInto('quota_leases')
        .values(
          ids.map((i) => ({
            id: `L${i}`,
            node_id: 'n',
            user_id: i,
            token_id: i,
            token_limited: 1,
            amount: 1000,
            expires_at: 0,
            returned: 0,
          })),
        )
        .execute();
    }
    await sql`analyze`.execute(d.db);
  });
  afterAll(async () => {
    await d?.close();
    await testDb?.drop();
  });

  it('finds every row by its key in the plan made once, whatever the table size', async () => {
    // The plan every later run of a prepared statement may use: made without the arrays' values.
    await sql`set plan_cache_mode = force_generic_plan`.execute(d.db);
    const text = PG_GROUP_WRITES.replace(/^\/\*[^*]*\*\/\s*/, '');
    await sql.raw(`prepare sy_plan_probe as ${text}`).execute(d.db);
    const plan = await sql<{ 'QUERY PLAN': string }>`explain (format text) execute sy_plan_probe(
      '{1,2}', '{0,0}', '{1,1}', '{1,1}', '{1,2}', '{0,0}', '{1,1}', '{}', '{1}', '{2}', '{L1,L2}', '{2,0}',
      '{2,0}', '{1,1}', 'n', null, null, null)`.execute(d.db);
    const lines = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    for (const table of ['users', 'tokens', 'channels', 'quota_leases'])
      expect(lines).toMatch(new RegExp(`Index Scan (using|on) ${table}_pkey`));
    expect(lines).not.toMatch(/Seq Scan/);
    await sql`deallocate sy_plan_probe`.execute(d.db);
    await sql`reset plan_cache_mode`.execute(d.db);
  });
});
