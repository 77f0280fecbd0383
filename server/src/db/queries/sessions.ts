import type { Database } from '../create-db.js';
import type { SessionRow } from '../tables.js';

export type SessionsQueries = ReturnType<typeof sessionsQueries>;

export function sessionsQueries({ db }: Database) {
  return {
    async insert(row: SessionRow): Promise<void> {
      await db.insertInto('sessions').values(row).execute();
    },
    async byIdHash(idHash: string, now: number): Promise<SessionRow | undefined> {
      return db
        .selectFrom('sessions')
        .selectAll()
        .where('id_hash', '=', idHash)
        .where('expires_at', '>', now)
        .executeTakeFirst();
    },
    async touch(idHash: string, now: number, expiresAt: number): Promise<void> {
      await db
        .updateTable('sessions')
        .set({ last_seen_at: now, expires_at: expiresAt })
        .where('id_hash', '=', idHash)
        .execute();
    },
    async delete(idHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
    },
    async deleteForUser(userId: number): Promise<number> {
      const r = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    async deleteExpired(now: number): Promise<number> {
      const r = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
