import { describe, expect, it } from 'vitest';
import { withOpenThink } from './gemini-open-think.js';

describe('GeminiOpenThink', () => {
  const body = {
    contents: [],
    generationConfig: { temperature: 1, thinkingConfig: { thinkingBudget: 512 } },
  };

  it('adds includeThoughts for listed models and keeps the budget', () => {
    expect(withOpenThink(body, 'g', { g: true })).toEqual({
      contents: [],
      generationConfig: { temperature: 1, thinkingConfig: { thinkingBudget: 512, includeThoughts: true } },
    });
    expect(withOpenThink({ contents: [] }, 'g', { g: true })).toEqual({
      contents: [],
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    });
  });

  it('leaves other models, models set to false and requests that already decide alone', () => {
    expect(withOpenThink(body, 'other', { g: true })).toBe(body);
    expect(withOpenThink(body, 'g', { g: false })).toBe(body);
    const decided = { generationConfig: { thinkingConfig: { includeThoughts: false } } };
    expect(withOpenThink(decided, 'g', { g: true })).toBe(decided);
  });
});
