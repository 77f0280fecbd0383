import { type LogEvent, LogType, RedemptionStatus } from '@switchyard/domain';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { RedemptionsTable } from '../tables.js';
import { type ListRequest, likeInsensitive, prefixPattern } from './channels.js';
import { balanceLogRow } from './users.js';

export type RedemptionRow = Selectable<RedemptionsTable>;
export type NewRedemption = Insertable<RedemptionsTable>;
export type RedemptionPatch = Updateable<RedemptionsTable>;
export type RedemptionsQueries = ReturnType<typeof redemptionsQueries>;

export const REDEMPTION_ORDERABLE = [
  'id',
  'name',
  'status',
  'quota',
  'created_time',
  'redeemed_time',
] as const;
export type RedemptionOrderColumn = (typeof REDEMPTION_ORDERABLE)[number];

export interface RedemptionFilter {
  /** An exact id, or a prefix (any case) of the name. */
  keyword?: string;
  status?: number;
}

/** Who redeems, and from where (the top-up log records it). */
export interface Redeemer {
  userId: number;
  username: string;
  ip: string;
}

export type Redeemed =
  | { ok: true; quota: number; redemptionId: number; name: string }
  | { ok: false; reason: 'unknown' | 'unavailable' };

/** Outcome of changing a code that may meanwhile have been redeemed. */
export type RedemptionChange = 'changed' | 'missing' | 'used';

export function redemptionsQueries({ db, dialect }: Database) {
  const filtered = (f: RedemptionFilter) => {
    let q = db.selectFrom('redemptions');
    if (f.status !== undefined) q = q.where('status', '=', f.status);
    const keyword = f.keyword;
    if (keyword) {
      q = q.where((eb) =>
        /^\d{1,15}$/.test(keyword)
          ? eb.or([eb('id', '=', Number(keyword)), likeInsensitive(dialect, 'name', prefixPattern(keyword))])
          : likeInsensitive(dialect, 'name', prefixPattern(keyword)),
      );
    }
    return q;
  };

  const byId = (id: number): Promise<RedemptionRow | undefined> =>
    db.selectFrom('redemptions').selectAll().where('id', '=', id).executeTakeFirst();

  /** A change that applies only while the code is unused; tells a used code from a missing one. */
  const changeUnused = async (id: number, patch: RedemptionPatch): Promise<RedemptionChange> => {
    const result = await db
      .updateTable('redemptions')
      .set(patch)
      .where('id', '=', id)
      .where('status', '!=', RedemptionStatus.Used)
      .executeTakeFirst();
    if (toNumber(result.numUpdatedRows) > 0) return 'changed';
    const row = await byId(id);
    if (!row) return 'missing';
    // MySQL may count only rows whose values changed: an identical write to an unused code succeeded.
    return row.status === RedemptionStatus.Used ? 'used' : 'changed';
  };

  return {
    async list(
      f: RedemptionFilter,
      page: ListRequest<RedemptionOrderColumn>,
    ): Promise<{ rows: RedemptionRow[]; total: number }> {
      let q = filtered(f).selectAll();
      for (const o of page.order) q = q.orderBy(o.column, o.direction);
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

    async byKeyHash(keyHash: string): Promise<RedemptionRow | undefined> {
      return db.selectFrom('redemptions').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
    },

    /** The codes matching `f`, newest first, at most `limit`: the source of a key export. */
    async matching(f: RedemptionFilter, limit: number): Promise<RedemptionRow[]> {
      return filtered(f).selectAll().orderBy('id', 'desc').limit(limit).execute();
    },

    /** Inserts all rows in one transaction (all or none) and returns their ids in order. */
    async insertMany(rows: readonly NewRedemption[]): Promise<number[]> {
      return db.transaction().execute(async (trx) => {
        const ids: number[] = [];
        for (const row of rows) {
          ids.push(await insertReturningId(dialect, trx.insertInto('redemptions').values(row)));
        }
        return ids;
      });
    },

    /** Name and quota of a code that is not used yet. */
    async update(id: number, patch: Pick<RedemptionPatch, 'name' | 'quota'>): Promise<RedemptionChange> {
      return changeUnused(id, patch);
    },

    /** Enables or disables a code that is not used yet. */
    async setStatus(id: number, status: number): Promise<RedemptionChange> {
      return changeUnused(id, { status });
    },

    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('redemptions').where('id', '=', id).executeTakeFirst();
      return toNumber(result.numDeletedRows) > 0;
    },

    /**
     * Redeems the code whose key HMAC is `keyHash`, once: one conditional update moves it from
     * enabled to used, so of any number of concurrent attempts exactly one wins. The winner's credit
     * and its top-up log are written in the same transaction.
     */
    async redeem(keyHash: string, who: Redeemer, now: number): Promise<Redeemed> {
      return db.transaction().execute(async (trx): Promise<Redeemed> => {
        const code = await trx
          .selectFrom('redemptions')
          .select(['id', 'name', 'quota'])
          .where('key_hash', '=', keyHash)
          .executeTakeFirst();
        if (!code) return { ok: false, reason: 'unknown' };
        const taken = await trx
          .updateTable('redemptions')
          .set({ status: RedemptionStatus.Used, redeemed_time: now, redeemed_by: who.userId })
          .where('id', '=', code.id)
          .where('status', '=', RedemptionStatus.Enabled)
          .executeTakeFirst();
        if (toNumber(taken.numUpdatedRows) !== 1) return { ok: false, reason: 'unavailable' };
        const quota = toNumber(code.quota);
        const credited = await trx
          .updateTable('users')
          .set((eb) => ({ quota: eb('quota', '+', quota) }))
          .where('id', '=', who.userId)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
        // The account vanished mid-request: throwing rolls the code back to unused.
        if (toNumber(credited.numUpdatedRows) !== 1) throw new Error(`User ${who.userId} no longer exists`);
        await trx
          .insertInto('logs')
          .values(
            balanceLogRow({
              user_id: who.userId,
              username: who.username,
              type: LogType.Topup,
              content: `Redeemed code "${code.name}" (#${code.id}) for ${quota} quota`,
              quota,
              created_at: now,
              source_ip: who.ip,
              metadata: JSON.stringify({
                redemption_id: code.id,
                event: { kind: 'redeem', code: code.name, code_id: code.id } satisfies LogEvent,
              }),
            }),
          )
          .execute();
        return { ok: true, quota, redemptionId: code.id, name: code.name };
      });
    },
  };
}
