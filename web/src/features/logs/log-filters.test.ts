import { describe, expect, it } from 'vitest';
import { fromInputTime, logBreakdown, statQuery, toInputTime } from './log-filters';

describe('log filters', () => {
  it('turns a typed local time into unix seconds and back', () => {
    const seconds = fromInputTime('2026-11-23T08:15');
    expect(seconds).toBe(String(new Date('2026-11-23T08:15').getTime() / 1000));
    expect(toInputTime(seconds)).toBe('2026-11-23T08:15');
    expect(fromInputTime('')).toBe('');
    expect(toInputTime('abc')).toBe('');
  });

  it('asks the stat endpoint with the same filters a role may use, without the type', () => {
    const filters = { token_name: 't', log_type: '2', username: 'bob', start_timestamp: '10', source_ip: '' };
    expect(statQuery(filters, false)).toEqual({ token_name: 't', start_timestamp: '10' });
    expect(statQuery(filters, true)).toEqual({ token_name: 't', start_timestamp: '10', username: 'bob' });
  });

  it('reads a client disconnect and how it was billed', () => {
    expect(logBreakdown({ client_aborted: true })).toMatchObject({
      clientAborted: true,
      deliveredOnly: false,
    });
    expect(logBreakdown({ client_aborted: true, billed_delivered_only: true })).toMatchObject({
      clientAborted: true,
      deliveredOnly: true,
    });
    expect(logBreakdown({})).toMatchObject({ clientAborted: false, deliveredOnly: false });
  });

  it('reads the token breakdown and ratios the relay writes', () => {
    const b = logBreakdown({
      price_type: 'tokens',
      group_ratio: 1.5,
      input_ratio: 3,
      output_ratio: 6,
      cached_tokens: 100,
      cached_tokens_ratio: 0.5,
      reasoning_tokens: 20,
      first_response: 120,
      estimated: true,
      shortfall: 7,
    });
    expect(b.tokens).toEqual([
      { kind: 'cached_tokens', count: 100, ratio: 0.5 },
      { kind: 'reasoning_tokens', count: 20, ratio: undefined },
    ]);
    expect(b).toMatchObject({
      groupRatio: 1.5,
      inputRatio: 3,
      outputRatio: 6,
      priceType: 'tokens',
      firstResponseMs: 120,
      estimated: true,
      shortfall: 7,
    });
  });
});
