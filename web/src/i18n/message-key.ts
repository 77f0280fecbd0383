import type { ParseKeys } from 'i18next';

/** Any key of the locale files, e.g. 'menu.dashboard'. */
export type MessageKey = ParseKeys<'translation'>;
