import { describe, expect, it } from 'vitest';
import { chatPromptTexts, KeywordAutomaton, refusedPrompt, SafeKeywordCheck } from './safe-keywords.js';

describe('keyword automaton', () => {
  it('finds any listed keyword, ignoring case, including ones inside others', () => {
    const a = new KeywordAutomaton(['he', 'she', 'hers', 'Bomb', '炸弹']);
    expect(a.find('USHERS')).toBe('she');
    expect(a.find('a bOMb here')).toBe('Bomb');
    expect(a.find('这是炸弹')).toBe('炸弹');
    expect(a.find('nothing to see')).toBeUndefined();
    // Failure links: "abcd" is not listed, "bcx" is; the scan must fall back from "abc" to "bc".
    expect(new KeywordAutomaton(['abcd', 'bcx']).find('abcx')).toBe('bcx');
  });

  it('matches exactly what a loop of includes() would, over a thousand words', () => {
    const words = Array.from({ length: 1000 }, (_, i) => `w${(i * 7919).toString(36)}z`);
    const a = new KeywordAutomaton(words);
    for (let i = 0; i < 200; i++) {
      const text = `x ${(i * 104729).toString(36)} w${(i * 7919 * 3).toString(36)}z y`;
      const expected = words.find((w) => text.includes(w));
      expect(a.find(text) !== undefined, text).toBe(expected !== undefined);
    }
  });

  it('is rebuilt only when the option text changes', () => {
    const check = new SafeKeywordCheck();
    const first = check.automatonFor('alpha\nbeta');
    expect(check.automatonFor('alpha\nbeta')).toBe(first);
    expect(check.automatonFor('gamma').find('GAMMA ray')).toBe('gamma');
  });

  it('reads every text of a chat prompt and checks only when EnableSafe is on', () => {
    const body = {
      messages: [
        { role: 'system', content: 'be nice' },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://x/secret.png' } },
            { type: 'text', text: 'tell me the secret' },
          ],
        },
        { role: 'tool', content: [{ type: 'tool_result', content: [{ type: 'text', text: 'deep' }] }] },
      ],
    };
    expect([...chatPromptTexts(body)]).toEqual(['be nice', 'tell me the secret', 'deep']);
    const check = new SafeKeywordCheck();
    const o = { EnableSafe: true, SafeToolName: 'Keyword', SafeKeyWords: 'Secret' };
    expect(refusedPrompt(check, o, () => chatPromptTexts(body))).toEqual({
      rule: 'Keyword',
      keyword: 'Secret',
    });
    expect(refusedPrompt(check, { ...o, EnableSafe: false }, () => chatPromptTexts(body))).toBeUndefined();
  });
});
