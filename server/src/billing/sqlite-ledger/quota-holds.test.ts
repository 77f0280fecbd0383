import { describe, expect, it } from 'vitest';
import { type CommittedBalances, QuotaHolds } from './quota-holds.js';
import type { HeldQuota } from './sqlite-ledger-core.js';

function balances(users: Record<number, number>, tokens: Record<number, number>): CommittedBalances {
  return { read: (userId, tokenId) => ({ user: users[userId], token: tokens[tokenId] }) };
}

const limited = (amount: number, userId = 1, tokenId = 10): HeldQuota => ({
  userId,
  tokenId,
  tokenUnlimited: false,
  amount,
});

describe('QuotaHolds', () => {
  it('grants a hold both balances cover, less what is held, and changes nothing on a refusal', () => {
    const holds = new QuotaHolds();
    const committed = balances({ 1: 1000 }, { 10: 300, 11: 5000 });
    expect(holds.take(limited(200), committed)).toBeNull();
    // The token has 100 left: refused, and the user holds no more than before.
    expect(holds.take(limited(150), committed)).toBe('insufficient_token_quota');
    expect(holds.ofUser(1)).toBe(200);
    expect(holds.ofToken(10)).toBe(200);
    expect(holds.take(limited(800, 1, 11), committed)).toBeNull();
    // 1000 - 200 - 800 leaves nothing for the user, whichever token it uses.
    expect(holds.take(limited(1), committed)).toBe('insufficient_user_quota');
    expect(holds.take({ ...limited(1), tokenUnlimited: true }, committed)).toBe('insufficient_user_quota');
    // Exactly what is left is enough.
    holds.add(limited(800, 1, 11), -800);
    expect(holds.take(limited(100), committed)).toBeNull();
    expect(holds.ofToken(10)).toBe(300);
  });

  it("leaves an unlimited token's balance out of it", () => {
    const holds = new QuotaHolds();
    const committed = balances({ 1: 500 }, { 10: 0 });
    const unlimited = { ...limited(400), tokenUnlimited: true };
    expect(holds.take(unlimited, committed)).toBeNull();
    expect(holds.ofToken(10)).toBe(0);
    expect(holds.ofUser(1)).toBe(400);
  });

  it('refuses a user or token that does not exist, and grants a zero amount to anyone', () => {
    const holds = new QuotaHolds();
    const committed = balances({ 1: 500 }, {});
    expect(holds.take(limited(1, 2), committed)).toBe('insufficient_user_quota');
    expect(holds.take(limited(1), committed)).toBe('insufficient_token_quota');
    expect(holds.take(limited(0, 2, 99), committed)).toBeNull();
    expect(holds.size).toBe(0);
  });

  it('forgets a user or token once nothing is held on it', () => {
    const holds = new QuotaHolds();
    const committed = balances({ 1: 500, 2: 500 }, { 10: 500, 20: 500 });
    expect(holds.take(limited(100), committed)).toBeNull();
    expect(holds.take(limited(50, 2, 20), committed)).toBeNull();
    expect(holds.size).toBe(4);
    // Settled at 30: the charge stays held until it is committed, then goes too.
    holds.add(limited(100), 30 - 100);
    expect(holds.ofUser(1)).toBe(30);
    holds.add(limited(100), -30);
    holds.add(limited(50, 2, 20), -50);
    expect(holds.size).toBe(0);
  });
});
