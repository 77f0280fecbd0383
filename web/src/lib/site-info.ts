import { useQuery } from '@tanstack/react-query';
import { applyServerLanguage, i18n } from '../i18n';
import { apiGet, hasNewVersion } from './api-client';
import { isRecord, readJson, StorageKey, writeJson, writeText } from './storage';
import { toast } from './toast';

/** GET /api/status, with one-hub's field names. */
export interface SiteInfo {
  version: string;
  start_time: number;
  system_name: string;
  logo: string;
  language: string;
  footer_html: string;
  server_address: string;
  quota_per_unit: number;
  display_in_currency: boolean;
  top_up_link: string;
  chat_link: string;
  chat_links: string;
  email_verification: boolean;
  register_enabled: boolean;
  password_login_enabled: boolean;
  password_register_enabled: boolean;
  github_oauth: boolean;
  github_client_id: string;
  oidc_auth: boolean;
  lark_login: boolean;
  lark_client_id: string;
  wechat_login: boolean;
  wechat_qrcode: string;
  /** Passkeys (WebAuthn) are turned on: the login page offers them and the profile manages them. */
  passkey_login: boolean;
  turnstile_check: boolean;
  turnstile_site_key: string;
  telegram_bot: string;
  mj_notify_enabled: boolean;
  PaymentUSDRate: number;
  PaymentMinAmount: number;
  RechargeDiscount: string;
}

/** Used before the first answer and for any field an older server leaves out. */
export const DEFAULT_SITE_INFO: SiteInfo = {
  version: '',
  start_time: 0,
  system_name: '',
  logo: '',
  language: 'zh_CN',
  footer_html: '',
  server_address: '',
  quota_per_unit: 500000,
  display_in_currency: true,
  top_up_link: '',
  chat_link: '',
  chat_links: '',
  email_verification: false,
  register_enabled: true,
  password_login_enabled: true,
  password_register_enabled: true,
  github_oauth: false,
  github_client_id: '',
  oidc_auth: false,
  lark_login: false,
  lark_client_id: '',
  wechat_login: false,
  wechat_qrcode: '',
  passkey_login: false,
  turnstile_check: false,
  turnstile_site_key: '',
  telegram_bot: '',
  mj_notify_enabled: false,
  PaymentUSDRate: 0,
  PaymentMinAmount: 1,
  RechargeDiscount: '',
};

export const statusQueryKey = ['status'] as const;

function cachedSiteInfo(): SiteInfo {
  return { ...DEFAULT_SITE_INFO, ...(readJson(StorageKey.siteInfo, isRecord) ?? {}) };
}

/** Keeps the local cache (siteInfo, quota_per_unit, display_in_currency) for when the server is away. */
function remember(info: SiteInfo): void {
  writeJson(StorageKey.siteInfo, info);
  writeText(StorageKey.quotaPerUnit, String(info.quota_per_unit));
  writeText(StorageKey.displayInCurrency, String(info.display_in_currency));
}

async function fetchStatus(): Promise<SiteInfo> {
  const info: SiteInfo = { ...DEFAULT_SITE_INFO, ...(await apiGet<Partial<SiteInfo>>('/api/status')) };
  remember(info);
  applyServerLanguage(info.language);
  if (hasNewVersion(info.version)) toast.notice(i18n.t('errors.newVersion', { version: info.version }));
  return info;
}

/** Site status: fetched once per session, the cached copy meanwhile and whenever the server is unreachable. */
export function useSiteInfo(): SiteInfo {
  const { data } = useQuery({
    queryKey: statusQueryKey,
    queryFn: fetchStatus,
    initialData: cachedSiteInfo,
    initialDataUpdatedAt: 0,
    staleTime: 5 * 60_000,
  });
  return data;
}
