import type { Database } from '../create-db.js';
import { insertIgnore, toNumber } from '../dialect.js';

export type TelegramUpdatesQueries = ReturnType<typeof telegramUpdatesQueries>;

export function telegramUpdatesQueries({ db, dialect }: Database) {
  return {
    /** True for the one node (and the one delivery) whose claim on this update lands. */
    async claim(updateId: number, nodeId: string, nowSeconds: number): Promise<boolean> {
      const r = await insertIgnore(
        dialect,
        db
          .insertInto('telegram_updates')
          .values({ update_id: updateId, node_id: nodeId, taken_at: nowSeconds }),
      ).executeTakeFirst();
      return toNumber(r.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    /** Deletes the claims taken before `beforeSeconds`; returns how many. */
    async prune(beforeSeconds: number): Promise<number> {
      const r = await db
        .deleteFrom('telegram_updates')
        .where('taken_at', '<', beforeSeconds)
        .executeTakeFirst();
      return toNumber(r.numDeletedRows);
    },
  };
}
