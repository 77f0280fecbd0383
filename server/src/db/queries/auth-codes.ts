import type { Database } from '../create-db.js';
import { upsert } from '../dialect.js';

export type AuthCodesQueries = ReturnType<typeof authCodesQueries>;

export function authCodesQueries({ db, dialect }: Database) {
  return {
    async put(key: string, value: string, expiresAt: number): Promise<void> {
      await upsert(
        dialect,
        db.insertInto('auth_codes').values({ key, value, expires_at: expiresAt }),
        ['key'],
        {
          value,
          expires_at: expiresAt,
        },
      ).execute();
    },
    async live(key: string, now: number): Promise<string | undefined> {
      const row = await db
        .selectFrom('auth_codes')
        .select('value')
        .where('key', '=', key)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return row?.value;
    },
    /** Deletes the row only if it still holds `value`: of two racing takers exactly one succeeds. */
    async deleteIfHolds(key: string, value: string): Promise<boolean> {
      const r = await db
        .deleteFrom('auth_codes')
        .where('key', '=', key)
        .where('value', '=', value)
        .executeTakeFirst();
      return Number(r.numDeletedRows) === 1;
    },
    async delete(key: string): Promise<void> {
      await db.deleteFrom('auth_codes').where('key', '=', key).execute();
    },
    async deleteExpired(now: number): Promise<number> {
      const r = await db.deleteFrom('auth_codes').where('expires_at', '<=', now).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
