import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CHAT_LINKS,
  DEFAULT_DISABLE_CHANNEL_KEYWORDS,
  defaultOptionValues,
  dependentToggles,
  formatOption,
  isOptionKey,
  type OptionDef,
  type OptionKey,
  optionDefs,
  optionSections,
  parseOption,
  unknownOptionMessage,
  unmetRequirements,
} from './options.js';

const keys = Object.keys(optionDefs) as OptionKey[];
const defOf = (k: OptionKey) => optionDefs[k] as OptionDef<unknown>;

function failure(key: OptionKey, raw: string): string {
  const r = parseOption(key, raw);
  if (r.ok) throw new Error(`${key}=${raw} was accepted as ${JSON.stringify(r.value)}`);
  return r.message;
}

function value(key: OptionKey, raw: string): unknown {
  const r = parseOption(key, raw);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

// Every option key one-hub has, plus the Lark credentials (one-hub never registered them, so Lark
// sign-in could not be configured there) and our unpriced-model switches.
const REFERENCE_KEYS = [
  'PasswordLoginEnabled',
  'PasswordRegisterEnabled',
  'RegisterEnabled',
  'EmailVerificationEnabled',
  'EmailDomainRestrictionEnabled',
  'EmailDomainWhitelist',
  'GitHubOAuthEnabled',
  'GitHubClientId',
  'GitHubClientSecret',
  'GitHubOldIdCloseEnabled',
  'LarkAuthEnabled',
  'OIDCAuthEnabled',
  'OIDCClientId',
  'OIDCClientSecret',
  'OIDCIssuer',
  'OIDCScopes',
  'OIDCUsernameClaims',
  'PasskeyLoginEnabled',
  'WeChatAuthEnabled',
  'WeChatServerAddress',
  'WeChatServerToken',
  'WeChatAccountQRCodeImageURL',
  'TurnstileCheckEnabled',
  'TurnstileSiteKey',
  'TurnstileSecretKey',
  'SMTPServer',
  'SMTPPort',
  'SMTPAccount',
  'SMTPFrom',
  'SMTPToken',
  'Notice',
  'About',
  'HomePageContent',
  'Footer',
  'SystemName',
  'Logo',
  'AnalyticsCode',
  'ServerAddress',
  'QuotaForNewUser',
  'QuotaForInviter',
  'QuotaForInvitee',
  'QuotaRemindThreshold',
  'PreConsumedQuota',
  'TopUpLink',
  'ChatLink',
  'ChatLinks',
  'QuotaPerUnit',
  'DisplayInCurrencyEnabled',
  'RetryTimes',
  'RetryCooldownSeconds',
  'RetryTimeOut',
  'AutomaticDisableChannelEnabled',
  'AutomaticEnableChannelEnabled',
  'ChannelDisableThreshold',
  'DisableChannelKeywords',
  'ApproximateTokenEnabled',
  'LogConsumeEnabled',
  'MjNotifyEnabled',
  'ChatImageRequestProxy',
  'PaymentUSDRate',
  'PaymentMinAmount',
  'RechargeDiscount',
  'CFWorkerImageUrl',
  'CFWorkerImageKey',
  'GeminiAPIEnabled',
  'ClaudeAPIEnabled',
  'ClaudeDefaultMaxTokens',
  'ClaudeBudgetTokensPercentage',
  'GeminiOpenThink',
  'EnableSafe',
  'SafeToolName',
  'SafeKeyWords',
];
const ADDED_KEYS = [
  'LarkClientId',
  'LarkClientSecret',
  'ServeUnpricedModels',
  'UnpricedModelInput',
  'UnpricedModelOutput',
  // The messaging bot's settings (one-hub reads them from its configuration file instead).
  'TelegramBotToken',
  'TelegramWebhookSecret',
];

describe('option registry', () => {
  it('has exactly the keys of one-hub plus the added ones', () => {
    expect([...keys].sort()).toEqual([...REFERENCE_KEYS, ...ADDED_KEYS].sort());
  });

  it('formats every default to a string that parses back to the same value', () => {
    for (const key of keys) {
      const d = defOf(key);
      const raw = d.format(d.default);
      expect(typeof raw).toBe('string');
      expect(value(key, raw), key).toEqual(d.default);
      expect(formatOption(key, d.default as never)).toBe(raw);
    }
  });

  it('marks exactly the credentials as secret', () => {
    const secret = keys.filter((k) => defOf(k).secret).sort();
    expect(secret).toEqual(
      [
        'CFWorkerImageKey',
        'GitHubClientSecret',
        'LarkClientSecret',
        'OIDCClientSecret',
        'SMTPToken',
        'TelegramBotToken',
        'TelegramWebhookSecret',
        'TurnstileSecretKey',
        'WeChatServerToken',
      ].sort(),
    );
    for (const k of secret) expect(defOf(k).kind, k).toBe('string');
  });

  it("accepts only Telegram's shapes for the bot token and the webhook secret", () => {
    expect(value('TelegramBotToken', '123456789:AAE_abcdefghijklmnopqrstuvwxyz-0123')).toBe(
      '123456789:AAE_abcdefghijklmnopqrstuvwxyz-0123',
    );
    expect(value('TelegramBotToken', '')).toBe('');
    for (const bad of [
      '123456789',
      'abc:AAE_abcdefghijklmnopqrstuvwxyz',
      '1:short',
      '1:AAE abcdefghijklmnopqrstuvwxyz',
    ])
      expect(() => value('TelegramBotToken', bad), bad).toThrow(/bot token/);
    expect(value('TelegramWebhookSecret', 'a-Z_9')).toBe('a-Z_9');
    expect(() => value('TelegramWebhookSecret', 'with space')).toThrow(/letters, digits/);
    expect(() => value('TelegramWebhookSecret', 'x'.repeat(257))).toThrow();
  });

  it('guards reference existing, non-boolean keys and only booleans carry guards', () => {
    for (const key of keys) {
      const d = defOf(key);
      if (d.requires.length > 0) expect(d.kind, key).toBe('bool');
      for (const r of d.requires) {
        expect(isOptionKey(r), `${key} requires ${r}`).toBe(true);
        expect(defOf(r as OptionKey).kind, r).not.toBe('bool');
      }
    }
    expect(optionDefs.GitHubOAuthEnabled.requires).toEqual(['GitHubClientId', 'GitHubClientSecret']);
    expect(optionDefs.OIDCAuthEnabled.requires).toHaveLength(5);
    expect(optionDefs.LarkAuthEnabled.requires).toEqual(['LarkClientId', 'LarkClientSecret']);
  });

  it('groups every key into exactly one section', () => {
    const sections = optionSections();
    const all = [...sections.operation, ...sections.system, ...sections.other];
    expect(all.sort()).toEqual([...keys].sort());
    expect(sections.system).toContain('SMTPPort');
    expect(sections.system).toContain('ServerAddress');
    expect(sections.operation).toContain('RetryTimes');
    expect(sections.operation).toContain('RechargeDiscount');
    expect(sections.other).toContain('ChatLinks');
    expect(sections.other).toContain('SystemName');
  });

  it('has the documented defaults', () => {
    const d = defaultOptionValues();
    expect(d.SystemName).toBe('Switchyard');
    expect(d.QuotaPerUnit).toBe(500000);
    expect(d.SMTPPort).toBe(587);
    expect(d.PreConsumedQuota).toBe(500);
    expect(d.PaymentUSDRate).toBe(7.3);
    expect(d.ServerAddress).toBe('http://localhost:3000');
    expect(d.ServeUnpricedModels).toBe(false);
    expect(d.UnpricedModelInput).toBe(30);
    expect(d.ClaudeDefaultMaxTokens).toEqual({ default: 8192 });
    expect(d.DisableChannelKeywords.split('\n')).toHaveLength(12);
    expect(d.DisableChannelKeywords.split('\n')).toEqual([...DEFAULT_DISABLE_CHANNEL_KEYWORDS]);
    expect(d.EmailDomainWhitelist.split(',')).toContain('gmail.com');
  });
});

describe('parseOption', () => {
  it('names the key and the rule that failed', () => {
    expect(failure('QuotaPerUnit', '0')).toBe('QuotaPerUnit must be at least 1');
    expect(failure('RetryTimes', '11')).toBe('RetryTimes must be at most 10');
    expect(failure('RetryTimes', '-1')).toBe('RetryTimes must be at least 0');
    expect(failure('PreConsumedQuota', '-5')).toBe('PreConsumedQuota must be at least 0');
    expect(failure('SMTPPort', '0')).toBe('SMTPPort must be at least 1');
    expect(failure('SMTPPort', '65536')).toBe('SMTPPort must be at most 65535');
    expect(failure('PaymentMinAmount', '1.5')).toBe('PaymentMinAmount must be a whole number');
    expect(failure('PaymentUSDRate', '0')).toBe('PaymentUSDRate must be greater than 0');
    expect(failure('ClaudeBudgetTokensPercentage', '1')).toBe(
      'ClaudeBudgetTokensPercentage must be less than 1',
    );
    expect(failure('RegisterEnabled', 'yes')).toBe('RegisterEnabled must be "true" or "false"');
  });

  it('rejects number texts that Number() would silently accept', () => {
    for (const raw of ['', ' ', '0x10', '1e3', 'abc', 'Infinity']) {
      expect(parseOption('QuotaForNewUser', raw).ok, raw).toBe(false);
    }
    expect(parseOption('ChannelDisableThreshold', '1e3').ok).toBe(false);
    expect(value('ChannelDisableThreshold', ' 2.5 ')).toBe(2.5);
    expect(value('ChannelDisableThreshold', '.5')).toBe(0.5);
    expect(value('QuotaForNewUser', '+100')).toBe(100);
  });

  it('accepts only http(s) URLs or empty for URL options', () => {
    expect(value('ServerAddress', 'https://gw.example.com')).toBe('https://gw.example.com');
    expect(value('ServerAddress', 'http://10.0.0.2:3000/base')).toBe('http://10.0.0.2:3000/base');
    expect(value('ServerAddress', '')).toBe('');
    expect(failure('ServerAddress', 'gw.example.com')).toBe(
      'ServerAddress must be an http:// or https:// URL',
    );
    expect(failure('ServerAddress', 'ftp://x.example')).toBe(
      'ServerAddress must be an http:// or https:// URL',
    );
    expect(failure('ServerAddress', 'https://a b.com')).toBe(
      'ServerAddress must be an http:// or https:// URL',
    );
    expect(value('ChatImageRequestProxy', 'socks5://127.0.0.1:1080')).toBe('socks5://127.0.0.1:1080');
  });

  it('checks the email domain whitelist', () => {
    expect(value('EmailDomainWhitelist', 'example.com, mail.example.org')).toBe(
      'example.com, mail.example.org',
    );
    expect(failure('EmailDomainWhitelist', 'example.com;foo')).toMatch(
      /^EmailDomainWhitelist must be a comma-separated/,
    );
  });

  it('reports invalid JSON as such', () => {
    expect(failure('RechargeDiscount', '{100: 0.9}')).toBe('RechargeDiscount must be valid JSON');
  });
});

describe('JSON options', () => {
  it('ChatLinks defaults: four entries, two shown (sort 1, 2), two hidden (sort 3, 4)', () => {
    expect(DEFAULT_CHAT_LINKS).toHaveLength(4);
    expect(DEFAULT_CHAT_LINKS.map((l) => [l.show, l.sort])).toEqual([
      [true, 1],
      [true, 2],
      [false, 3],
      [false, 4],
    ]);
    for (const l of DEFAULT_CHAT_LINKS) {
      expect(l.url, l.name).toContain('{key}');
      expect(l.url, l.name).toContain('{server}');
    }
    expect(value('ChatLinks', '')).toEqual(DEFAULT_CHAT_LINKS);
    expect(value('ChatLinks', '   ')).toEqual(DEFAULT_CHAT_LINKS);
  });

  it('ChatLinks checks each entry', () => {
    const ok = [
      { name: 'Mine', url: 'https://chat.example/?k={key}&s={server}', show: true, sort: 1, extra: 1 },
    ];
    expect(value('ChatLinks', JSON.stringify(ok))).toEqual([
      { name: 'Mine', url: 'https://chat.example/?k={key}&s={server}', show: true, sort: 1 },
    ]);
    expect(value('ChatLinks', '[]')).toEqual([]);
    expect(failure('ChatLinks', '{}')).toBe(
      'ChatLinks must be a JSON list of {name, url, show, sort} entries',
    );
    expect(failure('ChatLinks', '[{"name":"a","url":"u","show":"yes","sort":1}]')).toBe(
      'ChatLinks entry 1: "show" must be true or false',
    );
    expect(
      failure('ChatLinks', '[{"name":"a","url":"u","show":true,"sort":1},{"url":"u","show":true,"sort":2}]'),
    ).toBe('ChatLinks entry 2 needs a non-empty "name"');
    expect(failure('ChatLinks', '[{"name":"a","url":"","show":true,"sort":1}]')).toBe(
      'ChatLinks entry 1 needs a non-empty "url"',
    );
    expect(failure('ChatLinks', '[{"name":"a","url":"u","show":true,"sort":"1"}]')).toBe(
      'ChatLinks entry 1: "sort" must be a number',
    );
  });

  it('RechargeDiscount: positive integer amounts with factors in (0, 1]', () => {
    expect(value('RechargeDiscount', '')).toEqual({});
    expect(value('RechargeDiscount', '{"100": 0.95, "500": 0.9, "1000": 1}')).toEqual({
      '100': 0.95,
      '500': 0.9,
      '1000': 1,
    });
    expect(failure('RechargeDiscount', '[]')).toMatch(/^RechargeDiscount must be a JSON object/);
    expect(failure('RechargeDiscount', '{"0": 0.9}')).toMatch(
      /^RechargeDiscount key "0" must be a top-up amount/,
    );
    expect(failure('RechargeDiscount', '{"10.5": 0.9}')).toMatch(/key "10.5"/);
    expect(failure('RechargeDiscount', '{"abc": 0.9}')).toMatch(/key "abc"/);
    expect(failure('RechargeDiscount', '{"100": 0}')).toBe(
      'RechargeDiscount discount for "100" must be a factor greater than 0 and at most 1, got 0',
    );
    expect(failure('RechargeDiscount', '{"100": 1.1}')).toMatch(/got 1.1$/);
    expect(failure('RechargeDiscount', '{"100": "0.9"}')).toMatch(/got "0.9"$/);
  });

  it('AudioTokenJson and OldTokenMaxId are retired with a message saying why', () => {
    expect(isOptionKey('AudioTokenJson')).toBe(false);
    expect(unknownOptionMessage('AudioTokenJson')).toMatch(/input_audio_tokens/);
    expect(isOptionKey('OldTokenMaxId')).toBe(false);
    expect(unknownOptionMessage('OldTokenMaxId')).toMatch(/exact keyed hash/);
    expect(unknownOptionMessage('NoSuchKey')).toBe('Unknown option "NoSuchKey"');
  });

  it('GeminiOpenThink: model → boolean', () => {
    expect(value('GeminiOpenThink', '{"gemini-2.5-pro": true}')).toEqual({ 'gemini-2.5-pro': true });
    expect(failure('GeminiOpenThink', '{"gemini-2.5-pro": "true"}')).toBe(
      'GeminiOpenThink value for "gemini-2.5-pro" must be true or false, got "true"',
    );
  });

  it('ClaudeDefaultMaxTokens: model → positive whole number', () => {
    expect(value('ClaudeDefaultMaxTokens', '{"default": 4096, "claude-opus-4-1": 32000}')).toEqual({
      default: 4096,
      'claude-opus-4-1': 32000,
    });
    expect(failure('ClaudeDefaultMaxTokens', '{"default": 0}')).toMatch(/at least 1, got 0$/);
    expect(failure('ClaudeDefaultMaxTokens', '{"default": 1.5}')).toMatch(/got 1.5$/);
  });
});

describe('guards', () => {
  it('lists the empty keys a toggle needs, only when the toggle is on', () => {
    const values = { ...defaultOptionValues(), GitHubOAuthEnabled: true, GitHubClientId: 'abc' };
    expect(unmetRequirements('GitHubOAuthEnabled', values)).toEqual(['GitHubClientSecret']);
    expect(unmetRequirements('GitHubOAuthEnabled', { ...values, GitHubClientSecret: 's' })).toEqual([]);
    expect(unmetRequirements('GitHubOAuthEnabled', { ...values, GitHubOAuthEnabled: false })).toEqual([]);
    expect(
      unmetRequirements('TurnstileCheckEnabled', { TurnstileCheckEnabled: true, TurnstileSiteKey: ' ' }),
    ).toEqual(['TurnstileSiteKey', 'TurnstileSecretKey']);
  });

  it('finds the toggles that depend on a key', () => {
    expect(dependentToggles('OIDCIssuer')).toEqual(['OIDCAuthEnabled']);
    expect(dependentToggles('EmailDomainWhitelist')).toEqual(['EmailDomainRestrictionEnabled']);
    expect(dependentToggles('SystemName')).toEqual([]);
  });
});

describe('defaultOptionValues', () => {
  it('hands out copies of JSON defaults', () => {
    const a = defaultOptionValues();
    a.ChatLinks.push({ name: 'x', url: 'y', show: true, sort: 9 });
    a.ClaudeDefaultMaxTokens['default'] = 1;
    const b = defaultOptionValues();
    expect(b.ChatLinks).toHaveLength(4);
    expect(b.ClaudeDefaultMaxTokens).toEqual({ default: 8192 });
    expect(optionDefs.ChatLinks.default).toHaveLength(4);
  });
});
