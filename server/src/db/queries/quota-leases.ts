import { sql } from 'kysely';

// A node of a PostgreSQL/MySQL deployment moves slices of balances into `quota_leases` rows and
// reserves against them in memory (billing/leases/). What a live lease holds is still the owner's
// money: every balance a person sees is the column plus it (a write that names a balance outright
// gives the owner's leases back first: `returnLeasesOf` of billing/leases).

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

/** A row as its owner sees it: `column` with what live leases hold of it. */
function withLeases<
  K extends 'quota' | 'remain_quota',
  R extends Record<K, number> & { leased_quota: number | string },
>(row: R, column: K): Omit<R, 'leased_quota'> {
  const { leased_quota, ...rest } = row;
  return { ...rest, [column]: Number(row[column]) + Number(leased_quota) };
}

export const userSeen = <R extends { quota: number; leased_quota: number | string }>(row: R) =>
  withLeases(row, 'quota');

export const tokenSeen = <R extends { remain_quota: number; leased_quota: number | string }>(row: R) =>
  withLeases(row, 'remain_quota');
