import { afterEach, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../i18n/languages';
import {
  type FirstScreenPlan,
  firstScreenFiles,
  firstScreenRequests,
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

describe('firstScreenRequests', () => {
  it("lists the dashboard's figures requests for a signed-in visit, under the base path", () => {
    expect(firstScreenRequests('/hub/panel/dashboard', '/hub', true)).toEqual([
      'api/user/self',
      'api/user/dashboard',
    ]);
  });

  it('asks for nothing without a session, or on a screen outside the list', () => {
    expect(firstScreenRequests('/panel/dashboard', undefined, false)).toEqual([]);
    expect(firstScreenRequests('/panel/log', undefined, true)).toEqual([]);
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

  it("preloads the dashboard's requests for a stored session, as fetch() will ask for them", () => {
    localStorage.setItem('user', JSON.stringify({ id: 1, username: 'root', role: 100 }));
    window.history.replaceState(null, '', '/panel/dashboard');

    preloadFirstScreen(document, window);

    const links = [...document.head.querySelectorAll('link')];
    expect(links.map((l) => [l.rel, l.as, l.getAttribute('href'), l.getAttribute('crossorigin')])).toEqual([
      ['preload', 'fetch', 'api/user/self', 'anonymous'],
      ['preload', 'fetch', 'api/user/dashboard', 'anonymous'],
    ]);
  });

  it('does nothing without a plan (the development server has none)', () => {
    preloadFirstScreen(document, window);
    expect(document.head.querySelectorAll('link')).toHaveLength(0);
  });
});
