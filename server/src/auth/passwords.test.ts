import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { Argon2Hasher } from './passwords.js';

describe('Argon2Hasher', () => {
  const hasher = new Argon2Hasher();

  it('accepts a bcrypt hash as one-hub and one-api store them and asks for a rehash', async () => {
    // Go's x/crypto/bcrypt writes $2a$ with cost 10.
    const stored = bcrypt.hashSync('old-password-1', 10).replace(/^\$2b\$/, '$2a$');
    expect(stored.startsWith('$2a$10$')).toBe(true);
    expect(await hasher.verify(stored, 'old-password-1')).toBe(true);
    expect(await hasher.verify(stored, 'old-password-2')).toBe(false);
    expect(hasher.needsRehash(stored)).toBe(true);
  });

  it('writes argon2id, which needs no rehash', async () => {
    const stored = await hasher.hash('new-password-1');
    expect(stored.startsWith('$argon2id$')).toBe(true);
    expect(hasher.needsRehash(stored)).toBe(false);
    expect(await hasher.verify(stored, 'new-password-1')).toBe(true);
    expect(await hasher.verify(stored, 'new-password-2')).toBe(false);
  });

  it('answers false for a malformed hash instead of throwing', async () => {
    expect(await hasher.verify('$2a$10$short', 'x')).toBe(false);
    expect(await hasher.verify('plain-text', 'plain-text')).toBe(false);
  });
});
