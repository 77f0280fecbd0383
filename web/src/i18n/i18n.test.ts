import { describe, expect, it } from 'vitest';
import { LANGUAGES, pickLanguage } from './languages';
import { zhCN } from './locales/zh-cn';
import { messagesByLanguage } from './resources';

function leaves(tree: object, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else if (typeof value === 'object' && value !== null) for (const e of leaves(value, path)) out.set(...e);
    else throw new Error(`${path} is neither a string nor a group`);
  }
  return out;
}

const variables = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

const source = leaves(zhCN);

describe('locales', () => {
  it('registers the four spec languages with zh_CN as the source', () => {
    expect(LANGUAGES.map((l) => l.code)).toEqual(['zh_CN', 'zh_HK', 'en_US', 'ja_JP']);
    expect(messagesByLanguage.zh_CN).toBe(zhCN);
  });

  for (const { code } of LANGUAGES) {
    describe(code, () => {
      const messages = leaves(messagesByLanguage[code]);

      it('has no missing key', () => {
        expect([...source.keys()].filter((k) => !messages.has(k))).toEqual([]);
      });

      it('has no extra key', () => {
        expect([...messages.keys()].filter((k) => !source.has(k))).toEqual([]);
      });

      it('has no empty text and uses the same {{variables}} as zh_CN', () => {
        for (const [key, text] of messages) {
          expect(text.trim(), key).not.toBe('');
          // A translation may leave out a decorative variable (en has no "{{name}}" in copy texts),
          // but may never invent one that the code does not pass.
          for (const v of variables(text))
            expect(variables(source.get(key) ?? ''), `${key} uses {{${v}}}`).toContain(v);
        }
      });
    });
  }

  it("keeps one-hub's error texts and the announcement title verbatim in zh_CN", () => {
    expect(zhCN.errors.tooManyRequests).toBe('错误：请求次数过多，请稍后再试！');
    expect(zhCN.errors.serverError).toBe('错误：服务器内部错误，请联系管理员！');
    expect(zhCN.errors.demoSite).toBe('本站仅作演示之用，无服务端！');
    expect(zhCN.errors.withMessage).toBe('错误：{{message}}');
    expect(zhCN.copy.success).toBe('复制{{name}}成功！');
    expect(zhCN.copy.failed).toBe('复制{{name}}失败，请手动复制：{{text}}');
    expect(zhCN.notice.title).toBe('公告');
  });

  it("keeps one-hub's error texts verbatim in en_US", () => {
    const en = messagesByLanguage.en_US;
    expect(en.errors.unreachable).toBe('Unable to connect to the server properly!');
    expect(en.errors.newVersion).toBe('New version available: {{version}}, use Shift F5 to refresh');
    expect(en.errors.unknown).toBe('Unknown error');
    expect(en.menu.itemsError).toBe('Menu Items Error');
    expect(en.validation.passwordsDoNotMatch).toBe('Passwords do not match');
    expect(en.auth.botCheckPending).toBe(
      'Please retry in a few seconds, the bot check is examining the environment',
    );
  });
});

describe('pickLanguage', () => {
  it('prefers the saved choice, then the server default, then zh_CN', () => {
    expect(pickLanguage('ja_JP', 'en_US')).toBe('ja_JP');
    expect(pickLanguage(null, 'en_US')).toBe('en_US');
    expect(pickLanguage('fr_FR', 'xx')).toBe('zh_CN');
    expect(pickLanguage(undefined, undefined)).toBe('zh_CN');
  });
});
