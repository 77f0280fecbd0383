import { describe, expect, it } from 'vitest';
import { RetryBudget } from './retry-budget.js';

const START = 1_700_000_000_000;

/** Runs attempts until the budget says stop; returns how many started and why it stopped. */
function exhaust(budget: RetryBudget, nowAt: (attempt: number) => number) {
  for (;;) {
    const verdict = budget.check(nowAt(budget.attempts));
    if (!verdict.ok) return { attempts: budget.attempts, reason: verdict.reason };
    budget.begin();
    if (budget.attempts > 100) throw new Error('budget never ran out');
  }
}

describe('RetryBudget', () => {
  it('allows exactly one attempt with RetryTimes 0', () => {
    const b = new RetryBudget({ RetryTimes: 0, RetryTimeOut: 10 }, START);
    expect(b.retriesLeft).toBe(0);
    expect(exhaust(b, () => START)).toEqual({ attempts: 1, reason: 'attempts' });
  });

  it('allows the first attempt plus RetryTimes retries', () => {
    const b = new RetryBudget({ RetryTimes: 3, RetryTimeOut: 10 }, START);
    expect(b.retriesLeft).toBe(3);
    b.begin();
    expect(b.retriesLeft).toBe(3);
    b.begin();
    expect(b.retriesLeft).toBe(2);
    expect(exhaust(b, () => START + 1_000)).toEqual({ attempts: 4, reason: 'attempts' });
    expect(b.retriesLeft).toBe(0);
  });

  it('stops retrying once RetryTimeOut seconds have passed since the request started', () => {
    const b = new RetryBudget({ RetryTimes: 10, RetryTimeOut: 10 }, START);
    // Each attempt takes 4 s: attempts start at 0, 4 and 8 s; at 12 s the budget is spent.
    expect(exhaust(b, (n) => START + n * 4_000)).toEqual({ attempts: 3, reason: 'timeout' });
  });

  it('counts the deadline from the request start, to the millisecond', () => {
    const b = new RetryBudget({ RetryTimes: 5, RetryTimeOut: 2 }, START);
    b.begin();
    expect(b.check(START + 1_999)).toEqual({ ok: true });
    expect(b.check(START + 2_000)).toEqual({ ok: false, reason: 'timeout' });
  });

  it('always lets the first attempt start, even past the deadline', () => {
    const b = new RetryBudget({ RetryTimes: 2, RetryTimeOut: 1 }, START);
    expect(b.check(START + 60_000)).toEqual({ ok: true });
  });

  it('has no time limit when RetryTimeOut is 0', () => {
    const b = new RetryBudget({ RetryTimes: 2, RetryTimeOut: 0 }, START);
    expect(exhaust(b, (n) => START + n * 3_600_000)).toEqual({ attempts: 3, reason: 'attempts' });
  });
});
