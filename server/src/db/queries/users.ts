import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { NewUser, UserPatch, UserRow } from '../tables.js';

export type UsersQueries = ReturnType<typeof usersQueries>;

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

export function usersQueries({ db, dialect }: Database) {
  const live = () => db.selectFrom('users').selectAll().where('deleted_at', 'is', null);
  return {
    async byId(id: number): Promise<UserRow | undefined> {
      return live().where('id', '=', id).executeTakeFirst();
    },
    async byUsername(username: string): Promise<UserRow | undefined> {
      return live().where('username', '=', username).executeTakeFirst();
    },
    /** Sign-in accepts a username or an email address (reference §2.2). */
    async byLogin(login: string): Promise<UserRow | undefined> {
      const byName = await live().where('username', '=', login).executeTakeFirst();
      if (byName || !login.includes('@')) return byName;
      return live().where('email', '=', login).orderBy('id').executeTakeFirst();
    },
    async byEmail(email: string): Promise<UserRow | undefined> {
      return live().where('email', '=', email).orderBy('id').executeTakeFirst();
    },
    async byAccessTokenHash(hash: string): Promise<UserRow | undefined> {
      return live().where('access_token_hash', '=', hash).executeTakeFirst();
    },
    async byAffCode(code: string): Promise<UserRow | undefined> {
      return live().where('aff_code', '=', code).executeTakeFirst();
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
      await db.updateTable('users').set(patch).where('id', '=', id).where('deleted_at', 'is', null).execute();
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
