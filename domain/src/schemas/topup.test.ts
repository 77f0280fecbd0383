import { describe, expect, it } from 'vitest';
import { topupAmount, topupAmountProblem } from './topup.js';

describe('top-up amount', () => {
  it('accepts a whole amount between the minimum and 1000000', () => {
    expect(topupAmountProblem('5', 5)).toBeNull();
    expect(topupAmountProblem(' 1000000 ', 1)).toBeNull();
    expect(topupAmount(5).parse(5)).toBe(5);
  });

  it('names each problem', () => {
    expect(topupAmountProblem('', 1)).toBe('required');
    expect(topupAmountProblem('0', 1)).toBe('notWholePositive');
    expect(topupAmountProblem('-3', 1)).toBe('notWholePositive');
    expect(topupAmountProblem('2.5', 1)).toBe('notWholePositive');
    expect(topupAmountProblem('1e3', 1)).toBe('notWholePositive');
    expect(topupAmountProblem('1000001', 1)).toBe('tooLarge');
    expect(topupAmountProblem('4', 5)).toBe('belowMinimum');
  });

  it('refuses the same amounts as numbers, with the text of one-hub for the upper bound', () => {
    expect(topupAmount(1).safeParse(2.5).success).toBe(false);
    expect(topupAmount(1).safeParse(0).success).toBe(false);
    expect(topupAmount(10).safeParse(9).success).toBe(false);
    expect(topupAmount(1).safeParse(1000001).error?.issues[0]?.message).toBe('Amount cannot exceed 1000000');
  });
});
