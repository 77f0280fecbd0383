import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { isRecord, readJson, readText, StorageKey, writeText } from '../lib/storage';
import { DEFAULT_LANGUAGE, htmlLangOf, isLanguageCode, type LanguageCode, pickLanguage } from './languages';
import { messagesByLanguage } from './resources';

function cachedServerLanguage(): unknown {
  return readJson(StorageKey.siteInfo, isRecord)?.language;
}

export function initI18n(): typeof i18n {
  if (i18n.isInitialized) return i18n;
  const resources = Object.fromEntries(
    Object.entries(messagesByLanguage).map(([code, messages]) => [code, { translation: messages }]),
  );
  void i18n.use(initReactI18next).init({
    resources,
    lng: pickLanguage(readText(StorageKey.appLanguage), cachedServerLanguage()),
    fallbackLng: DEFAULT_LANGUAGE,
    initAsync: false,
    showSupportNotice: false,
    interpolation: { escapeValue: false },
  });
  syncDocumentLanguage(currentLanguage());
  i18n.on('languageChanged', (lng) => {
    if (isLanguageCode(lng)) syncDocumentLanguage(lng);
  });
  return i18n;
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
