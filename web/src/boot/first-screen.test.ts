import { afterEach, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../i18n/languages';
import {
  type FirstScreenPlan,
  firstScreenFiles,
  PLAN_ELEMENT_ID,
  preloadFirstScreen,
  screenPath,
} from './first-screen';

const plan: FirstScreenPlan = {
  screens: { '/login': ['./assets/login.js', './assets/field.js'], '/': ['./assets/home.js'] },
  locales: Object.fromEntries(LANGUAGES.map(({ code }) => [code, [`./assets/${code}.js`]])),
};

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

describe('firstScreenFiles', () => {
  it("lists a planned screen's chunks and the language's", () => {
    expect(firstScreenFiles(plan, '/hub/login', '/hub', 'en_US')).toEqual([
      './assets/login.js',
      './assets/field.js',
      './assets/en_US.js',
    ]);
  });

  it('lists only the language for a screen outside the plan', () => {
    expect(firstScreenFiles(plan, '/panel/log', '/', 'zh_CN')).toEqual(['./assets/zh_CN.js']);
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
