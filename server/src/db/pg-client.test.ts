import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engineTargets, type TestDatabase } from '../test/databases.js';
import { createDb, type Database } from './create-db.js';
import { copyRow, preparedAs } from './pg-client.js';

describe('copyRow', () => {
  it('writes COPY text: tabs between values, \\N for null, escapes in text', () => {
    expect(copyRow([1, 'a', null, -2.5])).toBe('1\ta\t\\N\t-2.5\n');
    expect(copyRow(['tab\there', 'line\nbreak\r', 'back\\slash', '\\.', '\\N'])).toBe(
      'tab\\there\tline\\nbreak\\r\tback\\\\slash\t\\\\.\t\\\\N\n',
    );
  });

  it('refuses what no column can take', () => {
    expect(() => copyRow(['nul\0inside'])).toThrow(/NUL/);
    expect(() => copyRow([Number.NaN])).toThrow(RangeError);
    expect(() => copyRow([Number.POSITIVE_INFINITY])).toThrow(RangeError);
  });
});

const postgres = engineTargets().find((t) => t.engine === 'postgres')!;

describe.skipIf(postgres.skipReason !== undefined)('COPY through the pool on PostgreSQL', () => {
  let testDb: TestDatabase;
  let d: Database;
  const copy = (data: string) => CompiledQuery.raw('copy copied (n, t) from stdin', [data]);
  const rows = async () =>
    (await sql<{ n: number; t: string | null }>`select n, t from copied order by n`.execute(d.db)).rows;

  beforeAll(async () => {
    testDb = await createTestDatabase(postgres);
    // One connection: whatever a COPY leaves behind, the next statement meets it.
    d = createDb(testDb.url, { poolSize: 1 });
    await sql`create table copied (n integer not null primary key, t text)`.execute(d.db);
  });
  afterAll(async () => {
    await d?.close();
    await testDb?.drop();
  });

  it('copies rows in a transaction, answering with their count', async () => {
    const text = ['plain', 'tab\tand\nnewline', 'back\\slash', '🦊 中文', null];
    const result = await d.db
      .transaction()
      .execute((trx) => trx.executeQuery(copy(text.map((t, i) => copyRow([i, t])).join(''))));
    expect(result.rows).toEqual([]);
    expect((await rows()).map((r) => r.t)).toEqual(text);
  });

  it('a COPY that fails rolls back its transaction and leaves the connection usable', async () => {
    const before = await rows();
    await expect(
      d.db.transaction().execute(async (trx) => {
        await sql`insert into copied (n, t) values (100, 'in the same transaction')`.execute(trx);
        // The second row repeats a key.
        await trx.executeQuery(copy(copyRow([101, 'a']) + copyRow([0, 'taken'])));
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await rows()).toEqual(before);
    await expect(d.db.transaction().execute((trx) => trx.executeQuery(copy('bad\tdata\n')))).rejects.toThrow(
      /invalid input syntax/,
    );
    // The one connection answers the next statements, a COPY among them.
    await d.db.transaction().execute((trx) => trx.executeQuery(copy(copyRow([200, 'after']))));
    expect((await rows()).at(-1)).toEqual({ n: 200, t: 'after' });
  });

  it('leaves other statements with one parameter alone', async () => {
    const r = await d.db.executeQuery(CompiledQuery.raw('select $1::text as copy', ['from stdin']));
    expect(r.rows).toEqual([{ copy: 'from stdin' }]);
  });

  it('prepares a marked statement once per connection and runs it bound after', async () => {
    const marked = preparedAs('sy_test_sum', 'select $1::int + $2::int as sum');
    const prepared = async () =>
      (
        await sql<{
          name: string;
        }>`select name from pg_prepared_statements where name = 'sy_test_sum'`.execute(d.db)
      ).rows.length;
    expect(await prepared()).toBe(0);
    for (const [a, b] of [
      [1, 2],
      [40, 2],
    ] as const) {
      const r = await d.db.executeQuery(CompiledQuery.raw(marked, [a, b]));
      expect(r.rows).toEqual([{ sum: a + b }]);
    }
    // The one connection holds it under its name; an unmarked statement is not kept.
    expect(await prepared()).toBe(1);
    await d.db.executeQuery(CompiledQuery.raw('select $1::int as one', [1]));
    expect(
      (await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(d.db)).rows[0]!
        .n,
    ).toBe(1);
    // A run that fails leaves the statement usable.
    await expect(
      d.db.executeQuery(CompiledQuery.raw(marked, [2_000_000_000, 2_000_000_000])),
    ).rejects.toThrow(/out of range/);
    expect((await d.db.executeQuery(CompiledQuery.raw(marked, [3, 4]))).rows).toEqual([{ sum: 7 }]);
    expect(() => preparedAs('Bad name', 'select 1')).toThrow(/statement name/);
  });
});
