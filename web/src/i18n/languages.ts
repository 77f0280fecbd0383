// Each language is labelled in its own script, so the same label is shown whatever the UI language is.
export const LANGUAGES = [
  { code: 'zh_CN', label: '简体中文', htmlLang: 'zh-CN' },
  { code: 'zh_HK', label: '繁體中文', htmlLang: 'zh-HK' },
  { code: 'en_US', label: 'English', htmlLang: 'en-US' },
  { code: 'ja_JP', label: '日本語', htmlLang: 'ja-JP' },
] as const;

export type LanguageCode = (typeof LANGUAGES)[number]['code'];

export const DEFAULT_LANGUAGE: LanguageCode = 'zh_CN';

export function isLanguageCode(value: unknown): value is LanguageCode {
  return LANGUAGES.some((l) => l.code === value);
}

/** The saved choice, else the server's default language, else zh_CN. */
export function pickLanguage(saved: unknown, serverDefault: unknown): LanguageCode {
  if (isLanguageCode(saved)) return saved;
  if (isLanguageCode(serverDefault)) return serverDefault;
  return DEFAULT_LANGUAGE;
}

export function htmlLangOf(code: LanguageCode): string {
  return LANGUAGES.find((l) => l.code === code)?.htmlLang ?? 'zh-CN';
}
