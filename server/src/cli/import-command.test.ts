import { describe, expect, it } from 'vitest';
import { normalizeSourceDsn } from '../import/source.js';
import { parseImportArgs, UsageError } from './import-command.js';

describe('import arguments', () => {
  it('reads the source system, address, dry run and log window', () => {
    expect(
      parseImportArgs(['--from', 'one-api', '--source', 'old.db', '--dry-run', '--logs', 'since=2024-03-01']),
    ).toEqual({
      from: 'one-api',
      source: 'old.db',
      dryRun: true,
      logsSince: Date.UTC(2024, 2, 1) / 1000,
    });
    expect(parseImportArgs(['--from', 'one-hub', '--source', 'x.db', '--logs', 'all']).logsSince).toBe(0);
    expect(parseImportArgs(['--from', 'new-api', '--source', 'x.db']).logsSince).toBeUndefined();
  });

  it('refuses what it cannot use, with the reason', () => {
    expect(() => parseImportArgs(['--source', 'x.db'])).toThrow(UsageError);
    expect(() => parseImportArgs(['--from', 'one-hub'])).toThrow('--source is required');
    expect(() =>
      parseImportArgs(['--from', 'one-hub', '--source', 'x', '--logs', 'since=yesterday']),
    ).toThrow('since=YYYY-MM-DD');
    expect(() => parseImportArgs(['--from', 'one-hub', '--source', 'x', '--bogus'])).toThrow(UsageError);
  });

  it('accepts the Go DSN the old systems are configured with', () => {
    expect(normalizeSourceDsn('oneapi:p@ss@tcp(db:3306)/oneapi?charset=utf8mb4&parseTime=True')).toBe(
      'mysql://oneapi:p%40ss@db:3306/oneapi',
    );
    expect(normalizeSourceDsn('root@tcp(127.0.0.1:3306)/one_hub')).toBe(
      'mysql://root@127.0.0.1:3306/one_hub',
    );
    expect(normalizeSourceDsn('/data/one-api.db')).toBe('sqlite:/data/one-api.db');
    expect(normalizeSourceDsn('postgres://u@h/db')).toBe('postgres://u@h/db');
    expect(() => normalizeSourceDsn('what')).toThrow(/Cannot read the source address/);
  });
});
