import { afterEach, describe, expect, it } from 'vitest';
import { startLanguage } from './start-language';

describe('startLanguage', () => {
  afterEach(() => localStorage.clear());

  it('takes the saved choice, else the cached server default, else zh_CN', () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'zh_CN'],
      [{ appLanguage: 'en_US' }, 'en_US'],
      [{ appLanguage: 'xx', siteInfo: JSON.stringify({ language: 'ja_JP' }) }, 'ja_JP'],
      [{ siteInfo: JSON.stringify({ language: 'zh_HK' }) }, 'zh_HK'],
      [{ siteInfo: '{"language":' }, 'zh_CN'],
      [{ siteInfo: JSON.stringify({ language: 'fr_FR' }) }, 'zh_CN'],
      [{ appLanguage: 'ja_JP', siteInfo: JSON.stringify({ language: 'en_US' }) }, 'ja_JP'],
    ];
    for (const [values, expected] of cases) {
      localStorage.clear();
      for (const [k, v] of Object.entries(values)) localStorage.setItem(k, v);
      expect(startLanguage()).toBe(expected);
    }
  });
});
