import { sql, type Transaction } from 'kysely';
import type { Tables } from '../tables.js';

// A node of a PostgreSQL/MySQL deployment moves slices of balances into `quota_leases` rows and
// reserves against them in memory (billing/leases/). What a live lease holds is still the owner's
// money: every balance a person sees is the column plus it, and a write that names a balance
// outright gives the owner's leases back first.

/** What the live leases of a user hold: added to `users.quota` wherever a balance is shown. */
export const leasedToUser =
  sql<number>`coalesce((select sum(amount) from quota_leases where quota_leases.user_id = users.id and quota_leases.returned = 0), 0)`.as(
    'leased_quota',
  );

/** What the live leases of a limited token hold: added to `tokens.remain_quota`. */
export const leasedToToken =
  sql<number>`coalesce((select sum(amount) from quota_leases where quota_leases.token_id = tokens.id and quota_leases.token_limited = 1 and quota_leases.returned = 0), 0)`.as(
    'leased_quota',
  );

/** A user row as its owner sees it: the balance with what leases hold. */
export function userSeen<R extends { quota: number; leased_quota: number | string }>(
  row: R,
): Omit<R, 'leased_quota'> {
  const { leased_quota, ...rest } = row;
  return { ...rest, quota: Number(rest.quota) + Number(leased_quota) };
}

/** A token row as its owner sees it: what is left with what leases hold. */
export function tokenSeen<R extends { remain_quota: number; leased_quota: number | string }>(
  row: R,
): Omit<R, 'leased_quota'> {
  const { leased_quota, ...rest } = row;
  return { ...rest, remain_quota: Number(rest.remain_quota) + Number(leased_quota) };
}

export interface LeaseRow {
  id: string;
  user_id: number | string;
  token_id: number | string;
  token_limited: number | string;
  amount: number | string;
}

/** Live lease rows, what giving them back needs of each, in the order they are locked. */
export function liveLeaseRows(trx: Transaction<Tables>) {
  return trx
    .selectFrom('quota_leases')
    .select(['id', 'user_id', 'token_id', 'token_limited', 'amount'])
    .where('returned', '=', 0)
    .orderBy('id');
}

/**
 * Gives back lease rows locked by the caller: what each still holds goes back to its user and, for a
 * limited token, to the token; the rows are marked returned. A node that settles against a returned
 * lease charges the balances instead. Users before tokens, each in id order, as settlements lock them.
 */
export async function returnLeaseRows(trx: Transaction<Tables>, rows: readonly LeaseRow[]): Promise<void> {
  if (rows.length === 0) return;
  const users = new Map<number, number>();
  const tokens = new Map<number, number>();
  for (const r of rows) {
    const amount = Number(r.amount);
    users.set(Number(r.user_id), (users.get(Number(r.user_id)) ?? 0) + amount);
    if (Number(r.token_limited) === 1)
      tokens.set(Number(r.token_id), (tokens.get(Number(r.token_id)) ?? 0) + amount);
  }
  for (const [id, amount] of [...users].sort((a, b) => a[0] - b[0]))
    await trx
      .updateTable('users')
      .set((eb) => ({ quota: eb('quota', '+', amount) }))
      .where('id', '=', id)
      .execute();
  for (const [id, amount] of [...tokens].sort((a, b) => a[0] - b[0]))
    await trx
      .updateTable('tokens')
      .set((eb) => ({ remain_quota: eb('remain_quota', '+', amount) }))
      .where('id', '=', id)
      .execute();
  await trx
    .updateTable('quota_leases')
    .set({ returned: 1 })
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .execute();
}

/**
 * Gives back, in `trx`, every live lease of a user or of a token (whatever node took it), so that
 * the user's or token's column is the whole balance before a write that names it.
 */
export async function returnLeasesOf(
  trx: Transaction<Tables>,
  owner: { userId: number } | { tokenId: number },
  lock: boolean,
): Promise<void> {
  let query = liveLeaseRows(trx);
  query =
    'userId' in owner
      ? query.where('user_id', '=', owner.userId)
      : query.where('token_id', '=', owner.tokenId);
  if (lock) query = query.forUpdate();
  await returnLeaseRows(trx, await query.execute());
}
