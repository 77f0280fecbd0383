import type { OptionKey, OptionSection } from '@switchyard/domain';

// The settings screen (tabs operation, system, other): every option key of the
// registry, once, in a titled card of its tab. Each card is saved in one request.

export interface SettingsCard {
  id: string;
  keys: readonly OptionKey[];
}

export const SETTINGS_LAYOUT: Record<OptionSection, readonly SettingsCard[]> = {
  operation: [
    {
      id: 'quota',
      keys: [
        'QuotaForNewUser',
        'QuotaForInviter',
        'QuotaForInvitee',
        'PreConsumedQuota',
        'QuotaRemindThreshold',
        'QuotaPerUnit',
        'DisplayInCurrencyEnabled',
        'TopUpLink',
      ],
    },
    {
      id: 'retry',
      keys: [
        'RetryTimes',
        'RetryCooldownSeconds',
        'RetryTimeOut',
        'AutomaticDisableChannelEnabled',
        'AutomaticEnableChannelEnabled',
        'ChannelDisableThreshold',
        'DisableChannelKeywords',
      ],
    },
    {
      id: 'payment',
      keys: ['PaymentUSDRate', 'PaymentMinAmount', 'RechargeDiscount'],
    },
    {
      id: 'relay',
      keys: [
        'ApproximateTokenEnabled',
        'LogConsumeEnabled',
        'ServeUnpricedModels',
        'UnpricedModelInput',
        'UnpricedModelOutput',
        'GeminiAPIEnabled',
        'ClaudeAPIEnabled',
        'ClaudeDefaultMaxTokens',
        'ClaudeBudgetTokensPercentage',
        'GeminiOpenThink',
      ],
    },
    {
      id: 'media',
      keys: ['MjNotifyEnabled', 'ChatImageRequestProxy', 'CFWorkerImageUrl', 'CFWorkerImageKey'],
    },
    { id: 'safety', keys: ['EnableSafe', 'SafeToolName', 'SafeKeyWords'] },
  ],
  system: [
    {
      id: 'login',
      keys: [
        'PasswordLoginEnabled',
        'PasswordRegisterEnabled',
        'RegisterEnabled',
        'EmailVerificationEnabled',
        'EmailDomainRestrictionEnabled',
        'EmailDomainWhitelist',
        'ServerAddress',
      ],
    },
    { id: 'smtp', keys: ['SMTPServer', 'SMTPPort', 'SMTPAccount', 'SMTPFrom', 'SMTPToken'] },
    {
      id: 'github',
      keys: ['GitHubOAuthEnabled', 'GitHubClientId', 'GitHubClientSecret', 'GitHubOldIdCloseEnabled'],
    },
    { id: 'lark', keys: ['LarkAuthEnabled', 'LarkClientId', 'LarkClientSecret'] },
    {
      id: 'oidc',
      keys: [
        'OIDCAuthEnabled',
        'OIDCClientId',
        'OIDCClientSecret',
        'OIDCIssuer',
        'OIDCScopes',
        'OIDCUsernameClaims',
      ],
    },
    {
      id: 'wechat',
      keys: ['WeChatAuthEnabled', 'WeChatServerAddress', 'WeChatServerToken', 'WeChatAccountQRCodeImageURL'],
    },
    { id: 'passkey', keys: ['PasskeyLoginEnabled'] },
    { id: 'turnstile', keys: ['TurnstileCheckEnabled', 'TurnstileSiteKey', 'TurnstileSecretKey'] },
    { id: 'telegram', keys: ['TelegramBotToken', 'TelegramWebhookSecret'] },
  ],
  other: [
    { id: 'site', keys: ['SystemName', 'Logo', 'ChatLink', 'ChatLinks', 'AnalyticsCode'] },
    { id: 'notice', keys: ['Notice'] },
    { id: 'about', keys: ['About'] },
    { id: 'home', keys: ['HomePageContent'] },
    { id: 'footer', keys: ['Footer'] },
  ],
};

/** Long texts shown rendered beside their editor. */
export const PREVIEWED: ReadonlySet<OptionKey> = new Set(['Notice', 'About', 'HomePageContent', 'Footer']);
