import { describe, expect, it } from 'vitest';
import { SecretBox } from '../crypto/secret-box.js';
import {
  apiKeyHash,
  bearerKeyFromHeaders,
  maskApiKey,
  newApiKey,
  parseBearerKey,
  sealApiKey,
  unsealApiKey,
} from './api-keys.js';

describe('API keys', () => {
  const box = new SecretBox('test-secret-key-for-api-keys');

  it('are sk- plus 48 base62 characters, all different', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const key = newApiKey();
      expect(key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
      keys.add(key);
    }
    expect(keys.size).toBe(2000);
  });

  it('use the whole alphabet about evenly (no modulo bias towards the first letters)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      for (const ch of newApiKey().slice(3)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    // 96 000 characters over 62 symbols: about 1548 each; a biased generator would skew the first 8.
    for (const n of counts.values()) expect(n).toBeGreaterThan(1300);
    for (const n of counts.values()) expect(n).toBeLessThan(1800);
  });

  it('are stored as an HMAC of the secret part and a sealed copy that opens to the same key', () => {
    const key = newApiKey();
    const { key_hash, key_sealed } = sealApiKey(box, key);
    expect(key_hash).toBe(box.mac(key.slice(3)));
    expect(key_hash).toBe(apiKeyHash(box, key));
    expect(key_hash).toBe(apiKeyHash(box, key.slice(3)));
    expect(key_sealed).not.toContain(key.slice(3));
    expect(unsealApiKey(box, key_sealed)).toBe(key);
  });

  it('mask to a hint that shows only the ends', () => {
    expect(maskApiKey('sk-abcdEFGHijklMNOPqrstUVWXyz0123456789ABCDEFGHwxyz')).toBe('sk-abcd…wxyz');
  });

  it('parse from Authorization with or without Bearer and sk-', () => {
    expect(parseBearerKey('Bearer sk-abc123')).toEqual({ key: 'abc123' });
    expect(parseBearerKey('bearer   sk-abc123  ')).toEqual({ key: 'abc123' });
    expect(parseBearerKey('sk-abc123')).toEqual({ key: 'abc123' });
    expect(parseBearerKey('abc123')).toEqual({ key: 'abc123' });
    expect(parseBearerKey(['sk-first', 'sk-second'])).toEqual({ key: 'first' });
  });

  it('parse the administrator channel suffixes', () => {
    expect(parseBearerKey('Bearer sk-abc#12')).toEqual({ key: 'abc', pinChannelId: 12 });
    expect(parseBearerKey('sk-abc#!7')).toEqual({ key: 'abc', excludeChannelId: 7 });
  });

  it('refuse what cannot be a key', () => {
    for (const bad of [
      undefined,
      null,
      '',
      'Bearer ',
      'Bearer sk-',
      'sk-abc#',
      'sk-abc#x',
      'sk-abc#0',
      'sk-abc#-1',
      'sk-abc#!',
      'sk-abc#1#2',
      'sk-a b',
      `sk-${'a'.repeat(200)}`,
    ]) {
      expect(parseBearerKey(bad), String(bad)).toBeNull();
    }
  });

  it('read Authorization first, then x-api-key', () => {
    expect(bearerKeyFromHeaders({ authorization: 'Bearer sk-one', 'x-api-key': 'sk-two' })).toEqual({
      key: 'one',
    });
    expect(bearerKeyFromHeaders({ 'x-api-key': 'sk-two#3' })).toEqual({ key: 'two', pinChannelId: 3 });
    expect(bearerKeyFromHeaders({})).toBeNull();
  });
});
