import { PRODUCT_VERSION } from '@switchyard/domain';
import type { Services } from '../../services.js';

/** GET /api/status: every site-info field, under one-hub's names so old clients keep working. */
export function siteStatus(s: Services) {
  const o = s.options.current;
  return {
    version: PRODUCT_VERSION,
    start_time: s.startTime,
    system_name: o.SystemName,
    logo: o.Logo,
    language: s.config.language,
    footer_html: o.Footer,
    server_address: o.ServerAddress,
    quota_per_unit: o.QuotaPerUnit,
    display_in_currency: o.DisplayInCurrencyEnabled,
    top_up_link: o.TopUpLink,
    chat_link: o.ChatLink,
    chat_links: JSON.stringify(o.ChatLinks),
    email_verification: o.EmailVerificationEnabled,
    register_enabled: o.RegisterEnabled,
    password_login_enabled: o.PasswordLoginEnabled,
    password_register_enabled: o.PasswordRegisterEnabled,
    github_oauth: o.GitHubOAuthEnabled,
    github_client_id: o.GitHubClientId,
    oidc_auth: o.OIDCAuthEnabled,
    lark_login: o.LarkAuthEnabled,
    lark_client_id: o.LarkClientId,
    wechat_login: o.WeChatAuthEnabled,
    passkey_login: o.PasskeyLoginEnabled,
    wechat_qrcode: o.WeChatAccountQRCodeImageURL,
    turnstile_check: o.TurnstileCheckEnabled,
    turnstile_site_key: o.TurnstileSiteKey,
    telegram_bot: s.telegram.username(),
    mj_notify_enabled: o.MjNotifyEnabled,
    PaymentUSDRate: o.PaymentUSDRate,
    PaymentMinAmount: o.PaymentMinAmount,
    RechargeDiscount: JSON.stringify(o.RechargeDiscount),
    // Already in the served page (http/console.ts); here for clients that render it themselves.
    analytics_code: o.AnalyticsCode,
  };
}
