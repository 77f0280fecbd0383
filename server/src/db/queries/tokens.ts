import { NEVER_EXPIRES, TokenStatus } from '@switchyard/domain';
import type { Insertable, Selectable, Updateable } from 'kysely';
import { returnLeasesOf } from '../../billing/leases/quota-leases.js';
import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { TokensTable } from '../tables.js';
import { type ListRequest, likeInsensitive, prefixPattern } from './channels.js';
import { tokenLeases, tokenOrder, tokenSeen } from './quota-leases.js';

export type TokenRow = Selectable<TokensTable>;
export type NewToken = Insertable<TokensTable>;
export type TokenPatch = Updateable<TokensTable>;
export type TokensQueries = ReturnType<typeof tokensQueries>;

/** A new token row: the given owner, name and sealed key, enabled, never expiring, with no quota. */
export function newTokenRow(
  fields: Pick<NewToken, 'user_id' | 'name' | 'key_hash' | 'key_sealed' | 'created_time'> & Partial<NewToken>,
): NewToken {
  return {
    status: TokenStatus.Enabled,
    accessed_time: 0,
    expired_time: NEVER_EXPIRES,
    remain_quota: 0,
    unlimited_quota: 0,
    used_quota: 0,
    group: '',
    models: null,
    subnet: '',
    deleted_at: null,
    ...fields,
  };
}

export const TOKEN_ORDERABLE = [
  'id',
  'name',
  'status',
  'expired_time',
  'created_time',
  'remain_quota',
  'used_quota',
] as const;
export type TokenOrderColumn = (typeof TOKEN_ORDERABLE)[number];

export function tokensQueries(database: Database) {
  const { db, dialect } = database;
  const live = () => db.selectFrom('tokens').where('deleted_at', 'is', null);

  // Every list is one user's tokens, so the (user_id, deleted_at) index bounds the work.
  const ofUser = (userId: number, keyword: string | undefined) => {
    let q = live().where('user_id', '=', userId);
    if (keyword) q = q.where(likeInsensitive(dialect, 'name', prefixPattern(keyword)));
    return q;
  };

  /** Every column, `remain_quota` and `used_quota` with what live leases hold and counted (`tokenSeen`). */
  const rows = () => live().selectAll().select(tokenLeases);
  const seen = (
    row: (TokenRow & { leased_quota: number; leased_used: number }) | undefined,
  ): TokenRow | undefined => row && tokenSeen(row);

  const byId = async (id: number): Promise<TokenRow | undefined> =>
    seen(await rows().where('id', '=', id).executeTakeFirst());

  /** A live token of this user, or undefined (another user's token looks like a missing one). */
  const byIdForUser = async (id: number, userId: number): Promise<TokenRow | undefined> =>
    seen(await rows().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst());

  return {
    async listByUser(
      userId: number,
      keyword: string | undefined,
      page: ListRequest<TokenOrderColumn>,
    ): Promise<{ rows: TokenRow[]; total: number }> {
      let q = ofUser(userId, keyword).selectAll().select(tokenLeases);
      for (const o of page.order) q = q.orderBy(tokenOrder(o.column), o.direction);
      if (!page.order.some((o) => o.column === 'id')) q = q.orderBy('id', 'desc');
      const [rows, count] = await Promise.all([
        q.limit(page.size).offset(page.offset).execute(),
        ofUser(userId, keyword)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows: rows.map(tokenSeen), total: toNumber(count.n) };
    },

    byId,

    byIdForUser,

    /** The oldest live token of this user with exactly this name. */
    async firstByNameForUser(userId: number, name: string): Promise<TokenRow | undefined> {
      return seen(
        await rows()
          .where('user_id', '=', userId)
          .where('name', '=', name)
          .orderBy('id', 'asc')
          .limit(1)
          .executeTakeFirst(),
      );
    },

    /** The relay's lookup: by the HMAC of the key, never by the key itself. */
    async byKeyHash(keyHash: string): Promise<TokenRow | undefined> {
      return seen(await rows().where('key_hash', '=', keyHash).executeTakeFirst());
    },

    async insert(row: NewToken): Promise<number> {
      return insertReturningId(dialect, db.insertInto('tokens').values(row));
    },

    /** Changes a live token of this user; false when there is none. */
    async updateForUser(id: number, userId: number, patch: TokenPatch): Promise<boolean> {
      const result = await db.transaction().execute(async (trx) => {
        // A new limit is the whole of what is left once the token's leases are back.
        // Only the caller's own token's: a lease row names its token's user.
        if (patch.remain_quota !== undefined || patch.unlimited_quota !== undefined)
          await returnLeasesOf(trx, database, { userId, tokenId: id });
        return trx
          .updateTable('tokens')
          .set(patch)
          .where('id', '=', id)
          .where('user_id', '=', userId)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
      });
      if (toNumber(result.numUpdatedRows) > 0) return true;
      // MySQL may count only changed rows; an identical write still names a live token.
      return (await byIdForUser(id, userId)) !== undefined;
    },

    /** Sets the status the relay found (expired, exhausted). */
    async setStatus(id: number, status: number): Promise<void> {
      await db
        .updateTable('tokens')
        .set({ status })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .execute();
    },

    async softDeleteForUser(id: number, userId: number, now: number): Promise<boolean> {
      const result = await db
        .updateTable('tokens')
        .set({ deleted_at: now })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return toNumber(result.numUpdatedRows) > 0;
    },
  };
}
