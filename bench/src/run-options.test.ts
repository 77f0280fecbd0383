import { describe, expect, it } from 'vitest';
import { parseRunOptions, UsageError } from './run-options.js';

describe('parseRunOptions', () => {
  it('runs every variant with full-length phases by default', () => {
    const o = parseRunOptions([]);
    expect(o).toMatchObject({
      mode: 'full',
      rounds: 3,
      roundS: 3,
      connections: 64,
      slowStreams: 1000,
      logLevel: 'warn',
    });
    expect(o.variants).toEqual(['sqlite', 'postgres', 'postgres+redis']);
  });

  it('--quick shortens every phase and keeps to SQLite', () => {
    const o = parseRunOptions(['--quick']);
    expect(o.mode).toBe('quick');
    expect(o.variants).toEqual(['sqlite']);
    const full = parseRunOptions([]);
    expect(o.rounds * o.roundS).toBeLessThan(full.rounds * full.roundS);
    expect(o.slowStreams).toBe(1000);
  });

  it('takes a list of variants and refuses unknown ones', () => {
    expect(parseRunOptions(['--variants', 'postgres,sqlite']).variants).toEqual(['postgres', 'sqlite']);
    expect(() => parseRunOptions(['--variants', 'mysql'])).toThrow(UsageError);
    expect(() => parseRunOptions(['--bogus'])).toThrow();
  });
});
