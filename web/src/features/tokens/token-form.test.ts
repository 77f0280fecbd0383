import { describe, expect, it } from 'vitest';
import { emptyTokenForm, tokenBody, tokenFormErrors, tokenFormOf } from './token-form';

const currency = { quotaPerUnit: 500000, displayInCurrency: true };
const raw = { quotaPerUnit: 500000, displayInCurrency: false };
const now = new Date('2026-11-23T12:00:00');

describe('token form', () => {
  it('converts a currency amount to raw quota and -1 for never', () => {
    const v = { ...emptyTokenForm(now, currency), name: ' laptop ', quota: '2.5' };
    expect(tokenFormErrors(v, now)).toEqual({});
    expect(tokenBody(v, currency)).toMatchObject({
      name: 'laptop',
      expired_time: -1,
      remain_quota: 1250000,
      unlimited_quota: false,
    });
    expect(tokenBody({ ...v, quota: '1234' }, raw).remain_quota).toBe(1234);
  });

  it('sends an expiry as unix seconds and refuses one in the past or unreadable', () => {
    const v = { ...emptyTokenForm(now, raw), name: 'a', neverExpires: false, expiresAt: '2026-12-01T08:30' };
    expect(tokenBody(v, raw).expired_time).toBe(new Date('2026-12-01T08:30').getTime() / 1000);
    expect(tokenFormErrors({ ...v, expiresAt: '2026-11-01T00:00' }, now).expiresAt).toBe('past');
    expect(tokenFormErrors({ ...v, expiresAt: '' }, now).expiresAt).toBe('invalid');
  });

  it('requires a name of at most 30 characters and a quota of at least 0 unless unlimited', () => {
    const v = emptyTokenForm(now, raw);
    expect(tokenFormErrors(v, now).name).toBe('required');
    expect(tokenFormErrors({ ...v, name: 'x'.repeat(31) }, now).name).toBe('tooLong');
    expect(tokenFormErrors({ ...v, name: 'a', quota: '-1' }, now).quota).toBe('negative');
    expect(tokenFormErrors({ ...v, name: 'a', quota: 'abc' }, now).quota).toBe('invalid');
    expect(tokenFormErrors({ ...v, name: 'a', quota: 'abc', unlimited: true }, now)).toEqual({});
  });

  it('shows a token back in the units typed', () => {
    const view = {
      id: 1,
      user_id: 1,
      name: 'n',
      key_hint: '',
      status: 1,
      created_time: 0,
      accessed_time: 0,
      expired_time: -1,
      remain_quota: 750000,
      unlimited_quota: false,
      used_quota: 0,
      group: 'vip',
      models: null,
      subnet: '',
    };
    expect(tokenFormOf(view, currency)).toMatchObject({ quota: '1.5', neverExpires: true, group: 'vip' });
    expect(tokenFormOf(view, raw).quota).toBe('750000');
  });
});
