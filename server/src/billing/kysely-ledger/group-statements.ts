import { TokenStatus } from '@switchyard/domain';
import { CompiledQuery, type Transaction } from 'kysely';
import type { Database } from '../../db/create-db.js';
import type { DialectName } from '../../db/dialect.js';
import { copyRow, preparedAs } from '../../db/pg-client.js';
import type { Tables } from '../../db/tables.js';
import type { ConsumeLog } from '../ledger/consume-log.js';
import type { SettlementPlan } from '../ledger/settlement-plan.js';
import { settledRow } from './settled-marks.js';

// A settlement group's statements are written as text here rather than built as Kysely query trees:
// on PostgreSQL building and compiling those trees (a node per value, frozen) took a sixth of the
// gateway's CPU under load, more than the statements cost the database.

/** A log row as the group inserts it: the consume log and the amount actually charged. */
export interface GroupLogRow extends ConsumeLog {
  quota: number;
}

/**
 * The columns of `logs` a settlement writes, each with the value the table's default gives a
 * column the row leaves out (`undefined`: none, the column must be given).
 */
const LOG_COLUMNS: readonly (readonly [keyof GroupLogRow, string | number | undefined])[] = [
  ['user_id', undefined],
  ['created_at', undefined],
  ['type', undefined],
  ['content', undefined],
  ['username', ''],
  ['token_id', 0],
  ['token_name', ''],
  ['model_name', ''],
  ['quota', 0],
  ['prompt_tokens', 0],
  ['completion_tokens', 0],
  ['channel_id', 0],
  ['request_time', 0],
  ['first_response_time', 0],
  ['is_stream', 0],
  ['source_ip', ''],
  ['group', ''],
  ['metadata', undefined],
];

/**
 * MySQL: an UPDATE of this many rows or more is joined to a `json_table`, a smaller one picks each
 * row's amount by a CASE. MariaDB took the same time for both at 10 to 30 rows; at 2 rows the
 * table function's setup cost 75 us more than the CASE.
 */
const JOINED_FROM_ROWS = 32;

/** An amount added to (or taken from) one column of each row. */
export interface ColumnChange<R> {
  column: string;
  /** `+` adds each row's amount, `-` takes it. */
  op: '+' | '-';
  amount: (row: R) => number;
}

/**
 * PostgreSQL: every balance write of a settlement group and its journal numbers in one statement,
 * the rows as arrays, so its text never changes and the connection prepares it once. The outer
 * query reads the parts in the order every node locks in (users, tokens, channels, leases), and
 * PostgreSQL runs a data-modifying part when it is first read (an order it does not promise: a
 * deadlock between two nodes would be retried by the writer, as any). As in the statements
 * written out, a token turns from enabled to exhausted in the assignment that reads the old status.
 * Each part also names its ids with `= any(...)`: a plan made once cannot know an array's length,
 * and without it PostgreSQL chose to read a narrow table of a thousand rows whole.
 */
export const PG_GROUP_WRITES = preparedAs(
  'sy_group_writes',
  `with u as (update users set quota = users.quota + v.q, used_quota = users.used_quota + v.u,
      request_count = users.request_count + v.r
    from unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[]) as v(id, q, u, r)
    where users.id = v.id and users.id = any($1::bigint[]) returning 1),
  t as (update tokens set status = case when tokens.id = any($8::bigint[]) and tokens.status = ${TokenStatus.Enabled}
      then ${TokenStatus.Exhausted} else tokens.status end,
      remain_quota = tokens.remain_quota + v.q, used_quota = tokens.used_quota + v.u
    from unnest($5::bigint[], $6::bigint[], $7::bigint[]) as v(id, q, u)
    where tokens.id = v.id and tokens.id = any($5::bigint[]) returning 1),
  c as (update channels set used_quota = channels.used_quota + v.u
    from unnest($9::bigint[], $10::bigint[]) as v(id, u)
    where channels.id = v.id and channels.id = any($9::bigint[]) returning 1),
  l as (update quota_leases set amount = quota_leases.amount - v.u,
      used_quota = quota_leases.used_quota + v.c, request_count = quota_leases.request_count + v.r
    from unnest($11::text[], $12::bigint[], $13::bigint[], $14::bigint[]) as v(id, u, c, r)
    where quota_leases.id = v.id and quota_leases.id = any($11::text[]) returning 1),
  s as (insert into ledger_settled (node_id, lo, hi, seqs)
    select $15::text, $16::bigint, $17::bigint, $18::text where $18::text is not null returning 1)
select (select count(*) from u) + (select count(*) from t) + (select count(*) from c)
  + (select count(*) from l) + (select count(*) from s) as n`,
);

/**
 * Writes one group's statements for an engine. With `inline` (PostgreSQL) every value is written
 * as a literal, quoted by the driver's own function, so that the statements can be sent together
 * in one message (the simple query protocol takes several statements, but no parameters);
 * otherwise values are parameters and each statement is sent alone.
 */
export class GroupStatements {
  private readonly statements: { sql: string; parameters: unknown[] }[] = [];
  private parameters: unknown[] = [];
  private copy: { sql: string; data: string } | undefined;
  /** Statements with parameters run after the inline ones (PostgreSQL's prepared group writes). */
  private readonly bound: { sql: string; parameters: unknown[] }[] = [];

  constructor(
    private readonly dialect: DialectName,
    private readonly quoteLiteral?: (text: string) => string,
  ) {}

  private get inline(): boolean {
    return this.quoteLiteral !== undefined;
  }

  private name(identifier: string): string {
    return this.dialect === 'mysql' ? `\`${identifier}\`` : `"${identifier}"`;
  }

  private value(value: unknown): string {
    if (this.inline) return this.literal(value);
    this.parameters.push(value);
    return this.dialect === 'postgres' ? `$${this.parameters.length}` : '?';
  }

  private literal(value: unknown): string {
    if (value === null || value === undefined) return 'null';
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
      return String(value);
    }
    if (typeof value === 'string') {
      // The message is a C string: a NUL would end the statements inside this literal. The engine
      // refuses NUL in text anyway, as it does in a parameter.
      if (value.includes('\0')) throw new TypeError('text with a NUL character cannot be stored');
      return this.quoteLiteral!(value);
    }
    throw new TypeError(`no literal for a ${typeof value}`);
  }

  /** An id: a number as a literal (every engine then types it as an integer), a string as a value. */
  private id(id: number | string): string {
    if (typeof id === 'string') return this.value(id);
    if (!Number.isSafeInteger(id)) throw new RangeError(`not a safe integer id: ${id}`);
    return String(id);
  }

  private add(sql: string): void {
    this.statements.push({ sql, parameters: this.parameters });
    this.parameters = [];
  }

  /**
   * `update <table> set <column> = <column> <op> (case id when ... else 0 end), ... where id in (...)`:
   * each row's amounts in one statement. Amounts are safe integers written as literals.
   * `exhausted` (tokens): these ids turn from enabled to exhausted, assigned before the balance
   * (MySQL evaluates SET left to right with the new values; in this order every engine reads the old).
   */
  update<R extends { id: number | string }>(
    table: keyof Tables,
    rows: readonly R[],
    changes: readonly ColumnChange<R>[],
    exhausted?: { ids: readonly number[]; enabled: number; exhaustedStatus: number },
  ): void {
    if (rows.length === 0) return;
    const amounts = (row: R) =>
      changes.map((change) => {
        const amount = change.amount(row);
        if (!Number.isSafeInteger(amount)) throw new RangeError(`not a safe integer amount: ${amount}`);
        return amount;
      });
    // Values are taken in the order the text names them (`?` parameters are positional); the
    // exhausted ids are numbers, written as literals, so they take none.
    const sets: string[] = [];
    if (exhausted && exhausted.ids.length > 0) {
      const list = exhausted.ids.map((id) => this.id(id)).join(', ');
      sets.push(
        `${this.name('status')} = case when ${this.name('id')} in (${list}) and ${this.name('status')} = ${exhausted.enabled} ` +
          `then ${exhausted.exhaustedStatus} else ${this.name('status')} end`,
      );
    }
    if (this.dialect === 'mysql' && rows.length >= JOINED_FROM_ROWS) {
      this.updateJoined(table, rows, changes, amounts, sets);
      return;
    }
    if (this.dialect === 'postgres') {
      // Joined to a VALUES list: a CASE on the id costs every row a walk of the branches, which
      // took PostgreSQL twice the CPU for a group's 200 tokens.
      const t = this.name(table);
      const names = changes.map((_, i) => this.name(`a${i}`));
      const tuples = rows.map((row) => `(${[this.id(row.id), ...amounts(row)].join(', ')})`);
      changes.forEach((change, i) => {
        const column = this.name(change.column);
        sets.push(`${column} = ${t}.${column} ${change.op} ${this.name('v')}.${names[i]}`);
      });
      this.add(
        `update ${t} set ${sets.join(', ')} from (values ${tuples.join(', ')}) as ${this.name('v')}` +
          `(${[this.name('row_id'), ...names].join(', ')}) where ${t}.${this.name('id')} = ${this.name('v')}.${this.name('row_id')}`,
      );
      return;
    }
    const rowAmounts = rows.map(amounts);
    changes.forEach((change, i) => {
      const whens = rows.map((row, r) => `when ${this.id(row.id)} then ${rowAmounts[r]![i]}`);
      const column = this.name(change.column);
      sets.push(`${column} = ${column} ${change.op} (case ${this.name('id')} ${whens.join(' ')} else 0 end)`);
    });
    const quoted = rows.map((row) => this.id(row.id));
    this.add(
      `update ${this.name(table)} set ${sets.join(', ')} where ${this.name('id')} in (${quoted.join(', ')})`,
    );
  }

  /**
   * MySQL, from JOINED_FROM_ROWS rows: the rows' amounts as one JSON parameter, read back as a table
   * (`json_table`, MariaDB 10.6+, MySQL 8.0.4+) and joined by primary key. A CASE on the id walks
   * every branch for every row: for a group's hundred leases the CASE form cost the server 2.8 ms,
   * this one 1.6 ms (16 against 6 ms at 400).
   */
  private updateJoined<R extends { id: number | string }>(
    table: keyof Tables,
    rows: readonly R[],
    changes: readonly ColumnChange<R>[],
    amounts: (row: R) => number[],
    sets: string[],
  ): void {
    const data = JSON.stringify(
      rows.map((row) => {
        if (typeof row.id === 'number' && !Number.isSafeInteger(row.id))
          throw new RangeError(`not a safe integer id: ${row.id}`);
        return [row.id, ...amounts(row)];
      }),
    );
    const v = this.name('v');
    const source =
      `json_table(${this.value(data)}, '$[*]' columns (${this.name('row_id')} ` +
      `${typeof rows[0]!.id === 'string' ? 'varchar(255)' : 'bigint'} path '$[0]'` +
      changes.map((_, i) => `, ${this.name(`a${i}`)} bigint path '$[${i + 1}]'`).join('') +
      `)) as ${v}`;
    // The table's own column names are unambiguous: the joined rows have only row_id and a0, a1, ...
    changes.forEach((change, i) => {
      const column = this.name(change.column);
      sets.push(`${column} = ${column} ${change.op} ${v}.${this.name(`a${i}`)}`);
    });
    this.add(
      `update ${this.name(table)} join ${source} on ${this.name('id')} = ${v}.${this.name('row_id')} set ${sets.join(', ')}`,
    );
  }

  /**
   * A settlement group's balance writes and the journal numbers of its settlements without a
   * reserve row: on PostgreSQL one statement prepared once per connection (PG_GROUP_WRITES), whose
   * parsing and planning cost the database a third of what the statements written out did; elsewhere
   * an UPDATE per table and an INSERT.
   */
  groupWrites(plan: SettlementPlan, nodeId: string, seqs: readonly number[]): void {
    if (this.dialect !== 'postgres') {
      planStatements(this, plan);
      this.settled(nodeId, seqs);
      return;
    }
    const ids = <R extends { id: number | string }>(rows: readonly R[]) => rows.map((r) => r.id);
    const row = settledRow(seqs);
    this.bound.push({
      sql: PG_GROUP_WRITES,
      parameters: [
        ids(plan.users),
        plan.users.map((u) => u.quota),
        plan.users.map((u) => u.used),
        plan.users.map((u) => u.requests),
        ids(plan.tokens),
        plan.tokens.map((t) => t.remain),
        plan.tokens.map((t) => t.used),
        ids(plan.tokens.filter((t) => t.exhausted)),
        ids(plan.channels),
        plan.channels.map((c) => c.used),
        ids(plan.leases),
        plan.leases.map((l) => l.used),
        plan.leases.map((l) => l.counted),
        plan.leases.map((l) => l.requests),
        nodeId,
        row?.lo ?? null,
        row?.hi ?? null,
        row?.seqs ?? null,
      ],
    });
  }

  /** Records the journal numbers of a group's settlements without a reserve row (settled-marks.ts). */
  private settled(nodeId: string, seqs: readonly number[]): void {
    const row = settledRow(seqs);
    if (!row) return;
    const values = [this.value(nodeId), this.id(row.lo), this.id(row.hi), this.value(row.seqs)];
    this.add(
      `insert into ${this.name('ledger_settled')} (${['node_id', 'lo', 'hi', 'seqs'].map((c) => this.name(c)).join(', ')}) ` +
        `values (${values.join(', ')})`,
    );
  }

  /**
   * Log rows: on PostgreSQL one `COPY ... FROM STDIN` (the pool's client runs it, `db/pg-client.ts`),
   * elsewhere multi-row INSERTs of at most `perStatement` rows.
   */
  insertLogs(rows: readonly GroupLogRow[], perStatement: number): void {
    if (rows.length === 0) return;
    const columns = LOG_COLUMNS.map(([column]) => this.name(column)).join(', ');
    const values = (row: GroupLogRow) =>
      LOG_COLUMNS.map(([column, fallback]) => (row[column] ?? fallback ?? null) as string | number | null);
    if (this.dialect === 'postgres') {
      this.copy = {
        sql: `copy ${this.name('logs')} (${columns}) from stdin`,
        data: rows.map((row) => copyRow(values(row))).join(''),
      };
      return;
    }
    for (let from = 0; from < rows.length; from += perStatement) {
      const tuples = rows.slice(from, from + perStatement).map(
        (row) =>
          `(${values(row)
            .map((v) => this.value(v))
            .join(', ')})`,
      );
      this.add(`insert into ${this.name('logs')} (${columns}) values ${tuples.join(', ')}`);
    }
  }

  /**
   * Runs the statements in `trx`, then the COPY: in one message when written inline (PostgreSQL) or
   * on MySQL, whose driver writes `?` parameters into the text itself and whose pool takes several
   * statements to a query (`create-db.ts`); one by one on SQLite. A failing statement ends the
   * message there, and the group's transaction rolls back what ran before it.
   */
  async run(trx: Transaction<Tables>): Promise<void> {
    if (this.inline || this.dialect === 'mysql') {
      // Inline statements have no parameters; MySQL's are taken in the order of the joined text.
      if (this.statements.length > 0)
        await trx.executeQuery(
          CompiledQuery.raw(
            this.statements.map((s) => s.sql).join(';\n'),
            this.statements.flatMap((s) => s.parameters),
          ),
        );
    } else {
      for (const s of this.statements) await trx.executeQuery(CompiledQuery.raw(s.sql, s.parameters));
    }
    for (const s of this.bound) await trx.executeQuery(CompiledQuery.raw(s.sql, s.parameters));
    if (this.copy) await trx.executeQuery(CompiledQuery.raw(this.copy.sql, [this.copy.data]));
  }
}

/**
 * The balance and counter updates of a plan: one UPDATE per table (users, then tokens, channels,
 * leases: the order every node locks in, so two nodes never deadlock on them), whatever the number
 * of rows.
 */
export function planStatements(out: GroupStatements, plan: SettlementPlan): void {
  out.update('users', plan.users, [
    { column: 'quota', op: '+', amount: (u) => u.quota },
    { column: 'used_quota', op: '+', amount: (u) => u.used },
    { column: 'request_count', op: '+', amount: (u) => u.requests },
  ]);
  out.update(
    'tokens',
    plan.tokens,
    [
      { column: 'remain_quota', op: '+', amount: (t) => t.remain },
      { column: 'used_quota', op: '+', amount: (t) => t.used },
    ],
    {
      ids: plan.tokens.filter((t) => t.exhausted).map((t) => t.id),
      enabled: TokenStatus.Enabled,
      exhaustedStatus: TokenStatus.Exhausted,
    },
  );
  out.update('channels', plan.channels, [{ column: 'used_quota', op: '+', amount: (c) => c.used }]);
  out.update('quota_leases', plan.leases, [
    { column: 'amount', op: '-', amount: (l) => l.used },
    { column: 'used_quota', op: '+', amount: (l) => l.counted },
    { column: 'request_count', op: '+', amount: (l) => l.requests },
  ]);
}

/** Writes a plan's updates in `trx`: releases, and reserves or leases given back. */
export async function applyPlan(
  trx: Transaction<Tables>,
  database: Pick<Database, 'dialect' | 'quoteLiteral'>,
  plan: SettlementPlan,
): Promise<void> {
  const out = new GroupStatements(database.dialect, database.quoteLiteral);
  planStatements(out, plan);
  await out.run(trx);
}
