import type { HeldQuota } from './held-quota.js';
import { type SettlementAmounts, settlementAmounts } from './settlement.js';

// The arithmetic of many settlements committed together: what each one charges, and the sums the
// database must apply, one UPDATE per row touched. Pure, so a batch and the one-by-one path can be
// compared without an engine. Every ledger store plans its batches here (the SQLite ledger thread
// too, which is why it imports nothing from the workspace packages).

export interface PlannedSettle {
  held: HeldQuota;
  /** The final cost of a settle; undefined for a release (the whole reserve goes back, nothing is counted). */
  finalQuota: number | undefined;
  /** The channel whose used_quota grows with the charge; 0 or less for none. */
  channelId: number;
  /**
   * The quota lease `held.amount` was taken from: the charge up to it comes out of the lease row, a
   * refund goes back to the node's budget (not the balance), only an overrun touches the balances.
   * The charge and the request are counted on the lease row, not on the user's and token's.
   */
  leaseId?: string | undefined;
  /** A lease given back: what its settlements counted joins the user's and token's counters. */
  counted?: { used: number; requests: number } | undefined;
}

/**
 * A held row (a reserve's, a quota lease's) given back whole: its balances return, nothing is
 * charged; a lease's counters move to the user and the token.
 */
export function givenBack(row: {
  user_id: number | string | bigint;
  token_id: number | string | bigint;
  token_limited: number | string;
  amount: number | string | bigint;
  used_quota?: number | string | bigint;
  request_count?: number | string | bigint;
}): PlannedSettle {
  const used = Number(row.used_quota ?? 0);
  const requests = Number(row.request_count ?? 0);
  return {
    ...(used !== 0 || requests !== 0 ? { counted: { used, requests } } : {}),
    held: {
      userId: Number(row.user_id),
      tokenId: Number(row.token_id),
      tokenUnlimited: Number(row.token_limited) === 0,
      amount: Number(row.amount),
    },
    finalQuota: undefined,
    channelId: 0,
  };
}

/**
 * The balances of every user and token of the batch, read under lock (nothing else can change
 * them before the batch commits). A row that is missing has no room, as in the one-by-one path.
 */
export interface LockedBalances {
  users: ReadonlyMap<number, number>;
  /** `enabled`: the token's status is Enabled (only an enabled token becomes exhausted). */
  tokens: ReadonlyMap<number, { remain: number; enabled: boolean }>;
}

export interface UserTotal {
  id: number;
  /** Added to `quota` (positive = given back). */
  quota: number;
  used: number;
  requests: number;
}

export interface TokenTotal {
  id: number;
  /** Added to `remain_quota`; only limited reservations move it. */
  remain: number;
  used: number;
  /** An extra charge took the token, enabled at that moment, to zero or below. */
  exhausted: boolean;
}

export interface ChannelTotal {
  id: number;
  used: number;
}

export interface LeaseTotal {
  id: string;
  /** Taken from the lease row's `amount`. */
  used: number;
  /** Added to the lease row's `used_quota`: every charge in full, an overrun's too. */
  counted: number;
  /** Added to the lease row's `request_count`. */
  requests: number;
}

export interface SettlementPlan {
  /** One per settlement, in the given order. */
  amounts: SettlementAmounts[];
  /** Sorted by id, with nothing to do left out: updates in this order lock rows in the same order on every node. */
  users: UserTotal[];
  tokens: TokenTotal[];
  channels: ChannelTotal[];
  /** Sorted by id. */
  leases: LeaseTotal[];
}

/** True when the settlement may take more than its reserve, which needs the balances' room. */
export function needsRoom(s: PlannedSettle): boolean {
  return s.finalQuota !== undefined && s.finalQuota > s.held.amount;
}

/**
 * Plans `settles` as if each ran alone, one after the other in the given order: an overrun's room is
 * what the locked balances hold after the settlements before it. Without `balances` no settlement
 * may need room (refunds and releases never depend on a balance).
 */
export function planSettlements(
  settles: readonly PlannedSettle[],
  balances?: LockedBalances,
): SettlementPlan {
  const userBalance = new Map(balances?.users);
  const tokenState = new Map<number, { remain: number; enabled: boolean }>();
  for (const [id, t] of balances?.tokens ?? []) tokenState.set(id, { ...t });
  const users = new Map<number, UserTotal>();
  const tokens = new Map<number, TokenTotal>();
  const channels = new Map<number, ChannelTotal>();
  const leases = new Map<string, LeaseTotal>();

  const amounts = settles.map((s) => {
    const { held } = s;
    const limited = !held.tokenUnlimited;
    const settling = s.finalQuota !== undefined;
    const a: SettlementAmounts = settling
      ? settlementAmounts(held.amount, s.finalQuota!, () => {
          if (!balances) throw new Error('A settlement over its reserve needs the locked balances');
          const userRoom = Math.max(0, userBalance.get(held.userId) ?? 0);
          if (!limited) return userRoom;
          return Math.min(userRoom, Math.max(0, tokenState.get(held.tokenId)?.remain ?? 0));
        })
      : { charged: 0, change: held.amount, refunded: held.amount, shortfall: 0 };

    // A leased settlement moves the balances only by its overrun; the rest is the lease's, and so
    // are its counters: the users' and tokens' rows, shared by every node, are left alone.
    const leased = s.leaseId !== undefined;
    const change = leased ? Math.min(0, a.change) : a.change;
    if (leased && settling) {
      const lease = leases.get(s.leaseId!) ?? { id: s.leaseId!, used: 0, counted: 0, requests: 0 };
      leases.set(s.leaseId!, lease);
      lease.used += Math.min(a.charged, held.amount);
      lease.counted += a.charged;
      lease.requests++;
    }
    const counted = settling && !leased ? { used: a.charged, requests: 1 } : s.counted;

    const user = users.get(held.userId) ?? { id: held.userId, quota: 0, used: 0, requests: 0 };
    users.set(held.userId, user);
    user.quota += change;
    if (counted) {
      user.used += counted.used;
      user.requests += counted.requests;
    }
    const balance = userBalance.get(held.userId);
    if (balance !== undefined) userBalance.set(held.userId, balance + change);

    const moveBalance = limited && change !== 0;
    const addUsed = counted !== undefined && counted.used !== 0;
    if (moveBalance || addUsed) {
      const token = tokens.get(held.tokenId) ?? { id: held.tokenId, remain: 0, used: 0, exhausted: false };
      tokens.set(held.tokenId, token);
      if (moveBalance) token.remain += change;
      if (addUsed) token.used += counted.used;
      const state = tokenState.get(held.tokenId);
      if (moveBalance && state) {
        // The rule of the one-by-one path: only an extra charge exhausts a token, never a refund.
        if (change < 0 && state.enabled && state.remain + change <= 0) {
          state.enabled = false;
          token.exhausted = true;
        }
        state.remain += change;
      }
    }

    if (settling && a.charged > 0 && s.channelId > 0) {
      const channel = channels.get(s.channelId) ?? { id: s.channelId, used: 0 };
      channels.set(s.channelId, channel);
      channel.used += a.charged;
    }
    return a;
  });

  const byId = (x: { id: number }, y: { id: number }) => x.id - y.id;
  return {
    amounts,
    users: [...users.values()].filter((u) => u.quota !== 0 || u.used !== 0 || u.requests !== 0).sort(byId),
    tokens: [...tokens.values()].filter((t) => t.remain !== 0 || t.used !== 0 || t.exhausted).sort(byId),
    channels: [...channels.values()].sort(byId),
    leases: [...leases.values()]
      .filter((l) => l.used !== 0 || l.counted !== 0 || l.requests !== 0)
      .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)),
  };
}
