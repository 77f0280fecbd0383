import { sql } from 'kysely';

// A node of a PostgreSQL/MySQL deployment moves slices of balances into `quota_leases` rows and
// reserves against them in memory (billing/leases/). What a live lease holds is still the owner's
// money, and what its settlements used is counted on the lease row until it is given back: every
// balance and counter a person sees is the column plus the live leases' (a write that names a
// balance outright gives the owner's leases back first: `returnLeasesOf` of billing/leases).

/**
 * The sum of `column` over the live leases of the user or token of the outer query's row; `limited`:
 * only leases that took from a limited token's balance.
 */
function liveLeaseSum(
  column: 'amount' | 'used_quota' | 'request_count',
  owner: 'users' | 'tokens',
  limited = false,
) {
  const ownerId = owner === 'users' ? 'user_id' : 'token_id';
  return sql<number>`coalesce((select sum(${sql.ref(`quota_leases.${column}`)}) from quota_leases where ${sql.ref(`quota_leases.${ownerId}`)} = ${sql.ref(`${owner}.id`)}${limited ? sql` and quota_leases.token_limited = 1` : sql``} and quota_leases.returned = 0), 0)`;
}

/** Sums over a user's live leases, each added to the users column of the same name. */
const USER_LEASED = {
  quota: liveLeaseSum('amount', 'users'),
  used_quota: liveLeaseSum('used_quota', 'users'),
  request_count: liveLeaseSum('request_count', 'users'),
};

/** Sums over a token's live leases; only a limited token's balance went into them. */
const TOKEN_LEASED = {
  remain_quota: liveLeaseSum('amount', 'tokens', true),
  used_quota: liveLeaseSum('used_quota', 'tokens'),
};

/** What the live leases of a user hold: added to `users.quota` wherever a balance is shown. */
export const leasedToUser = USER_LEASED.quota.as('leased_quota');

/** What the live leases of a limited token hold: added to `tokens.remain_quota`. */
export const leasedToToken = TOKEN_LEASED.remain_quota.as('leased_quota');

/** A user's balance and counters with the live leases': select them with the whole row, read it with `userSeen`. */
export const userLeases = [
  leasedToUser,
  USER_LEASED.used_quota.as('leased_used'),
  USER_LEASED.request_count.as('leased_requests'),
] as const;

/** A token's balance and used quota with the live leases': read the row with `tokenSeen`. */
export const tokenLeases = [leasedToToken, TOKEN_LEASED.used_quota.as('leased_used')] as const;

/** What a list of users sorts by: a balance or counter as shown (with the leases'), else the column. */
export function userOrder<C extends string>(column: C) {
  return Object.hasOwn(USER_LEASED, column)
    ? sql<number>`${sql.ref(`users.${column}`)} + ${USER_LEASED[column as keyof typeof USER_LEASED]}`
    : sql.ref(`users.${column}`);
}

/** What a list of tokens sorts by, as `userOrder`. */
export function tokenOrder<C extends string>(column: C) {
  return Object.hasOwn(TOKEN_LEASED, column)
    ? sql<number>`${sql.ref(`tokens.${column}`)} + ${TOKEN_LEASED[column as keyof typeof TOKEN_LEASED]}`
    : sql.ref(`tokens.${column}`);
}

type Leased = 'leased_quota' | 'leased_used' | 'leased_requests';
type Amount = number | string;

/** A row as its owner sees it: each column with what live leases hold or counted of it, where selected. */
function withLeases<R extends Partial<Record<Leased, Amount>>>(
  row: R,
  columns: Partial<Record<Leased, string>>,
): Omit<R, Leased> {
  const seen: Record<string, unknown> = { ...row };
  for (const [leased, column] of Object.entries(columns) as [Leased, string][]) {
    if (row[leased] === undefined) continue;
    seen[column] = Number(seen[column]) + Number(row[leased]);
    delete seen[leased];
  }
  return seen as Omit<R, Leased>;
}

export const userSeen = <
  R extends { quota: number; leased_quota: Amount; leased_used?: Amount; leased_requests?: Amount },
>(
  row: R,
) => withLeases(row, { leased_quota: 'quota', leased_used: 'used_quota', leased_requests: 'request_count' });

export const tokenSeen = <R extends { remain_quota: number; leased_quota: Amount; leased_used?: Amount }>(
  row: R,
) => withLeases(row, { leased_quota: 'remain_quota', leased_used: 'used_quota' });
