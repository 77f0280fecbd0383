import type { Database } from '../db/create-db.js';
import { insertIgnore, upsert } from '../db/dialect.js';

export type ClusterQueries = ReturnType<typeof clusterQueries>;

/** The rows nodes sharing a database coordinate through (migration 0009). */
export function clusterQueries({ db, dialect }: Database) {
  return {
    /**
     * Takes or renews the lease `name` for `holder` until `expiresAt` (ms): the conditional UPDATE
     * moves a row this holder has or one that expired; when no row exists the INSERT makes it. Of
     * two nodes racing for a free or expired lease exactly one gets a row counted.
     */
    async takeLease(name: string, holder: string, nowMs: number, expiresAt: number): Promise<boolean> {
      const moved = await db
        .updateTable('job_leases')
        .set({ holder, expires_at: expiresAt })
        .where('name', '=', name)
        .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<=', nowMs)]))
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) > 0) return true;
      const made = await insertIgnore(
        dialect,
        db.insertInto('job_leases').values({ name, holder, expires_at: expiresAt }),
      ).executeTakeFirst();
      return Number(made.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    /** Gives the lease up at once (a stopping node), if this holder still has it. */
    async releaseLease(name: string, holder: string): Promise<void> {
      await db
        .updateTable('job_leases')
        .set({ expires_at: 0 })
        .where('name', '=', name)
        .where('holder', '=', holder)
        .execute();
    },
    async leaseHolder(name: string, nowMs: number): Promise<string | undefined> {
      const row = await db
        .selectFrom('job_leases')
        .select('holder')
        .where('name', '=', name)
        .where('expires_at', '>', nowMs)
        .executeTakeFirst();
      return row?.holder;
    },

    /** Counts one more change of `topic`. */
    async bumpVersion(topic: string): Promise<void> {
      const r = await db
        .updateTable('change_versions')
        .set((eb) => ({ version: eb('version', '+', 1) }))
        .where('topic', '=', topic)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) > 0) return;
      const made = await insertIgnore(
        dialect,
        db.insertInto('change_versions').values({ topic, version: 1 }),
      ).executeTakeFirst();
      // Another node made the row between the two statements: count this change on it.
      if (Number(made.numInsertedOrUpdatedRows ?? 0) === 0)
        await db
          .updateTable('change_versions')
          .set((eb) => ({ version: eb('version', '+', 1) }))
          .where('topic', '=', topic)
          .execute();
    },
    async versions(): Promise<Map<string, number>> {
      const rows = await db.selectFrom('change_versions').select(['topic', 'version']).execute();
      return new Map(rows.map((r) => [r.topic, Number(r.version)]));
    },

    async heartbeat(nodeId: string, nowMs: number, redis: boolean): Promise<void> {
      await upsert(
        dialect,
        db.insertInto('node_heartbeats').values({ node_id: nodeId, seen_at: nowMs, redis: redis ? 1 : 0 }),
        ['node_id'],
        { seen_at: nowMs, redis: redis ? 1 : 0 },
      ).execute();
    },
    async nodesSeenSince(sinceMs: number): Promise<{ nodeId: string; redis: boolean }[]> {
      const rows = await db
        .selectFrom('node_heartbeats')
        .select(['node_id', 'redis'])
        .where('seen_at', '>=', sinceMs)
        .execute();
      return rows.map((r) => ({ nodeId: r.node_id, redis: Number(r.redis) === 1 }));
    },
    async forgetNode(nodeId: string): Promise<void> {
      await db.deleteFrom('node_heartbeats').where('node_id', '=', nodeId).execute();
    },
  };
}
