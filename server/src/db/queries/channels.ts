import { ChannelStatus } from '@switchyard/domain';
import {
  type Expression,
  type Insertable,
  type Selectable,
  type SqlBool,
  sql,
  type Updateable,
} from 'kysely';
import type { Database } from '../create-db.js';
import { type DialectName, insertReturningId, toNumber } from '../dialect.js';
import type { ChannelsTable } from '../tables.js';

export type ChannelRow = Selectable<ChannelsTable>;
export type NewChannel = Insertable<ChannelsTable>;
export type ChannelPatch = Updateable<ChannelsTable>;
export type ChannelsQueries = ReturnType<typeof channelsQueries>;

export const CHANNEL_ORDERABLE = [
  'id',
  'name',
  'group',
  'type',
  'status',
  'response_time',
  'balance',
  'priority',
  'weight',
] as const;
export type ChannelOrderColumn = (typeof CHANNEL_ORDERABLE)[number];

export interface ChannelFilter {
  type?: number;
  status?: number;
  /** Substring of the name, case-insensitive. */
  name?: string;
  /** Member of the channel's group list (exact symbol). */
  group?: string;
  /** Substring of the models list, case-insensitive. */
  models?: string;
  /** Exact tag. */
  tag?: string;
  /** Prefix of the test model, case-insensitive. */
  testModel?: string;
  /** Restrict to these ids (the key filter resolves keys to ids first). */
  ids?: readonly number[];
}

export interface ListRequest<F extends string> {
  offset: number;
  size: number;
  order: readonly { column: F; direction: 'asc' | 'desc' }[];
}

// Text matching is the one place the engines disagree in these filters: SQLite's LIKE ignores
// ASCII case, PostgreSQL's does not (ILIKE does), and MySQL under our binary collation does not
// either. `!` is the escape character because a backslash means different things in MySQL string
// literals depending on the SQL mode.
const escapeLike = (v: string) => v.replace(/[!%_]/g, '!$&');

/** `column` matches the LIKE pattern ignoring case, on every engine. */
export function likeInsensitive(dialect: DialectName, column: string, pattern: string): Expression<SqlBool> {
  const col = sql.ref(column);
  if (dialect === 'postgres') return sql<SqlBool>`${col} ilike ${pattern} escape '!'`;
  if (dialect === 'mysql') return sql<SqlBool>`lower(${col}) like lower(${pattern}) escape '!'`;
  return sql<SqlBool>`${col} like ${pattern} escape '!'`;
}

export const containsPattern = (v: string) => `%${escapeLike(v)}%`;
export const prefixPattern = (v: string) => `${escapeLike(v)}%`;

/** `column` (a comma-separated list) has `item` as one of its entries, compared exactly. */
export function listHas(dialect: DialectName, column: string, item: string): Expression<SqlBool> {
  const col = sql.ref(column);
  const needle = `,${item},`;
  if (dialect === 'postgres') return sql<SqlBool>`strpos(',' || ${col} || ',', ${needle}) > 0`;
  if (dialect === 'mysql') return sql<SqlBool>`instr(concat(',', ${col}, ','), ${needle}) > 0`;
  return sql<SqlBool>`instr(',' || ${col} || ',', ${needle}) > 0`;
}

export function channelsQueries({ db, dialect }: Database) {
  const live = () => db.selectFrom('channels').where('deleted_at', 'is', null);

  const filtered = (f: ChannelFilter) => {
    let q = live();
    if (f.type !== undefined) q = q.where('type', '=', f.type);
    if (f.status !== undefined) q = q.where('status', '=', f.status);
    if (f.tag !== undefined) q = q.where('tag', '=', f.tag);
    if (f.name) q = q.where(likeInsensitive(dialect, 'name', containsPattern(f.name)));
    if (f.models) q = q.where(likeInsensitive(dialect, 'models', containsPattern(f.models)));
    if (f.testModel) q = q.where(likeInsensitive(dialect, 'test_model', prefixPattern(f.testModel)));
    if (f.group) q = q.where(listHas(dialect, 'group', f.group));
    if (f.ids) q = f.ids.length > 0 ? q.where('id', 'in', f.ids) : q.where(sql<SqlBool>`1 = 0`);
    return q;
  };

  const byId = (id: number): Promise<ChannelRow | undefined> =>
    live().selectAll().where('id', '=', id).executeTakeFirst();

  return {
    async list(
      f: ChannelFilter,
      page: ListRequest<ChannelOrderColumn>,
    ): Promise<{ rows: ChannelRow[]; total: number }> {
      let q = filtered(f).selectAll();
      for (const o of page.order) q = q.orderBy(o.column, o.direction);
      // A stable tie-break so pages never repeat or skip rows.
      if (!page.order.some((o) => o.column === 'id')) q = q.orderBy('id', 'desc');
      const [rows, count] = await Promise.all([
        q.limit(page.size).offset(page.offset).execute(),
        filtered(f)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: toNumber(count.n) };
    },

    byId,

    /** Every live channel: the source of the relay's in-memory routing table. */
    async allLive(): Promise<ChannelRow[]> {
      return live().selectAll().orderBy('id').execute();
    },

    /** Sealed keys of the live channels matching `f`, for the key filter (keys are never queried in SQL). */
    async sealedKeys(f: ChannelFilter = {}): Promise<{ id: number; key_sealed: string }[]> {
      return filtered(f).select(['id', 'key_sealed']).execute();
    },

    /** The models lists of enabled channels (comma-separated, as stored). */
    async enabledModelLists(): Promise<string[]> {
      const rows = await live().select('models').where('status', '=', ChannelStatus.Enabled).execute();
      return rows.map((r) => r.models);
    },

    /** Inserts all rows in one transaction (all or none) and returns their ids in order. */
    async insertMany(rows: readonly NewChannel[]): Promise<number[]> {
      return db.transaction().execute(async (trx) => {
        const ids: number[] = [];
        for (const row of rows) {
          ids.push(await insertReturningId(dialect, trx.insertInto('channels').values(row)));
        }
        return ids;
      });
    },

    /** Changes a live channel; false when there is none with that id. */
    async update(id: number, patch: ChannelPatch): Promise<boolean> {
      if (Object.keys(patch).length === 0) return (await byId(id)) !== undefined;
      const result = await db
        .updateTable('channels')
        .set(patch)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      // MySQL counts only rows whose values changed; an identical write still names a live row.
      if (toNumber(result.numUpdatedRows) > 0) return true;
      return (await byId(id)) !== undefined;
    },

    /** Live channels among `ids`, by id. */
    async byIds(ids: readonly number[]): Promise<ChannelRow[]> {
      if (ids.length === 0) return [];
      return live().selectAll().where('id', 'in', ids).orderBy('id').execute();
    },

    /** Live members of a tag, oldest first (the first one stands for the tag's shared settings). */
    async byTag(tag: string): Promise<ChannelRow[]> {
      return live().selectAll().where('tag', '=', tag).orderBy('id').execute();
    },

    /** Every non-empty tag of the live channels with its member counts. */
    async tags(): Promise<{ tag: string; count: number; enabled: number }[]> {
      const rows = await live()
        .where('tag', '!=', '')
        .select((eb) => [
          'tag',
          eb.fn.countAll<number>().as('n'),
          eb.fn
            .sum<number>(eb.case().when('status', '=', ChannelStatus.Enabled).then(1).else(0).end())
            .as('enabled'),
        ])
        .groupBy('tag')
        .orderBy('tag')
        .execute();
      return rows.map((r) => ({ tag: r.tag, count: toNumber(r.n), enabled: toNumber(r.enabled) }));
    },

    /** Ids of the live channels that are disabled, by hand or automatically (optionally within a tag). */
    async disabledIds(tag?: string): Promise<number[]> {
      let q = live()
        .select('id')
        .where('status', 'in', [ChannelStatus.ManuallyDisabled, ChannelStatus.AutoDisabled]);
      if (tag !== undefined) q = q.where('tag', '=', tag);
      return (await q.orderBy('id').execute()).map((r) => r.id);
    },

    /** Soft-deletes the live channels among `ids`; returns how many were deleted. */
    async softDeleteMany(ids: readonly number[], now: number): Promise<number> {
      if (ids.length === 0) return 0;
      const result = await db
        .updateTable('channels')
        .set({ deleted_at: now })
        .where('id', 'in', ids)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return toNumber(result.numUpdatedRows);
    },

    /** Applies one patch to the live channels among `ids`; returns how many there are. */
    async updateMany(ids: readonly number[], patch: ChannelPatch): Promise<number> {
      const targets = await live()
        .select('id')
        .where('id', 'in', ids.length > 0 ? ids : [0])
        .execute();
      if (targets.length === 0 || Object.keys(patch).length === 0) return targets.length;
      await db
        .updateTable('channels')
        .set(patch)
        .where(
          'id',
          'in',
          targets.map((t) => t.id),
        )
        .where('deleted_at', 'is', null)
        .execute();
      // Counted before the write: MySQL reports only rows whose values changed.
      return targets.length;
    },

    /** Different patches for several channels, all or none. */
    async updateEach(changes: readonly { id: number; patch: ChannelPatch }[]): Promise<void> {
      await db.transaction().execute(async (trx) => {
        for (const { id, patch } of changes) {
          if (Object.keys(patch).length === 0) continue;
          await trx
            .updateTable('channels')
            .set(patch)
            .where('id', '=', id)
            .where('deleted_at', 'is', null)
            .execute();
        }
      });
    },

    /**
     * One whole-tag edit in one transaction: the shared patch on every live member, the removed
     * members soft-deleted, the new members inserted. Returns the new members' ids.
     */
    async applyTagEdit(edit: {
      tag: string;
      patch: ChannelPatch;
      deleteIds: readonly number[];
      insert: readonly NewChannel[];
      now: number;
    }): Promise<number[]> {
      return db.transaction().execute(async (trx) => {
        if (edit.deleteIds.length > 0) {
          await trx
            .updateTable('channels')
            .set({ deleted_at: edit.now })
            .where('id', 'in', edit.deleteIds)
            .where('deleted_at', 'is', null)
            .execute();
        }
        if (Object.keys(edit.patch).length > 0) {
          await trx
            .updateTable('channels')
            .set(edit.patch)
            .where('tag', '=', edit.tag)
            .where('deleted_at', 'is', null)
            .execute();
        }
        const ids: number[] = [];
        for (const row of edit.insert) {
          ids.push(await insertReturningId(dialect, trx.insertInto('channels').values(row)));
        }
        return ids;
      });
    },

    async softDelete(id: number, now: number): Promise<boolean> {
      const result = await db
        .updateTable('channels')
        .set({ deleted_at: now })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return toNumber(result.numUpdatedRows) > 0;
    },
  };
}
