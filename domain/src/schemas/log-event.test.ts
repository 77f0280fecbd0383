import { describe, expect, it } from 'vitest';
import { logEventOf } from './log-event.js';

describe('logEventOf', () => {
  it('reads a known event from a row metadata', () => {
    expect(logEventOf({ redemption_id: 4, event: { kind: 'redeem', code: 'spring', code_id: 4 } })).toEqual({
      kind: 'redeem',
      code: 'spring',
      code_id: 4,
    });
    expect(logEventOf({ event: { kind: 'admin_quota' } })).toEqual({ kind: 'admin_quota' });
  });

  it('answers undefined for rows without an event, unknown kinds and malformed fields', () => {
    expect(logEventOf({})).toBeUndefined();
    expect(logEventOf(null)).toBeUndefined();
    expect(logEventOf('text')).toBeUndefined();
    expect(logEventOf({ event: { kind: 'from_the_future' } })).toBeUndefined();
    expect(logEventOf({ event: { kind: 'redeem', code: 7 } })).toBeUndefined();
  });
});
