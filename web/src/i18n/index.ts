import i18n, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { readText, StorageKey, writeText } from '../lib/storage';
import { DEFAULT_LANGUAGE, htmlLangOf, isLanguageCode, type LanguageCode, pickLanguage } from './languages';
import { startLanguage } from './start-language';
import type { Messages } from './types';

// Each language is a chunk of its own, loaded when it is chosen: a page's first load carries one
// language's texts, not four.
const LOADERS: Record<LanguageCode, () => Promise<Messages>> = {
  zh_CN: () => import('./locales/zh-cn').then((m) => m.zhCN),
  zh_HK: () => import('./locales/zh-hk').then((m) => m.zhHK),
  en_US: () => import('./locales/en-us').then((m) => m.enUS),
  ja_JP: () => import('./locales/ja-jp').then((m) => m.jaJP),
};

const lazyLocales: BackendModule = {
  type: 'backend',
  init() {},
  read(language, _namespace, callback) {
    const load = isLanguageCode(language) ? LOADERS[language] : undefined;
    if (!load) return callback(null, {});
    load().then(
      (messages) => callback(null, messages as unknown as Record<string, unknown>),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null),
    );
  },
};

/**
 * Starts i18next in the visitor's language. `preloaded` languages are used as given (tests pass all
 * four); any other is loaded on first use. The promise settles once the language's texts are in.
 */
export function initI18n(preloaded: Partial<Record<LanguageCode, Messages>> = {}): Promise<unknown> {
  if (i18n.isInitialized) return Promise.resolve();
  const resources = Object.fromEntries(
    Object.entries(preloaded).map(([code, messages]) => [code, { translation: messages }]),
  );
  const ready = i18n
    .use(lazyLocales)
    .use(initReactI18next)
    .init({
      resources,
      partialBundledLanguages: true,
      lng: startLanguage(),
      // Every language holds every key (i18n.test.ts), so no second language is loaded as a fallback.
      fallbackLng: false,
      initAsync: false,
      showSupportNotice: false,
      interpolation: { escapeValue: false },
    });
  syncDocumentLanguage(currentLanguage());
  i18n.on('languageChanged', (lng) => {
    if (isLanguageCode(lng)) syncDocumentLanguage(lng);
  });
  return ready;
}

export function currentLanguage(): LanguageCode {
  return isLanguageCode(i18n.language) ? i18n.language : DEFAULT_LANGUAGE;
}

/** A choice made in the language menu: applied and saved. */
export function chooseLanguage(code: LanguageCode): void {
  writeText(StorageKey.appLanguage, code);
  void i18n.changeLanguage(code);
}

/** The server's default applies only while the visitor has not chosen a language. */
export function applyServerLanguage(serverLanguage: unknown): void {
  if (readText(StorageKey.appLanguage) !== null) return;
  const code = pickLanguage(null, serverLanguage);
  if (code !== i18n.language) void i18n.changeLanguage(code);
}

function syncDocumentLanguage(code: LanguageCode): void {
  document.documentElement.lang = htmlLangOf(code);
}

export { i18n };
