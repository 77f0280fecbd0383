import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LANGUAGE, LANGUAGES, pickLanguage } from '../i18n/languages';
import { StorageKey } from '../lib/storage';
import {
  type FirstScreenPlan,
  firstScreenFiles,
  PLAN_ELEMENT_ID,
  planLanguage,
  preloadFirstScreen,
  screenPath,
} from './first-screen';

const plan: FirstScreenPlan = {
  screens: { '/login': ['./assets/login.js', './assets/field.js'], '/': ['./assets/home.js'] },
  locales: Object.fromEntries(LANGUAGES.map(({ code }) => [code, [`./assets/${code}.js`]])),
  fallbackLanguage: DEFAULT_LANGUAGE,
  keys: { language: StorageKey.appLanguage, siteInfo: StorageKey.siteInfo },
};

const storage = (values: Record<string, string>) => (key: string) => values[key] ?? null;

describe('screenPath', () => {
  it('takes the base path off and ignores a trailing slash', () => {
    expect(screenPath('/login', undefined)).toBe('/login');
    expect(screenPath('/login/', '/')).toBe('/login');
    expect(screenPath('/hub/login', '/hub')).toBe('/login');
    expect(screenPath('/hub/', '/hub/')).toBe('/');
    expect(screenPath('/hub', 'hub')).toBe('/');
    // A path that only starts with the base's letters is not under it.
    expect(screenPath('/hubble/login', '/hub')).toBe('/hubble/login');
  });
});

describe('planLanguage', () => {
  it('picks what i18n will start in: the saved choice, the cached server default, zh_CN', () => {
    const cases: Record<string, string>[] = [
      {},
      { appLanguage: 'en_US' },
      { appLanguage: 'xx', siteInfo: JSON.stringify({ language: 'ja_JP' }) },
      { siteInfo: JSON.stringify({ language: 'zh_HK' }) },
      { siteInfo: '{"language":' },
      { siteInfo: JSON.stringify({ language: 'fr_FR' }) },
      { appLanguage: 'ja_JP', siteInfo: JSON.stringify({ language: 'en_US' }) },
    ];
    for (const values of cases) {
      let server: unknown;
      try {
        server = (JSON.parse(values.siteInfo ?? 'null') as { language?: unknown } | null)?.language;
      } catch {
        server = undefined;
      }
      expect(planLanguage(plan, storage(values))).toBe(pickLanguage(values.appLanguage ?? null, server));
    }
  });
});

describe('firstScreenFiles', () => {
  it("lists a planned screen's chunks and the language's", () => {
    expect(firstScreenFiles(plan, '/hub/login', '/hub', storage({ appLanguage: 'en_US' }))).toEqual([
      './assets/login.js',
      './assets/field.js',
      './assets/en_US.js',
    ]);
  });

  it('lists only the language for a screen outside the plan', () => {
    expect(firstScreenFiles(plan, '/panel/log', '/', storage({}))).toEqual(['./assets/zh_CN.js']);
  });
});

describe('preloadFirstScreen', () => {
  afterEach(() => {
    document.head.innerHTML = '';
    document.body.innerHTML = '';
    localStorage.clear();
    window.history.replaceState(null, '', '/');
  });

  it("adds a module preload per file of the visit, from the page's plan", () => {
    const data = document.createElement('script');
    data.type = 'application/json';
    data.id = PLAN_ELEMENT_ID;
    data.textContent = JSON.stringify(plan);
    document.body.appendChild(data);
    localStorage.setItem('appLanguage', 'ja_JP');
    window.history.replaceState(null, '', '/login');

    preloadFirstScreen(document, window);

    const links = [...document.head.querySelectorAll('link')];
    expect(links.map((l) => [l.rel, l.getAttribute('href'), l.getAttribute('crossorigin')])).toEqual([
      ['modulepreload', './assets/login.js', ''],
      ['modulepreload', './assets/field.js', ''],
      ['modulepreload', './assets/ja_JP.js', ''],
    ]);
  });

  it('does nothing without a plan (the development server has none)', () => {
    preloadFirstScreen(document, window);
    expect(document.head.querySelectorAll('link')).toHaveLength(0);
  });
});
