import { UserStatus } from '@switchyard/domain';
import type { Expression, Kysely, SqlBool } from 'kysely';
import { returnLeasesOf } from '../../billing/leases/quota-leases.js';
import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { NewUser, Tables, UserPatch, UserRow } from '../tables.js';
import { type ListRequest, likeInsensitive, prefixPattern } from './channels.js';
import type { NewLog } from './logs.js';
import { userLeases, userOrder, userSeen } from './quota-leases.js';

export type UsersQueries = ReturnType<typeof usersQueries>;

/** The columns that bind a user to a sign-in provider's account id. */
export const BINDING_COLUMNS = ['github_id', 'wechat_id', 'lark_id', 'oidc_id'] as const;
export type BindingColumn = (typeof BINDING_COLUMNS)[number];

export const USER_ORDERABLE = [
  'id',
  'username',
  'role',
  'status',
  'quota',
  'used_quota',
  'request_count',
  'created_time',
  'last_login_time',
  'last_login_ip',
] as const;
export type UserOrderColumn = (typeof USER_ORDERABLE)[number];

/** A log row that records a balance change (top-up, manage, system): every relay column zero. */
export function balanceLogRow(
  fields: Pick<NewLog, 'user_id' | 'username' | 'type' | 'content' | 'quota' | 'created_at'> &
    Partial<Pick<NewLog, 'source_ip' | 'metadata'>>,
): NewLog {
  return {
    token_id: 0,
    token_name: '',
    model_name: '',
    prompt_tokens: 0,
    completion_tokens: 0,
    channel_id: 0,
    request_time: 0,
    first_response_time: 0,
    is_stream: 0,
    source_ip: '',
    group: '',
    metadata: '{}',
    ...fields,
  };
}

/** Outcome of an administrator's quota adjustment. */
export type QuotaAdjustment =
  | { ok: true; quota: number }
  | { ok: false; reason: 'not_found' | 'insufficient' | 'too_large' };

/** Who invited a new user and what they earn for it, paid in the sign-up's transaction. */
export interface InviterReward {
  inviterId: number;
  quota: number;
}

/** A new user row: the given identity with every other column at its starting value. */
export function newUserRow(
  fields: Pick<NewUser, 'username' | 'password_hash' | 'role' | 'quota' | 'aff_code' | 'created_time'> &
    Partial<NewUser>,
): NewUser {
  return {
    display_name: fields.username,
    status: 1,
    email: '',
    avatar_url: '',
    github_id: '',
    wechat_id: '',
    lark_id: '',
    oidc_id: '',
    telegram_id: 0,
    access_token_hash: null,
    used_quota: 0,
    request_count: 0,
    group: 'default',
    inviter_id: 0,
    last_login_time: 0,
    last_login_ip: '',
    deleted_at: null,
    ...fields,
  };
}

export function usersQueries(database: Database) {
  const { db, dialect } = database;
  const live = () => db.selectFrom('users').selectAll().select(userLeases).where('deleted_at', 'is', null);
  const seen = (
    row: (UserRow & { leased_quota: number; leased_used: number; leased_requests: number }) | undefined,
  ): UserRow | undefined => row && userSeen(row);
  return {
    async byId(id: number): Promise<UserRow | undefined> {
      return seen(await live().where('id', '=', id).executeTakeFirst());
    },
    async byUsername(username: string): Promise<UserRow | undefined> {
      return seen(await live().where('username', '=', username).executeTakeFirst());
    },
    /** Sign-in accepts a username or an email address. */
    async byLogin(login: string): Promise<UserRow | undefined> {
      const byName = seen(await live().where('username', '=', login).executeTakeFirst());
      if (byName || !login.includes('@')) return byName;
      return seen(await live().where('email', '=', login).orderBy('id').executeTakeFirst());
    },
    async byEmail(email: string): Promise<UserRow | undefined> {
      return seen(await live().where('email', '=', email).orderBy('id').executeTakeFirst());
    },
    async byAccessTokenHash(hash: string): Promise<UserRow | undefined> {
      return seen(await live().where('access_token_hash', '=', hash).executeTakeFirst());
    },
    /** The live user bound to a provider account (never matches the empty "not bound" value). */
    async byBinding(column: BindingColumn, externalId: string): Promise<UserRow | undefined> {
      if (!externalId) return undefined;
      return seen(await live().where(column, '=', externalId).orderBy('id').executeTakeFirst());
    },
    /** Binds (or with '' unbinds) a provider account, only while the column still holds `expected`. */
    async setBinding(id: number, column: BindingColumn, value: string, expected: string): Promise<boolean> {
      const r = await db
        .updateTable('users')
        .set({ [column]: value })
        .where('id', '=', id)
        .where(column, '=', expected)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return toNumber(r.numUpdatedRows) === 1;
    },
    /** The live user bound to this Telegram account (0 means "not bound" and matches nobody). */
    async byTelegramId(telegramId: number): Promise<UserRow | undefined> {
      if (!telegramId) return undefined;
      return seen(await live().where('telegram_id', '=', telegramId).orderBy('id').executeTakeFirst());
    },
    /** Binds (or with 0 unbinds) a Telegram account, only while the column still holds `expected`. */
    async setTelegramId(id: number, value: number, expected: number): Promise<boolean> {
      const r = await db
        .updateTable('users')
        .set({ telegram_id: value })
        .where('id', '=', id)
        .where('telegram_id', '=', expected)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return toNumber(r.numUpdatedRows) === 1;
    },
    /** The highest user id so far (deleted rows included), for fallback usernames like `github_<n>`. */
    async maxId(): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.max('id').as('m'))
        .executeTakeFirst();
      return toNumber(row?.m);
    },
    async byAffCode(code: string): Promise<UserRow | undefined> {
      return seen(await live().where('aff_code', '=', code).executeTakeFirst());
    },
    async usernameTaken(username: string): Promise<boolean> {
      // Soft-deleted rows keep their (renamed) username, so the unique index covers every row.
      const row = await db
        .selectFrom('users')
        .select('id')
        .where('username', '=', username)
        .executeTakeFirst();
      return row !== undefined;
    },
    async insert(user: NewUser): Promise<number> {
      return insertReturningId(dialect, db.insertInto('users').values(user));
    },
    async update(id: number, patch: UserPatch): Promise<void> {
      const write = (to: Kysely<Tables>) =>
        to.updateTable('users').set(patch).where('id', '=', id).where('deleted_at', 'is', null).execute();
      if (patch.quota === undefined) {
        await write(db);
        return;
      }
      await db.transaction().execute(async (trx) => {
        // A balance set outright is the whole balance once the user's leases are back.
        await returnLeasesOf(trx, database, { userId: id });
        await write(trx);
      });
    },
    /**
     * Users for the admin list. `keyword` matches an exact id, a prefix (any case) of the
     * username, email, display name or group, or exactly a provider binding (GitHub, WeChat,
     * Lark or OIDC id).
     */
    async list(
      keyword: string | undefined,
      page: ListRequest<UserOrderColumn>,
    ): Promise<{ rows: UserRow[]; total: number }> {
      const filtered = () => {
        let q = db.selectFrom('users').where('deleted_at', 'is', null);
        if (keyword) {
          const pattern = prefixPattern(keyword);
          q = q.where((eb) => {
            const any: Expression<SqlBool>[] = [
              likeInsensitive(dialect, 'username', pattern),
              likeInsensitive(dialect, 'email', pattern),
              likeInsensitive(dialect, 'display_name', pattern),
              likeInsensitive(dialect, 'group', pattern),
              ...BINDING_COLUMNS.map((c) => eb(c, '=', keyword)),
            ];
            if (/^\d{1,15}$/.test(keyword)) any.push(eb('id', '=', Number(keyword)));
            return eb.or(any);
          });
        }
        return q;
      };
      let q = filtered().selectAll().select(userLeases);
      for (const o of page.order) q = q.orderBy(userOrder(o.column), o.direction);
      if (!page.order.some((o) => o.column === 'id')) q = q.orderBy('id', 'desc');
      const [rows, count] = await Promise.all([
        q.limit(page.size).offset(page.offset).execute(),
        filtered()
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows: rows.map(userSeen), total: toNumber(count.n) };
    },

    /**
     * Changes a live user only while its role is still `role`: the role rules were checked against
     * that role, so a concurrent promotion or demotion makes this a no-op (false) instead of a bypass.
     */
    async updateIfRole(id: number, role: number, patch: UserPatch): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set(patch)
        .where('id', '=', id)
        .where('role', '=', role)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return toNumber(result.numUpdatedRows) > 0;
    },

    /**
     * Soft delete (while the role is still `role`): the row stays for the logs, renamed to
     * `newUsername` so the name can be taken again, and its access token stops working.
     */
    async softDelete(id: number, role: number, newUsername: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({ deleted_at: now, username: newUsername, access_token_hash: null })
        .where('id', '=', id)
        .where('role', '=', role)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return toNumber(result.numUpdatedRows) > 0;
    },

    /**
     * Adds `delta` (negative to deduct) to a live user's quota and writes `log` in the same
     * transaction. A deduction is one conditional update (`quota >= -delta`), so however many run
     * at once the balance never goes below zero.
     */
    async adjustQuota(id: number, delta: number, log: (balance: number) => NewLog): Promise<QuotaAdjustment> {
      return db.transaction().execute(async (trx): Promise<QuotaAdjustment> => {
        // The whole balance is in the column once the user's leases are back (nodes take new ones).
        await returnLeasesOf(trx, database, { userId: id });
        let update = trx
          .updateTable('users')
          .set((eb) => ({ quota: eb('quota', '+', delta) }))
          .where('id', '=', id)
          .where('deleted_at', 'is', null);
        if (delta < 0) update = update.where('quota', '>=', -delta);
        // Balances stay exact JavaScript numbers.
        else update = update.where('quota', '<=', Number.MAX_SAFE_INTEGER - delta);
        const result = await update.executeTakeFirst();
        if (toNumber(result.numUpdatedRows) !== 1) {
          const exists = await trx
            .selectFrom('users')
            .select('id')
            .where('id', '=', id)
            .where('deleted_at', 'is', null)
            .executeTakeFirst();
          if (!exists) return { ok: false, reason: 'not_found' };
          return { ok: false, reason: delta < 0 ? 'insufficient' : 'too_large' };
        }
        const row = await trx
          .selectFrom('users')
          .select('quota')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const balance = toNumber(row.quota);
        await trx.insertInto('logs').values(log(balance)).execute();
        return { ok: true, quota: balance };
      });
    },

    /** Gives a user without an invite code (rows from before codes existed) this one; false if it has one. */
    async setAffCodeIfMissing(id: number, code: string): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({ aff_code: code })
        .where('id', '=', id)
        .where('aff_code', '=', '')
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return toNumber(result.numUpdatedRows) > 0;
    },

    /**
     * Inserts a new user, pays its inviter (if still an enabled account) and writes the log rows of
     * both credits, all in one transaction: a failed sign-up pays nobody. `logs` receives the new
     * id and whether the inviter was paid. Returns the new user's id and whether the inviter was paid.
     */
    async insertWithRewards(
      user: NewUser,
      reward: InviterReward | undefined,
      logs: (userId: number, inviterPaid: boolean) => NewLog[],
    ): Promise<{ id: number; inviterPaid: boolean }> {
      return db.transaction().execute(async (trx) => {
        const id = await insertReturningId(dialect, trx.insertInto('users').values(user));
        let inviterPaid = false;
        if (reward && reward.quota > 0) {
          const result = await trx
            .updateTable('users')
            .set((eb) => ({ quota: eb('quota', '+', reward.quota) }))
            .where('id', '=', reward.inviterId)
            .where('status', '=', UserStatus.Enabled)
            .where('deleted_at', 'is', null)
            .executeTakeFirst();
          inviterPaid = toNumber(result.numUpdatedRows) === 1;
        }
        const rows = logs(id, inviterPaid);
        if (rows.length > 0) await trx.insertInto('logs').values(rows).execute();
        return { id, inviterPaid };
      });
    },

    async count(): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return toNumber(row.n);
    },
  };
}
