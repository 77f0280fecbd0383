import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { i18n } from '../i18n';
import { panelCrumbs } from './layouts/panel-breadcrumbs';
import { PANEL_HOME } from './panel-paths';
import { buildRoutes } from './router';
import {
  adminOnlyPaths,
  type MenuItem,
  menu,
  menuTrail,
  panelRoutes,
  publicNav,
  publicRoutes,
  visibleMenu,
} from './routes';

// Every child path of /panel that one-hub's console has, so old links keep working.
const SPEC_PANEL_PATHS = [
  'dashboard',
  'channel',
  'log',
  'redemption',
  'setting',
  'token',
  'topup',
  'user',
  'profile',
  'analytics',
  '404',
  'telegram',
  'pricing',
  'midjourney',
  'model_price',
  'playground',
  'payment',
  'task',
  'user_group',
  'model_ownedby',
];
const SPEC_PUBLIC_PATHS = [
  '',
  'about',
  'login',
  'register',
  'reset',
  'user/reset',
  'oauth/github',
  'oauth/oidc',
  'oauth/lark',
  '404',
  'jump',
  'playground',
  'price',
];

function flatten(items: readonly MenuItem[]): MenuItem[] {
  return items.flatMap((entry) => [entry, ...flatten(entry.children ?? [])]);
}

const shape = (items: readonly MenuItem[]): unknown =>
  items.map((e) => (e.children ? { [`${e.type}:${e.id}`]: shape(e.children) } : `${e.type}:${e.id}`));

describe('routes table', () => {
  it('registers every /panel child path of the console, and nothing else', () => {
    expect(panelRoutes.map((r) => r.path).sort()).toEqual([...SPEC_PANEL_PATHS].sort());
  });

  it('registers every public path of the console', () => {
    expect(publicRoutes.map((r) => r.path).sort()).toEqual([...SPEC_PUBLIC_PATHS].sort());
  });

  it('gives the router the same pages, with /panel itself sending to the dashboard', () => {
    const [root] = buildRoutes(new QueryClient());
    const [publicLayout, panel] = root?.children ?? [];
    expect(publicLayout?.children?.map((r) => (r.index ? '' : r.path)).sort()).toEqual(
      [...SPEC_PUBLIC_PATHS].sort(),
    );
    const panelChildren = panel?.children ?? [];
    expect(panel?.path).toBe('panel');
    expect(panelChildren[0]?.index).toBe(true);
    const routed = panelChildren.flatMap((r) => (r.children ? r.children : [r])).map((r) => r.path);
    for (const path of SPEC_PANEL_PATHS) expect(routed).toContain(path);
  });

  it('puts exactly the admin screens behind the admin guard', () => {
    const [root] = buildRoutes(new QueryClient());
    const guarded = root?.children?.[1]?.children?.find((r) => !r.path && !r.index && r.children);
    expect(guarded?.children?.map((r) => r.path).sort()).toEqual([
      'analytics',
      'channel',
      'model_ownedby',
      'payment',
      'pricing',
      'redemption',
      'setting',
      'telegram',
      'user',
      'user_group',
    ]);
  });

  it('has a title in the locale files for every page', () => {
    for (const route of [...panelRoutes, ...publicRoutes])
      expect(i18n.exists(route.title), route.title).toBe(true);
  });
});

describe('sidebar menu', () => {
  it('has the sidebar groups, collapses and items in order', () => {
    expect(shape(menu)).toEqual([
      { 'group:dashboard': ['item:dashboard', 'item:analytics', 'item:playground'] },
      {
        'group:setting': [
          'item:user',
          'item:channel',
          {
            'collapse:operation': ['item:user_group', 'item:pricing', 'item:telegram', 'item:model_ownedby'],
          },
          { 'collapse:paySetting': ['item:redemption', 'item:payment'] },
          'item:token',
          'item:profile',
          'item:setting',
        ],
      },
      { 'group:billing': ['item:topup', 'item:model_price'] },
      { 'group:usage': ['item:log', 'item:midjourney', 'item:task'] },
    ]);
  });

  it('flags the admin entries, and marks dashboard, profile and model_price non-admin', () => {
    const entries = flatten(menu).filter((e) => e.type !== 'group');
    const admin = entries.filter((e) => e.isAdmin === true).map((e) => e.id);
    expect(admin.sort()).toEqual(['analytics', 'channel', 'operation', 'paySetting', 'setting', 'user']);
    const nonAdmin = entries.filter((e) => e.isAdmin === false).map((e) => e.id);
    expect(nonAdmin.sort()).toEqual(['dashboard', 'model_price', 'profile']);
  });

  it('links every item to a registered panel route, each once', () => {
    const urls = flatten(menu)
      .filter((e) => e.type === 'item')
      .map((e) => e.url);
    expect(new Set(urls).size).toBe(urls.length);
    const registered = new Set(panelRoutes.map((r) => `/panel/${r.path}`));
    for (const url of urls) expect(registered.has(url ?? ''), url).toBe(true);
  });

  it('uses the menu item shape: titles translated, items with url and icon, sections with children', () => {
    for (const entry of flatten(menu)) {
      expect(i18n.exists(entry.title), entry.title).toBe(true);
      if (entry.type === 'item') {
        expect(entry.url).toMatch(/^\/panel\//);
        expect(entry.icon).toBeDefined();
      } else {
        expect(entry.children?.length).toBeGreaterThan(0);
      }
    }
  });

  it('hides admin entries, and everything inside them, from a normal user', () => {
    const ids = flatten(visibleMenu(menu, false)).map((e) => e.id);
    for (const hidden of [
      'analytics',
      'user',
      'channel',
      'operation',
      'user_group',
      'pricing',
      'paySetting',
      'payment',
    ]) {
      expect(ids).not.toContain(hidden);
    }
    expect(ids.filter((id) => id === 'setting')).toEqual(['setting']); // the group, not the admin item
    expect(flatten(visibleMenu(menu, true))).toHaveLength(flatten(menu).length);
  });

  it('finds the trail of a path through its collapse', () => {
    expect(menuTrail(menu, '/panel/telegram').map((e) => e.id)).toEqual(['setting', 'operation', 'telegram']);
    expect(menuTrail(menu, '/panel/nowhere')).toEqual([]);
  });

  it('derives the admin-only paths from the menu', () => {
    expect([...adminOnlyPaths(menu)].sort()).toEqual([
      'analytics',
      'channel',
      'model_ownedby',
      'payment',
      'pricing',
      'redemption',
      'setting',
      'telegram',
      'user',
      'user_group',
    ]);
  });
});

describe('breadcrumbs', () => {
  it('start at Dashboard and follow the menu', () => {
    expect(panelCrumbs(PANEL_HOME, 'menu.dashboard')).toEqual(['menu.dashboard']);
    expect(panelCrumbs('/panel/token', 'menu.token')).toEqual(['menu.dashboard', 'menu.token']);
    expect(panelCrumbs('/panel/payment', 'menu.payment')).toEqual([
      'menu.dashboard',
      'menu.paySetting',
      'menu.payment',
    ]);
    expect(panelCrumbs('/panel/404', 'menu.notFound')).toEqual(['menu.dashboard', 'menu.notFound']);
  });
});

describe('public top bar', () => {
  it('links Home, Playground (signed in only), Price and About', () => {
    expect(publicNav.map((l) => [l.url, !!l.signedInOnly])).toEqual([
      ['/', false],
      ['/playground', true],
      ['/price', false],
      ['/about', false],
    ]);
  });
});
