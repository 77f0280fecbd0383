import type { OptionValues } from '@switchyard/domain';

export type RetryLimits = Pick<OptionValues, 'RetryTimes' | 'RetryTimeOut'>;

export type RetryVerdict = { ok: true } | { ok: false; reason: 'attempts' | 'timeout' };

/**
 * One request's allowance of attempts: the first attempt plus `RetryTimes` retries, and no new
 * attempt once `RetryTimeOut` seconds have passed since the request started (0 = no time limit).
 * The limits are copied at the start, so an option change mid-request does not move the goalposts.
 */
export class RetryBudget {
  private readonly maxAttempts: number;
  private readonly deadlineMs: number;
  private made = 0;

  constructor(limits: RetryLimits, startedAtMs: number) {
    this.maxAttempts = 1 + Math.max(0, Math.floor(limits.RetryTimes));
    this.deadlineMs =
      limits.RetryTimeOut > 0 ? startedAtMs + limits.RetryTimeOut * 1000 : Number.POSITIVE_INFINITY;
  }

  /** Attempts started so far. */
  get attempts(): number {
    return this.made;
  }

  /** Retries still allowed by count alone. */
  get retriesLeft(): number {
    return Math.max(0, this.maxAttempts - Math.max(1, this.made));
  }

  /** Whether another attempt may start now; the first attempt always may. */
  check(nowMs: number): RetryVerdict {
    if (this.made === 0) return { ok: true };
    if (this.made >= this.maxAttempts) return { ok: false, reason: 'attempts' };
    if (nowMs >= this.deadlineMs) return { ok: false, reason: 'timeout' };
    return { ok: true };
  }

  /** Records the start of an attempt. */
  begin(): void {
    this.made++;
  }
}
