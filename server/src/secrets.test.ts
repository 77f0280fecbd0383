import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSecrets } from './secrets.js';

describe('resolveSecrets', () => {
  it('generates missing secrets once into the data dir and reuses them', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sy-secrets-'));
    const first = resolveSecrets(dir, { sessionSecret: undefined, secretKey: undefined });
    expect(first.generated.sort()).toEqual(['secretKey', 'sessionSecret']);
    expect(first.secrets.secretKey.length).toBeGreaterThanOrEqual(32);
    expect(statSync(path.join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    const second = resolveSecrets(dir, { sessionSecret: undefined, secretKey: undefined });
    expect(second.generated).toEqual([]);
    expect(second.secrets).toEqual(first.secrets);
  });

  it('prefers the environment and stores only what it generated', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sy-secrets-'));
    const given = 'x'.repeat(40);
    const r = resolveSecrets(dir, { sessionSecret: given, secretKey: undefined });
    expect(r.secrets.sessionSecret).toBe(given);
    expect(r.generated).toEqual(['secretKey']);
    const stored = JSON.parse(readFileSync(path.join(dir, 'secrets.json'), 'utf8'));
    expect(stored.sessionSecret).toBeUndefined();
  });
});
