// Did every request the gateway sent upstream end in exactly one settlement? Counted from the
// database before and after a load phase, against the upstream's own request counter.

/** Totals read from the gateway's database (benchmark users, their tokens, all channels). */
export interface LedgerSnapshot {
  /** Consume log rows. */
  logRows: number;
  /** Sum of `quota` over consume log rows. */
  logQuota: number;
  userQuota: number;
  userUsed: number;
  userRequests: number;
  tokenRemain: number;
  tokenUsed: number;
  channelUsed: number;
  /** Requests the fake upstreams answered (their own counters, not the database). */
  upstreamRequests: number;
}

export interface AccountingCheck {
  phase: string;
  /** Requests that reached the upstream during the phase: each must settle exactly once. */
  upstreamRequests: number;
  logRows: number;
  quotaCharged: number;
  ok: boolean;
  /** Human-readable mismatches; empty when ok. */
  problems: string[];
}

/**
 * Compares two snapshots taken around a load phase (after the gateway's writer drained). With
 * consume logging on, every upstream request is one settlement: one log row, one request counted,
 * and the log's quota equals what left the balances and what was added to every used counter.
 */
export function checkAccounting(
  phase: string,
  before: LedgerSnapshot,
  after: LedgerSnapshot,
): AccountingCheck {
  const d = (k: keyof LedgerSnapshot) => after[k] - before[k];
  const upstream = d('upstreamRequests');
  const rows = d('logRows');
  const charged = d('logQuota');
  const problems: string[] = [];
  const expect = (what: string, actual: number, expected: number) => {
    if (actual !== expected) problems.push(`${what}: ${actual}, expected ${expected}`);
  };
  expect('log rows written', rows, upstream);
  expect('requests counted on users', d('userRequests'), upstream);
  expect('quota taken from users', -d('userQuota'), charged);
  expect('used quota added to users', d('userUsed'), charged);
  expect('quota taken from tokens', -d('tokenRemain'), charged);
  expect('used quota added to tokens', d('tokenUsed'), charged);
  expect('used quota added to channels', d('channelUsed'), charged);
  return {
    phase,
    upstreamRequests: upstream,
    logRows: rows,
    quotaCharged: charged,
    ok: problems.length === 0,
    problems,
  };
}

/** True when the writer has caught up: log rows and balances agree with the upstream count. */
export function isSettled(before: LedgerSnapshot, now: LedgerSnapshot): boolean {
  return checkAccounting('', before, now).ok;
}
