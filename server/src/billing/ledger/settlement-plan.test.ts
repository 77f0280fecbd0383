import { TokenStatus } from '@switchyard/domain';
import { describe, expect, it } from 'vitest';
import {
  givenBack,
  type LockedBalances,
  needsRoom,
  type PlannedSettle,
  planSettlements,
} from './settlement-plan.js';

const settle = (
  userId: number,
  tokenId: number,
  amount: number,
  finalQuota: number | undefined,
  channelId = 0,
  tokenUnlimited = false,
): PlannedSettle => ({ held: { userId, tokenId, tokenUnlimited, amount }, finalQuota, channelId });

const balances = (users: [number, number][], tokens: [number, number, number?][]): LockedBalances => ({
  users: new Map(users),
  tokens: new Map(
    tokens.map(([id, remain, status]) => [
      id,
      { remain, enabled: (status ?? TokenStatus.Enabled) === TokenStatus.Enabled },
    ]),
  ),
});

describe('planSettlements', () => {
  it('sums refunds, exact charges and releases per user, token and channel, sorted by id', () => {
    const plan = planSettlements([
      settle(7, 30, 1000, 400, 5), // refund 600
      settle(2, 10, 500, 500, 9), // exact
      settle(7, 31, 300, undefined, 5), // release: 300 back, not counted
      settle(7, 30, 200, 0, 5), // free: counted, nothing charged
      settle(2, 11, 100, 60, 0, true), // unlimited token: only used moves; no channel
    ]);
    expect(plan.amounts.map((a) => [a.charged, a.refunded, a.shortfall])).toEqual([
      [400, 600, 0],
      [500, 0, 0],
      [0, 300, 0],
      [0, 200, 0],
      [60, 40, 0],
    ]);
    expect(plan.users).toEqual([
      { id: 2, quota: 40, used: 560, requests: 2 },
      { id: 7, quota: 1100, used: 400, requests: 2 },
    ]);
    expect(plan.tokens).toEqual([
      // Token 10 settled exactly: nothing to give back, only its used quota grows.
      { id: 10, remain: 0, used: 500, exhausted: false },
      { id: 11, remain: 0, used: 60, exhausted: false },
      { id: 30, remain: 800, used: 400, exhausted: false },
      { id: 31, remain: 300, used: 0, exhausted: false },
    ]);
    expect(plan.channels).toEqual([
      { id: 5, used: 400 },
      { id: 9, used: 500 },
    ]);
  });

  it('leaves out rows with nothing to change', () => {
    const plan = planSettlements([settle(1, 2, 0, undefined, 3)]);
    expect(plan).toEqual({
      amounts: [{ charged: 0, change: 0, refunded: 0, shortfall: 0 }],
      users: [],
      tokens: [],
      channels: [],
      leases: [],
    });
  });

  it('charges and counts a leased settlement on its lease; the balances move only by an overrun', () => {
    const leased = (s: PlannedSettle, leaseId: string): PlannedSettle => ({ ...s, leaseId });
    const plan = planSettlements(
      [
        leased(settle(7, 30, 1000, 400, 5), 'b'), // 400 from lease b, the 600 refund stays with the node
        leased(settle(7, 30, 500, 800, 5), 'b'), // 500 from lease b, overrun 300 from the balances
        leased(settle(2, 10, 100, 100, 0, true), 'a'), // unlimited token: 100 from lease a
      ],
      balances(
        [
          [7, 10_000],
          [2, 50],
        ],
        [[30, 10_000]],
      ),
    );
    expect(plan.amounts.map((a) => a.charged)).toEqual([400, 800, 100]);
    expect(plan.leases).toEqual([
      { id: 'a', used: 100, counted: 100, requests: 1 },
      { id: 'b', used: 900, counted: 1200, requests: 2 },
    ]);
    // The users' and tokens' rows, shared by every node, see only the overrun.
    expect(plan.users).toEqual([{ id: 7, quota: -300, used: 0, requests: 0 }]);
    expect(plan.tokens).toEqual([{ id: 30, remain: -300, used: 0, exhausted: false }]);
    expect(plan.channels).toEqual([{ id: 5, used: 1200 }]);
  });

  it('counts a leased settlement that charged nothing, and a leased release not at all', () => {
    const plan = planSettlements([
      { ...settle(7, 30, 100, 0, 5), leaseId: 'a' },
      { ...settle(7, 30, 100, undefined, 5), leaseId: 'b' },
    ]);
    expect(plan.leases).toEqual([{ id: 'a', used: 0, counted: 0, requests: 1 }]);
    expect(plan.users).toEqual([]);
    expect(plan.tokens).toEqual([]);
    expect(plan.channels).toEqual([]);
  });

  it('gives a returned lease back with what its settlements counted', () => {
    const plan = planSettlements([
      givenBack({
        user_id: 7,
        token_id: 30,
        token_limited: 1,
        amount: 250,
        used_quota: 1200,
        request_count: 2,
      }),
      givenBack({
        user_id: 2,
        token_id: 10,
        token_limited: 0,
        amount: '40',
        used_quota: '100',
        request_count: '1',
      }),
      givenBack({ user_id: 2, token_id: 10, token_limited: 0, amount: 10 }),
    ]);
    expect(plan.amounts.map((a) => a.charged)).toEqual([0, 0, 0]);
    expect(plan.users).toEqual([
      { id: 2, quota: 50, used: 100, requests: 1 },
      { id: 7, quota: 250, used: 1200, requests: 2 },
    ]);
    expect(plan.tokens).toEqual([
      { id: 10, remain: 0, used: 100, exhausted: false },
      { id: 30, remain: 250, used: 1200, exhausted: false },
    ]);
    expect(plan.channels).toEqual([]);
    expect(plan.leases).toEqual([]);
  });

  it('refuses an overrun without locked balances', () => {
    expect(needsRoom(settle(1, 2, 100, 101))).toBe(true);
    expect(needsRoom(settle(1, 2, 100, 100))).toBe(false);
    expect(needsRoom(settle(1, 2, 100, undefined))).toBe(false);
    expect(() => planSettlements([settle(1, 2, 100, 101)])).toThrow('locked balances');
  });

  it('gives each overrun the room left by the settlements before it, as one by one', () => {
    // Token 20 has 150 left: the first overrun takes 100, a refund gives 50 back, the second
    // overrun wants 300 and gets the remaining 100.
    const plan = planSettlements(
      [
        settle(1, 20, 100, 200, 4),
        settle(1, 20, 100, 50, 4),
        settle(1, 20, 100, 400, 4),
        settle(1, 20, 100, 300, 4),
      ],
      balances([[1, 10_000]], [[20, 150]]),
    );
    expect(plan.amounts.map((a) => [a.charged, a.shortfall])).toEqual([
      [200, 0],
      [50, 0],
      [200, 200],
      [100, 200],
    ]);
    expect(plan.tokens).toEqual([{ id: 20, remain: -150, used: 550, exhausted: true }]);
    expect(plan.users).toEqual([{ id: 1, quota: -150, used: 550, requests: 4 }]);
    expect(plan.channels).toEqual([{ id: 4, used: 550 }]);
  });

  it('limits an overrun by the user when the token is unlimited or richer, never below zero', () => {
    const plan = planSettlements(
      [settle(1, 20, 100, 1000, 0, true), settle(2, 21, 100, 1000), settle(3, 22, 100, 1000)],
      balances(
        [
          [1, 250],
          [2, 80],
          [3, -5],
        ],
        [
          [20, 0],
          [21, 5000],
          [22, 5000],
        ],
      ),
    );
    expect(plan.amounts.map((a) => [a.charged, a.shortfall])).toEqual([
      [350, 650],
      [180, 820],
      [100, 900],
    ]);
    // An unlimited token is never exhausted and keeps its balance.
    expect(plan.tokens.find((t) => t.id === 20)).toEqual({ id: 20, remain: 0, used: 350, exhausted: false });
  });

  it('gives a missing user or token no room', () => {
    const plan = planSettlements(
      [settle(1, 20, 100, 500), settle(2, 21, 100, 500)],
      balances([[2, 1000]], []),
    );
    expect(plan.amounts.map((a) => a.charged)).toEqual([100, 100]);
  });

  it('exhausts only an enabled token that an extra charge brings to zero or below', () => {
    const plan = planSettlements(
      [
        settle(1, 20, 100, 200), // 100 left -> 0: exhausted
        settle(1, 21, 100, 50), // a refund never exhausts
        settle(1, 22, 100, 200), // already disabled: stays as it is
        settle(1, 23, 100, 150), // 100 left -> 50: still enabled
      ],
      balances(
        [[1, 10_000]],
        [
          [20, 100],
          [21, 0],
          [22, 100, TokenStatus.Disabled],
          [23, 100],
        ],
      ),
    );
    expect(plan.tokens.map((t) => [t.id, t.exhausted])).toEqual([
      [20, true],
      [21, false],
      [22, false],
      [23, false],
    ]);
  });

  it('plans a batch exactly as the same settlements planned one at a time', () => {
    let rng = 99;
    const rand = (n: number) => {
      rng = (rng * 1103515245 + 12345) % 2 ** 31;
      // The low bits of this generator repeat quickly; the high ones do not.
      return Math.floor(rng / 2 ** 16) % n;
    };
    const settles = Array.from({ length: 300 }, () => {
      const amount = 50 + rand(200);
      const kind = rand(4);
      const finalQuota = kind === 0 ? undefined : kind === 1 ? amount : rand(600);
      return settle(1 + rand(3), 10 + rand(6), amount, finalQuota, rand(3), rand(5) === 0);
    });
    const start = balances(
      [
        [1, 300],
        [2, 0],
        [3, 100_000],
      ],
      Array.from({ length: 6 }, (_, i): [number, number] => [10 + i, 100 * i]),
    );
    const batch = planSettlements(settles, start);

    // One at a time: each plan runs on the balances the previous ones left.
    const users = new Map(start.users);
    const tokens = new Map([...start.tokens].map(([id, t]) => [id, { ...t }]));
    const statuses = new Map([...start.tokens].map(([id]) => [id, TokenStatus.Enabled as number]));
    const amounts = settles.map((s) => {
      const one = planSettlements([s], { users, tokens });
      for (const u of one.users) users.set(u.id, users.get(u.id)! + u.quota);
      for (const t of one.tokens) {
        const state = tokens.get(t.id)!;
        state.remain += t.remain;
        if (t.exhausted) {
          state.enabled = false;
          statuses.set(t.id, TokenStatus.Exhausted);
        }
      }
      return one.amounts[0];
    });
    expect(batch.amounts).toEqual(amounts);
    for (const u of batch.users) expect(start.users.get(u.id)! + u.quota).toBe(users.get(u.id));
    for (const t of batch.tokens) {
      expect(start.tokens.get(t.id)!.remain + t.remain).toBe(tokens.get(t.id)!.remain);
      expect(t.exhausted).toBe(statuses.get(t.id) === TokenStatus.Exhausted);
    }
    expect(batch.amounts.some((a) => a.shortfall > 0)).toBe(true);
    expect(batch.tokens.some((t) => t.exhausted)).toBe(true);
  });
});
