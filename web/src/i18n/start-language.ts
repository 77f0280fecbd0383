import { isRecord, readJson, readText, StorageKey } from '../lib/storage';
import { type LanguageCode, pickLanguage } from './languages';

/**
 * The language the console starts in: the saved choice, else the server default cached from the
 * last GET /api/status, else zh_CN. Imports nothing heavy: the boot module uses it too.
 */
export function startLanguage(): LanguageCode {
  return pickLanguage(readText(StorageKey.appLanguage), readJson(StorageKey.siteInfo, isRecord)?.language);
}
