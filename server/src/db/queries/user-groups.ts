import type { Insertable, Updateable } from 'kysely';
import type { Database } from '../create-db.js';
import { insertIgnore, insertReturningId, toNumber } from '../dialect.js';
import type { UserGroupRow, UserGroupsTable } from '../tables.js';
import { type ListRequest, likeInsensitive, listHas, prefixPattern } from './channels.js';

export type UserGroupsQueries = ReturnType<typeof userGroupsQueries>;
export type NewUserGroup = Insertable<UserGroupsTable>;
export type UserGroupPatch = Updateable<UserGroupsTable>;

export const USER_GROUP_ORDERABLE = [
  'id',
  'symbol',
  'name',
  'ratio',
  'api_rate',
  'public',
  'enable',
] as const;
export type UserGroupOrderColumn = (typeof USER_GROUP_ORDERABLE)[number];

export interface UserGroupFilter {
  /** Prefix (any case) of the name or the symbol. */
  name?: string;
  enable?: boolean;
}

/** What still refers to a group: it cannot be deleted while any of these is above zero. */
export interface GroupUsage {
  users: number;
  tokens: number;
  channels: number;
}

export const SEED_GROUPS = [
  { symbol: 'default', name: 'Default', ratio: 1, api_rate: 600, public: 1, enable: 1 },
  { symbol: 'vip', name: 'VIP', ratio: 1, api_rate: 600, public: 0, enable: 1 },
  { symbol: 'svip', name: 'SVIP', ratio: 1, api_rate: 600, public: 0, enable: 1 },
] as const;

export function userGroupsQueries({ db, dialect }: Database) {
  const filtered = (f: UserGroupFilter) => {
    let q = db.selectFrom('user_groups');
    if (f.enable !== undefined) q = q.where('enable', '=', f.enable ? 1 : 0);
    const name = f.name;
    if (name) {
      const pattern = prefixPattern(name);
      q = q.where((eb) =>
        eb.or([likeInsensitive(dialect, 'name', pattern), likeInsensitive(dialect, 'symbol', pattern)]),
      );
    }
    return q;
  };
  return {
    async list(
      f: UserGroupFilter,
      page: ListRequest<UserGroupOrderColumn>,
    ): Promise<{ rows: UserGroupRow[]; total: number }> {
      let q = filtered(f).selectAll();
      for (const o of page.order) q = q.orderBy(o.column, o.direction);
      if (!page.order.some((o) => o.column === 'id')) q = q.orderBy('id', 'desc');
      const [rows, n] = await Promise.all([
        q.limit(page.size).offset(page.offset).execute(),
        filtered(f)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: toNumber(n.n) };
    },
    async byId(id: number): Promise<UserGroupRow | undefined> {
      return db.selectFrom('user_groups').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async insert(row: NewUserGroup): Promise<number> {
      return insertReturningId(dialect, db.insertInto('user_groups').values(row));
    },
    /** Changes a group; the symbol is never part of the patch (it is immutable). */
    async update(id: number, patch: Omit<UserGroupPatch, 'id' | 'symbol'>): Promise<void> {
      if (Object.keys(patch).length === 0) return;
      await db.updateTable('user_groups').set(patch).where('id', '=', id).execute();
    },
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('user_groups').where('id', '=', id).executeTakeFirst();
      return toNumber(result.numDeletedRows) > 0;
    },
    /** Live users, tokens and channels that name the group. */
    async usage(symbol: string): Promise<GroupUsage> {
      const [users, tokens, channels] = await Promise.all([
        db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('group', '=', symbol)
          .where('deleted_at', 'is', null)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('tokens')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('group', '=', symbol)
          .where('deleted_at', 'is', null)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('channels')
          .select((eb) => eb.fn.countAll().as('n'))
          .where(listHas(dialect, 'group', symbol))
          .where('deleted_at', 'is', null)
          .executeTakeFirstOrThrow(),
      ]);
      return { users: toNumber(users.n), tokens: toNumber(tokens.n), channels: toNumber(channels.n) };
    },
    async all(): Promise<UserGroupRow[]> {
      return db.selectFrom('user_groups').selectAll().orderBy('id').execute();
    },
    async bySymbol(symbol: string): Promise<UserGroupRow | undefined> {
      return db.selectFrom('user_groups').selectAll().where('symbol', '=', symbol).executeTakeFirst();
    },
    async seed(): Promise<void> {
      await insertIgnore(
        dialect,
        db.insertInto('user_groups').values(SEED_GROUPS.map((g) => ({ ...g }))),
      ).execute();
    },
  };
}
