import { describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  const box = new SecretBox('k'.repeat(32));

  it('round-trips and never produces the same ciphertext twice', () => {
    const a = box.encrypt('sk-upstream-secret');
    const b = box.encrypt('sk-upstream-secret');
    expect(a).not.toBe(b);
    expect(a).not.toContain('sk-upstream');
    expect(box.decrypt(a)).toBe('sk-upstream-secret');
  });

  it('rejects tampering and a different key', () => {
    const sealed = box.encrypt('value');
    const flipped = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}${sealed.slice(-1)}`;
    expect(() => box.decrypt(flipped)).toThrow();
    expect(() => new SecretBox('z'.repeat(32)).decrypt(sealed)).toThrow();
  });

  it('gives stable lookup hashes that depend on the key', () => {
    expect(box.mac('abc')).toBe(box.mac('abc'));
    expect(box.mac('abc')).not.toBe(box.mac('abd'));
    expect(new SecretBox('z'.repeat(32)).mac('abc')).not.toBe(box.mac('abc'));
  });
});
