import { describe, expect, it } from 'vitest';
import { checkAccounting, isSettled, type LedgerSnapshot } from './accounting.js';

const before: LedgerSnapshot = {
  logRows: 10,
  logQuota: 200,
  userQuota: 1_000_000,
  userUsed: 200,
  userRequests: 10,
  tokenRemain: 500_000,
  tokenUsed: 200,
  channelUsed: 200,
  upstreamRequests: 12,
  abandonedCalls: 3,
  settlementsPending: 0,
};

/** `n` settled requests costing `q` quota each, every counter moved as a settlement moves it. */
function settled(n: number, q: number): LedgerSnapshot {
  return {
    logRows: before.logRows + n,
    logQuota: before.logQuota + n * q,
    userQuota: before.userQuota - n * q,
    userUsed: before.userUsed + n * q,
    userRequests: before.userRequests + n,
    tokenRemain: before.tokenRemain - n * q,
    tokenUsed: before.tokenUsed + n * q,
    channelUsed: before.channelUsed + n * q,
    upstreamRequests: before.upstreamRequests + n,
    abandonedCalls: before.abandonedCalls,
    settlementsPending: 0,
  };
}

describe('checkAccounting', () => {
  it('passes when every upstream request left one log row and the money agrees everywhere', () => {
    const check = checkAccounting('chat', before, settled(100, 17));
    expect(check).toEqual({
      phase: 'chat',
      upstreamRequests: 100,
      logRows: 100,
      quotaCharged: 1700,
      abandonedCalls: 0,
      ok: true,
      problems: [],
    });
  });

  it('reports a lost log row', () => {
    const after = {
      ...settled(100, 17),
      logRows: before.logRows + 99,
      userRequests: before.userRequests + 99,
    };
    const check = checkAccounting('chat', before, after);
    expect(check.ok).toBe(false);
    expect(check.problems).toEqual(['log rows written: 99, expected 100']);
  });

  it('lets an abandoned call go unbilled, but never more of them than were abandoned', () => {
    // 100 upstream requests, 97 billed, 3 calls abandoned by their clients: the books hold.
    const three = {
      ...settled(97, 17),
      upstreamRequests: before.upstreamRequests + 100,
      abandonedCalls: before.abandonedCalls + 3,
    };
    expect(checkAccounting('chat', before, three)).toMatchObject({ ok: true, abandonedCalls: 3 });
    // A fourth missing row is a loss.
    const four = { ...three, upstreamRequests: before.upstreamRequests + 101 };
    expect(checkAccounting('chat', before, four).problems).toEqual([
      'log rows written: 97, expected 101 (or down to 98: 3 calls abandoned by their clients)',
    ]);
    // More rows than upstream requests is never right.
    const extra = { ...settled(5, 2), upstreamRequests: before.upstreamRequests + 4 };
    expect(checkAccounting('chat', before, extra).ok).toBe(false);
  });

  it('reports a request counted on the user without its log row', () => {
    const after = { ...settled(10, 1), userRequests: before.userRequests + 11 };
    expect(checkAccounting('chat', before, after).problems).toEqual([
      'requests counted on users: 11, expected 10',
    ]);
  });

  it('reports a reserve that was never settled (quota left the user but was not charged)', () => {
    const after = { ...settled(100, 17), userQuota: before.userQuota - 1700 - 80 };
    const check = checkAccounting('stream', before, after);
    expect(check.ok).toBe(false);
    expect(check.problems).toEqual(['quota taken from users: 1780, expected 1700']);
  });

  it('reports a settlement whose log row is missing its money on the channel', () => {
    const after = { ...settled(3, 5), channelUsed: before.channelUsed };
    expect(checkAccounting('x', before, after).problems).toEqual([
      'used quota added to channels: 0, expected 15',
    ]);
  });

  it('isSettled waits for the writer: not yet while rows are missing', () => {
    expect(
      isSettled(before, {
        ...settled(5, 2),
        logRows: before.logRows + 4,
        userRequests: before.userRequests + 4,
      }),
    ).toBe(false);
    expect(isSettled(before, settled(5, 2))).toBe(true);
    // Rows may be complete while a gateway still has settlements to commit (abandoned calls leave room).
    expect(isSettled(before, { ...settled(5, 2), settlementsPending: 2 })).toBe(false);
  });
});
