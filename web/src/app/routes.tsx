import type { SvgIconComponent } from '@mui/icons-material';
import AccountBalanceWalletOutlined from '@mui/icons-material/AccountBalanceWalletOutlined';
import AccountCircleOutlined from '@mui/icons-material/AccountCircleOutlined';
import CategoryOutlined from '@mui/icons-material/CategoryOutlined';
import ChatOutlined from '@mui/icons-material/ChatOutlined';
import CreditCardOutlined from '@mui/icons-material/CreditCardOutlined';
import DashboardOutlined from '@mui/icons-material/DashboardOutlined';
import GroupsOutlined from '@mui/icons-material/GroupsOutlined';
import HubOutlined from '@mui/icons-material/HubOutlined';
import ImageOutlined from '@mui/icons-material/ImageOutlined';
import InsightsOutlined from '@mui/icons-material/InsightsOutlined';
import KeyOutlined from '@mui/icons-material/KeyOutlined';
import PaymentsOutlined from '@mui/icons-material/PaymentsOutlined';
import PeopleOutlined from '@mui/icons-material/PeopleOutlined';
import PriceChangeOutlined from '@mui/icons-material/PriceChangeOutlined';
import ReceiptLongOutlined from '@mui/icons-material/ReceiptLongOutlined';
import RedeemOutlined from '@mui/icons-material/RedeemOutlined';
import SettingsOutlined from '@mui/icons-material/SettingsOutlined';
import TaskAltOutlined from '@mui/icons-material/TaskAltOutlined';
import Telegram from '@mui/icons-material/Telegram';
import TuneOutlined from '@mui/icons-material/TuneOutlined';
import ViewListOutlined from '@mui/icons-material/ViewListOutlined';
import type { ChipProps } from '@mui/material/Chip';
import type { QueryClient } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import type { MessageKey } from '../i18n/message-key';
import { PANEL_BASE } from './panel-paths';

// The one routes table: the router, the sidebar and the breadcrumbs are all read from here.

type PageModule = Promise<{
  default: ComponentType;
  /** What the page shows at once, put in the cache before the page is first drawn. */
  prefetch?: (client: QueryClient) => Promise<void>;
}>;

export interface PageRoute {
  /** Relative to its layout: '' is the layout's index. */
  path: string;
  title: MessageKey;
  load: () => PageModule;
}

// ---- Public layout ----

export const publicRoutes: readonly PageRoute[] = [
  { path: '', title: 'nav.home', load: () => import('../features/home/home-page') },
  { path: 'about', title: 'nav.about', load: () => import('../features/home/about-page') },
  { path: 'login', title: 'auth.login.title', load: () => import('../features/auth/login-page') },
  { path: 'register', title: 'auth.register.title', load: () => import('../features/auth/register-page') },
  { path: 'reset', title: 'auth.forgot.title', load: () => import('../features/auth/forgot-password-page') },
  {
    path: 'user/reset',
    title: 'auth.reset.title',
    load: () => import('../features/auth/reset-password-page'),
  },
  {
    path: 'oauth/github',
    title: 'auth.login.github',
    load: () => import('../features/auth/oauth-callback-page'),
  },
  {
    path: 'oauth/oidc',
    title: 'auth.login.oidc',
    load: () => import('../features/auth/oauth-callback-page'),
  },
  {
    path: 'oauth/lark',
    title: 'auth.login.lark',
    load: () => import('../features/auth/oauth-callback-page'),
  },
  { path: '404', title: 'notFound.title', load: () => import('../features/errors/not-found-page') },
  { path: 'jump', title: 'jump.redirecting', load: () => import('../features/jump/jump-page') },
  {
    path: 'playground',
    title: 'nav.playground',
    load: () => import('../features/playground/playground-page'),
  },
  { path: 'price', title: 'nav.price', load: () => import('../features/model-price/model-price-page') },
];

/** The public top bar's links: Playground only for signed-in visitors. */
export const publicNav: readonly { url: string; title: MessageKey; signedInOnly?: boolean }[] = [
  { url: '/', title: 'nav.home' },
  { url: '/playground', title: 'nav.playground', signedInOnly: true },
  { url: '/price', title: 'nav.price' },
  { url: '/about', title: 'nav.about' },
];

// ---- Console layout under /panel ----

/**
 * Every /panel child path (one-hub's, so old links keep working). '' sends to dashboard (the
 * landing path).
 */
export const panelRoutes: readonly PageRoute[] = [
  { path: 'dashboard', title: 'menu.dashboard', load: () => import('../features/dashboard/dashboard-page') },
  { path: 'analytics', title: 'menu.analytics', load: () => import('../features/analytics/analytics-page') },
  {
    path: 'playground',
    title: 'menu.playground',
    load: () => import('../features/playground/playground-page'),
  },
  { path: 'user', title: 'menu.user', load: () => import('../features/users/user-list-page') },
  { path: 'channel', title: 'menu.channel', load: () => import('../features/channels/channel-list-page') },
  {
    path: 'user_group',
    title: 'menu.userGroup',
    load: () => import('../features/user-groups/user-group-page'),
  },
  { path: 'pricing', title: 'menu.pricing', load: () => import('../features/pricing/pricing-page') },
  { path: 'telegram', title: 'menu.telegram', load: () => import('../features/telegram/telegram-menu-page') },
  {
    path: 'model_ownedby',
    title: 'menu.modelOwnedby',
    load: () => import('../features/model-owners/model-owner-page'),
  },
  {
    path: 'redemption',
    title: 'menu.redemption',
    load: () => import('../features/redemptions/redemption-page'),
  },
  { path: 'payment', title: 'menu.payment', load: () => import('../features/payment/payment-page') },
  { path: 'token', title: 'menu.token', load: () => import('../features/tokens/tokens-page') },
  { path: 'profile', title: 'menu.profile', load: () => import('../features/profile/profile-page') },
  { path: 'setting', title: 'menu.setting', load: () => import('../features/settings/settings-page') },
  { path: 'topup', title: 'menu.topup', load: () => import('../features/topup/topup-page') },
  {
    path: 'model_price',
    title: 'menu.modelPrice',
    load: () => import('../features/model-price/model-price-page'),
  },
  { path: 'log', title: 'menu.log', load: () => import('../features/logs/logs-page') },
  { path: 'midjourney', title: 'menu.midjourney', load: () => import('../features/tasks/midjourney-page') },
  { path: 'task', title: 'menu.task', load: () => import('../features/tasks/task-page') },
  { path: '404', title: 'menu.notFound', load: () => import('../features/errors/not-found-page') },
];

// ---- Sidebar ----

export type MenuItemType = 'group' | 'collapse' | 'item';

export interface MenuItem {
  id: string;
  title: MessageKey;
  type: MenuItemType;
  url?: string;
  icon?: SvgIconComponent;
  chip?: { label: MessageKey; color?: ChipProps['color'] };
  caption?: MessageKey;
  disabled?: boolean;
  external?: boolean;
  /** Open in a new window (external links). */
  target?: boolean;
  isAdmin?: boolean;
  children?: MenuItem[];
}

const item = (
  id: string,
  title: MessageKey,
  icon: SvgIconComponent,
  extra: Partial<MenuItem> = {},
): MenuItem => ({
  id,
  title,
  type: 'item',
  url: `${PANEL_BASE}/${id}`,
  icon,
  ...extra,
});

export const menu: readonly MenuItem[] = [
  {
    id: 'dashboard',
    title: 'menu.group.dashboard',
    type: 'group',
    children: [
      item('dashboard', 'menu.dashboard', DashboardOutlined, { isAdmin: false }),
      item('analytics', 'menu.analytics', InsightsOutlined, { isAdmin: true }),
      item('playground', 'menu.playground', ChatOutlined),
    ],
  },
  {
    id: 'setting',
    title: 'menu.group.setting',
    type: 'group',
    children: [
      item('user', 'menu.user', PeopleOutlined, { isAdmin: true }),
      item('channel', 'menu.channel', HubOutlined, { isAdmin: true }),
      {
        id: 'operation',
        title: 'menu.operation',
        type: 'collapse',
        icon: TuneOutlined,
        isAdmin: true,
        children: [
          item('user_group', 'menu.userGroup', GroupsOutlined),
          item('pricing', 'menu.pricing', PriceChangeOutlined),
          item('telegram', 'menu.telegram', Telegram),
          item('model_ownedby', 'menu.modelOwnedby', CategoryOutlined),
        ],
      },
      {
        id: 'paySetting',
        title: 'menu.paySetting',
        type: 'collapse',
        icon: PaymentsOutlined,
        isAdmin: true,
        children: [
          item('redemption', 'menu.redemption', RedeemOutlined),
          item('payment', 'menu.payment', CreditCardOutlined),
        ],
      },
      item('token', 'menu.token', KeyOutlined),
      item('profile', 'menu.profile', AccountCircleOutlined, { isAdmin: false }),
      item('setting', 'menu.setting', SettingsOutlined, { isAdmin: true }),
    ],
  },
  {
    id: 'billing',
    title: 'menu.group.billing',
    type: 'group',
    children: [
      item('topup', 'menu.topup', AccountBalanceWalletOutlined),
      item('model_price', 'menu.modelPrice', ViewListOutlined, { isAdmin: false }),
    ],
  },
  {
    id: 'usage',
    title: 'menu.group.usage',
    type: 'group',
    children: [
      item('log', 'menu.log', ReceiptLongOutlined),
      item('midjourney', 'menu.midjourney', ImageOutlined),
      item('task', 'menu.task', TaskAltOutlined),
    ],
  },
];

/** The menu a user may see: admin-only entries (and everything inside them) removed for non-admins. */
export function visibleMenu(items: readonly MenuItem[], isAdmin: boolean): MenuItem[] {
  return items
    .filter((entry) => isAdmin || !entry.isAdmin)
    .map((entry) => (entry.children ? { ...entry, children: visibleMenu(entry.children, isAdmin) } : entry));
}

/** The chain of menu entries down to the item whose url is `pathname` (group first), or [] if none. */
export function menuTrail(items: readonly MenuItem[], pathname: string): MenuItem[] {
  for (const entry of items) {
    if (entry.type === 'item' && entry.url === pathname) return [entry];
    if (entry.children) {
      const below = menuTrail(entry.children, pathname);
      if (below.length > 0) return [entry, ...below];
    }
  }
  return [];
}

/** Panel paths that only administrators may open: items flagged admin or inside an admin section. */
export function adminOnlyPaths(items: readonly MenuItem[], inherited = false): Set<string> {
  const out = new Set<string>();
  for (const entry of items) {
    const admin = inherited || entry.isAdmin === true;
    if (entry.type === 'item' && admin && entry.url) out.add(entry.url.slice(PANEL_BASE.length + 1));
    for (const path of adminOnlyPaths(entry.children ?? [], admin)) out.add(path);
  }
  return out;
}
