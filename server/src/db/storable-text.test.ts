import { describe, expect, it } from 'vitest';
import { cleanStrings, findUnstorable, hasUnstorableText, storableText } from './storable-text.js';

describe('storable text', () => {
  it('finds NULs and lone surrogates, and only them', () => {
    expect(hasUnstorableText('gpt-4o')).toBe(false);
    expect(hasUnstorableText('emoji 😀 and 中文')).toBe(false);
    expect(hasUnstorableText('gpt\u00004o')).toBe(true);
    expect(hasUnstorableText('bad \ud800 half')).toBe(true);
    expect(hasUnstorableText('bad \udc00 half')).toBe(true);
  });

  it('strips NULs and replaces lone surrogates', () => {
    expect(storableText('a\u0000b\u0000')).toBe('ab');
    expect(storableText('x\ud800y')).toBe('x\ufffdy');
    expect(storableText('😀')).toBe('😀');
  });

  it('walks objects and arrays, keys included, and keeps clean values as they are', () => {
    const clean = { a: ['x', { b: 'y' }], n: 1 };
    expect(cleanStrings(clean)).toBe(clean);
    expect(findUnstorable(clean)).toBeUndefined();
    const dirty = { name: 'to\u0000ken', list: ['ok', 'x\ud800'], ['k\u0000']: true };
    expect(findUnstorable(dirty)).toBe('to\u0000ken');
    expect(cleanStrings(dirty)).toEqual({ name: 'token', list: ['ok', 'x\ufffd'], k: true });
  });
});
