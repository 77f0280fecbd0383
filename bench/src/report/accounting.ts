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
  /**
   * Calls whose client left before the upstream's answer was relayed (the gateways' /metrics, status
   * 499): the call is cancelled and not billed, though its request may already have reached the
   * upstream. The load generator leaves up to one such call per connection when a round ends.
   */
  abandonedCalls: number;
  /** Settlements the gateways have not committed yet (absolute, not a running total). */
  settlementsPending: number;
}

export interface AccountingCheck {
  phase: string;
  /** Requests that reached the upstream during the phase: each must settle exactly once. */
  upstreamRequests: number;
  logRows: number;
  quotaCharged: number;
  /** Calls abandoned by their clients during the phase (not billed). */
  abandonedCalls: number;
  ok: boolean;
  /** Human-readable mismatches; empty when ok. */
  problems: string[];
}

/**
 * Compares two snapshots taken around a load phase (after the gateway's writer drained). With
 * consume logging on, every upstream request is one settlement: one log row, one request counted,
 * and the log's quota equals what left the balances and what was added to every used counter. The
 * one exception is a call its client abandoned before the answer was relayed: it is cancelled and
 * not billed, and its request may or may not have reached the upstream first (a race the gateway
 * cannot see), so up to that many upstream requests may have no log row.
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
  const abandoned = d('abandonedCalls');
  const problems: string[] = [];
  const expect = (what: string, actual: number, expected: number) => {
    if (actual !== expected) problems.push(`${what}: ${actual}, expected ${expected}`);
  };
  const unbilled = upstream - rows;
  if (unbilled < 0 || unbilled > abandoned)
    problems.push(
      `log rows written: ${rows}, expected ${upstream}` +
        (abandoned > 0
          ? ` (or down to ${upstream - abandoned}: ${abandoned} calls abandoned by their clients)`
          : ''),
    );
  expect('requests counted on users', d('userRequests'), rows);
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
    abandonedCalls: abandoned,
    ok: problems.length === 0,
    problems,
  };
}

/** True when the writers have caught up: nothing pending, and the books agree with the upstream count. */
export function isSettled(before: LedgerSnapshot, now: LedgerSnapshot): boolean {
  return now.settlementsPending === 0 && checkAccounting('', before, now).ok;
}
