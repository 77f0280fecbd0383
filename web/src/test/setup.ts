import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach } from 'vitest';
import { i18n, initI18n } from '../i18n';
import { messagesByLanguage } from '../i18n/resources';

await initI18n(messagesByLanguage);

// jsdom does not scroll; the shell scrolls to the top on every navigation.
window.scrollTo = () => {};

beforeEach(async () => {
  window.localStorage.clear();
  await i18n.changeLanguage('zh_CN');
});

afterEach(() => cleanup());
