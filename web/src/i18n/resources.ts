import type { LanguageCode } from './languages';
import { enUS } from './locales/en-us';
import { jaJP } from './locales/ja-jp';
import { zhCN } from './locales/zh-cn';
import { zhHK } from './locales/zh-hk';
import type { Messages } from './types';

export const messagesByLanguage: Record<LanguageCode, Messages> = {
  zh_CN: zhCN,
  zh_HK: zhHK,
  en_US: enUS,
  ja_JP: jaJP,
};
