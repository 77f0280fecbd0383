import { describe, expect, it } from 'vitest';
import { logComplaints } from './gateway-log.js';

describe('logComplaints', () => {
  it('counts warn and error lines by message and skips info and non-JSON lines', () => {
    const text = [
      '{"level":30,"msg":"Server listening"}',
      '{"level":40,"msg":"upstream attempt failed: timeout"}',
      '{"level":40,"msg":"upstream attempt failed: timeout"}',
      '{"level":50,"msg":"settlement failed; releasing the reserve"}',
      'not json',
      '{"level":60,"msg":"fatal"}',
      '',
    ].join('\n');
    expect(logComplaints(text)).toEqual({
      warnings: 2,
      errors: 2,
      messages: [
        { level: 'warn', msg: 'upstream attempt failed: timeout', count: 2 },
        { level: 'error', msg: 'settlement failed; releasing the reserve', count: 1 },
        { level: 'error', msg: 'fatal', count: 1 },
      ],
    });
  });
});
