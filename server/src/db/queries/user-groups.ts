import type { Database } from '../create-db.js';
import { insertIgnore } from '../dialect.js';
import type { UserGroupRow } from '../tables.js';

export type UserGroupsQueries = ReturnType<typeof userGroupsQueries>;

export const SEED_GROUPS = [
  { symbol: 'default', name: 'Default', ratio: 1, api_rate: 600, public: 1, enable: 1 },
  { symbol: 'vip', name: 'VIP', ratio: 1, api_rate: 600, public: 0, enable: 1 },
  { symbol: 'svip', name: 'SVIP', ratio: 1, api_rate: 600, public: 0, enable: 1 },
] as const;

export function userGroupsQueries({ db, dialect }: Database) {
  return {
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
