import { describe, expect, it } from 'vitest';
import { decodeSeqs, encodeSeqs } from './settled-marks.js';

describe('settled journal numbers', () => {
  it('are written as ascending ranges and read back', () => {
    expect(encodeSeqs([9, 4, 5, 6, 12, 7, 5])).toBe('4-7,9,12');
    expect(decodeSeqs('4-7,9,12')).toEqual([
      [4, 7],
      [9, 9],
      [12, 12],
    ]);
    expect(encodeSeqs([])).toBe('');
    expect(decodeSeqs('')).toEqual([]);
  });

  it('refuse a range they cannot read rather than take it for none', () => {
    expect(() => decodeSeqs('7-4')).toThrow(/unreadable/);
    expect(() => decodeSeqs('x')).toThrow(/unreadable/);
  });
});
