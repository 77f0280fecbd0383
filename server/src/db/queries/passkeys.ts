import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { NewPasskey, PasskeyRow } from '../tables.js';

export type PasskeysQueries = ReturnType<typeof passkeysQueries>;

export function passkeysQueries({ db, dialect }: Database) {
  return {
    async insert(row: NewPasskey): Promise<number> {
      return insertReturningId(dialect, db.insertInto('passkeys').values(row));
    },
    async forUser(userId: number): Promise<PasskeyRow[]> {
      return db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
    },
    async countForUser(userId: number): Promise<number> {
      const row = await db
        .selectFrom('passkeys')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return toNumber(row.n);
    },
    async byCredentialId(credentialId: string): Promise<PasskeyRow | undefined> {
      return db
        .selectFrom('passkeys')
        .selectAll()
        .where('credential_id', '=', credentialId)
        .executeTakeFirst();
    },
    async rename(id: number, userId: number, alias: string): Promise<boolean> {
      const r = await db
        .updateTable('passkeys')
        .set({ alias })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return toNumber(r.numUpdatedRows) === 1;
    },
    async delete(id: number, userId: number): Promise<boolean> {
      const r = await db
        .deleteFrom('passkeys')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return toNumber(r.numDeletedRows) === 1;
    },
    /**
     * Records a use. The counter only moves forward: a sign-in that raced another with the same
     * authenticator keeps the higher value.
     */
    async used(id: number, counter: number, now: number): Promise<void> {
      await db
        .updateTable('passkeys')
        .set((eb) => ({
          last_used_time: now,
          counter: eb.case().when('counter', '<', counter).then(counter).else(eb.ref('counter')).end(),
        }))
        .where('id', '=', id)
        .execute();
    },
  };
}
