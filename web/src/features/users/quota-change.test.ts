import { describe, expect, it } from 'vitest';
import { quotaChange } from './quota-change';

describe('quota change', () => {
  it('converts a currency amount to raw quota, rounded', () => {
    expect(quotaChange('1.5', 'currency', 500000, 0)).toEqual({ ok: true, delta: 750000 });
    expect(quotaChange('0.0000031', 'currency', 500000, 0)).toEqual({ ok: true, delta: 2 });
    expect(quotaChange('-2', 'raw', 500000, 10)).toEqual({ ok: true, delta: -2 });
  });

  it('requires an amount, a whole raw number and a change other than 0', () => {
    expect(quotaChange(' ', 'raw', 500000, 0)).toEqual({ ok: false, problem: 'required' });
    expect(quotaChange('1.5', 'raw', 500000, 0)).toEqual({ ok: false, problem: 'invalid' });
    expect(quotaChange('abc', 'currency', 500000, 0)).toEqual({ ok: false, problem: 'invalid' });
    expect(quotaChange('0', 'currency', 500000, 0)).toEqual({ ok: false, problem: 'zero' });
  });

  it('refuses to deduct more than the balance, but allows deducting all of it', () => {
    expect(quotaChange('-11', 'raw', 500000, 10)).toEqual({ ok: false, problem: 'overdraft' });
    expect(quotaChange('-10', 'raw', 500000, 10)).toEqual({ ok: true, delta: -10 });
    expect(quotaChange('-1', 'currency', 500000, 499999)).toEqual({ ok: false, problem: 'overdraft' });
  });
});
