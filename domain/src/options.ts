// The typed registry of every option key (one-hub's keys, plus ours). Values travel and are stored as
// strings (wire compatibility); the server keeps the parsed, typed snapshot in memory.

import { TOPUP_MAX } from './quota.js';

export type OptionSection = 'operation' | 'system' | 'other';

export interface OptionDef<T> {
  kind: 'bool' | 'int' | 'float' | 'string' | 'text' | 'json';
  section: OptionSection;
  default: T;
  /** Write-only: GET tells whether it is set, never its value. */
  secret: boolean;
  /** Turning this boolean on needs these keys to be non-empty first. */
  requires: readonly string[];
  /** Parses the stored string; throws an Error whose message is shown to the admin. */
  parse(raw: string): T;
  format(value: T): string;
}

interface Common {
  section: OptionSection;
  secret?: boolean;
  requires?: readonly string[];
}

interface NumberBounds {
  min?: number;
  max?: number;
  /** Exclusive lower bound, for values where 0 itself makes no sense (an exchange rate). */
  moreThan?: number;
  /** Exclusive upper bound. */
  lessThan?: number;
}

function def<T>(
  kind: OptionDef<T>['kind'],
  value: T,
  o: Common,
  parse: (raw: string) => T,
  format: (v: T) => string,
): OptionDef<T> {
  return {
    kind,
    section: o.section,
    default: value,
    secret: o.secret ?? false,
    requires: o.requires ?? [],
    parse,
    format,
  };
}

function checkBounds(n: number, o: NumberBounds): void {
  if (o.min !== undefined && n < o.min) throw new Error(`must be at least ${o.min}`);
  if (o.max !== undefined && n > o.max) throw new Error(`must be at most ${o.max}`);
  if (o.moreThan !== undefined && n <= o.moreThan) throw new Error(`must be greater than ${o.moreThan}`);
  if (o.lessThan !== undefined && n >= o.lessThan) throw new Error(`must be less than ${o.lessThan}`);
}

// Number() alone would accept "0x10", "1e3" and " " (as 0), none of which an admin means.
const INTEGER_TEXT = /^[+-]?\d+$/;
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)$/;

export function bool(value: boolean, o: Common): OptionDef<boolean> {
  return def(
    'bool',
    value,
    o,
    (raw) => {
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw new Error('must be "true" or "false"');
    },
    String,
  );
}

export function int(value: number, o: Common & NumberBounds): OptionDef<number> {
  return def(
    'int',
    value,
    o,
    (raw) => {
      const t = raw.trim();
      const n = Number(t);
      if (!INTEGER_TEXT.test(t) || !Number.isSafeInteger(n)) throw new Error('must be a whole number');
      checkBounds(n, o);
      return n;
    },
    String,
  );
}

export function float(value: number, o: Common & NumberBounds): OptionDef<number> {
  return def(
    'float',
    value,
    o,
    (raw) => {
      const t = raw.trim();
      const n = Number(t);
      if (!DECIMAL_TEXT.test(t) || !Number.isFinite(n)) throw new Error('must be a number');
      checkBounds(n, o);
      return n;
    },
    String,
  );
}

export function str(
  value: string,
  o: Common & { maxLength?: number; pattern?: RegExp; patternMessage?: string },
): OptionDef<string> {
  return def(
    'string',
    value,
    o,
    (raw) => {
      if (o.maxLength !== undefined && raw.length > o.maxLength)
        throw new Error(`must be at most ${o.maxLength} characters`);
      if (o.pattern && raw !== '' && !o.pattern.test(raw))
        throw new Error(o.patternMessage ?? 'has an invalid format');
      return raw;
    },
    (v) => v,
  );
}

export function text(value: string, o: Common & { maxLength?: number }): OptionDef<string> {
  return def(
    'text',
    value,
    o,
    (raw) => {
      if (o.maxLength !== undefined && raw.length > o.maxLength)
        throw new Error(`must be at most ${o.maxLength} characters`);
      return raw;
    },
    (v) => v,
  );
}

/** JSON text checked by `check` (which throws with a message when the shape is wrong). Empty text means the default. */
export function json<T>(value: T, o: Common, check: (parsed: unknown) => T): OptionDef<T> {
  return def(
    'json',
    value,
    o,
    (raw) => {
      if (raw.trim() === '') return value;
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw new Error('must be valid JSON');
      }
      return check(parsed);
    },
    (v) => JSON.stringify(v),
  );
}

// ---- JSON shapes ----

/** One entry of the console's "chat" menu. `{key}` is replaced by the token key without its `sk-` prefix. */
export interface ChatLink {
  name: string;
  /** Template with `{key}` and `{server}` (ServerAddress) placeholders. */
  url: string;
  show: boolean;
  sort: number;
}

export const DEFAULT_CHAT_LINKS: readonly Readonly<ChatLink>[] = [
  {
    name: 'NextChat',
    url: 'https://app.nextchat.dev/#/?settings={"key":"sk-{key}","url":"{server}"}',
    show: true,
    sort: 1,
  },
  {
    name: 'Lobe Chat',
    url: 'https://chat-preview.lobehub.com/?settings={"keyVaults":{"openai":{"apiKey":"sk-{key}","baseURL":"{server}/v1"}}}',
    show: true,
    sort: 2,
  },
  { name: 'AMA', url: 'ama://set-api-key?server={server}&key=sk-{key}', show: false, sort: 3 },
  { name: 'OpenCat', url: 'opencat://team/join?domain={server}&token=sk-{key}', show: false, sort: 4 },
];

// Upstream error texts that mean the account itself is unusable (one-hub's default list).
export const DEFAULT_DISABLE_CHANNEL_KEYWORDS: readonly string[] = [
  'Your credit balance is too low',
  'This organization has been disabled.',
  'You exceeded your current quota',
  'Permission denied',
  'Quota exceeded for quota metric',
  'API key not valid',
  'The security token included in the request is invalid',
  'Operation not allowed',
  'Your account is not authorized',
  'your account balance is insufficient',
  'Your account is currently blocked',
  'too many invalid requests',
];

export const DEFAULT_EMAIL_DOMAIN_WHITELIST =
  'gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'string' ? `"${v}"` : typeof v === 'object' ? 'an object' : String(v);
}

function checkChatLinks(parsed: unknown): ChatLink[] {
  if (!Array.isArray(parsed)) throw new Error('must be a JSON list of {name, url, show, sort} entries');
  return parsed.map((item: unknown, i) => {
    const at = `entry ${i + 1}`;
    if (!isPlainObject(item)) throw new Error(`${at} must be an object with name, url, show and sort`);
    const { name, url, show, sort } = item;
    if (typeof name !== 'string' || name.trim() === '') throw new Error(`${at} needs a non-empty "name"`);
    if (typeof url !== 'string' || url.trim() === '') throw new Error(`${at} needs a non-empty "url"`);
    if (typeof show !== 'boolean') throw new Error(`${at}: "show" must be true or false`);
    if (typeof sort !== 'number' || !Number.isFinite(sort)) throw new Error(`${at}: "sort" must be a number`);
    return { name, url, show, sort };
  });
}

const POSITIVE_INTEGER_KEY = /^[1-9]\d*$/;

function checkRechargeDiscount(parsed: unknown): Record<string, number> {
  if (!isPlainObject(parsed)) throw new Error('must be a JSON object like {"100": 0.95}');
  const out: Record<string, number> = {};
  for (const [amount, factor] of Object.entries(parsed)) {
    if (!POSITIVE_INTEGER_KEY.test(amount) || Number(amount) > TOPUP_MAX)
      throw new Error(`key "${amount}" must be a top-up amount: a whole number from 1 to ${TOPUP_MAX}`);
    if (typeof factor !== 'number' || !(factor > 0 && factor <= 1))
      throw new Error(
        `discount for "${amount}" must be a factor greater than 0 and at most 1, got ${describeValue(factor)}`,
      );
    out[amount] = factor;
  }
  return out;
}

function checkModelBooleans(parsed: unknown): Record<string, boolean> {
  if (!isPlainObject(parsed)) throw new Error('must be a JSON object like {"model": true}');
  const out: Record<string, boolean> = {};
  for (const [model, v] of Object.entries(parsed)) {
    if (typeof v !== 'boolean')
      throw new Error(`value for "${model}" must be true or false, got ${describeValue(v)}`);
    out[model] = v;
  }
  return out;
}

function checkModelMaxTokens(parsed: unknown): Record<string, number> {
  if (!isPlainObject(parsed)) throw new Error('must be a JSON object like {"default": 8192}');
  const out: Record<string, number> = {};
  for (const [model, v] of Object.entries(parsed)) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)
      throw new Error(`value for "${model}" must be a whole number of at least 1, got ${describeValue(v)}`);
    out[model] = v;
  }
  return out;
}

const HTTP_URL = /^https?:\/\/[^\s/?#]+([/?#]\S*)?$/i;
const URL_MESSAGE = 'must be an http:// or https:// URL';
const httpUrl = (value: string, o: Common) =>
  str(value, { ...o, maxLength: 2048, pattern: HTTP_URL, patternMessage: URL_MESSAGE });

const DOMAIN_LIST = /^\s*[a-z0-9-]+(\.[a-z0-9-]+)+\s*(,\s*[a-z0-9-]+(\.[a-z0-9-]+)+\s*)*$/i;

const sys = { section: 'system' } as const;
const op = { section: 'operation' } as const;
const other = { section: 'other' } as const;

export const optionDefs = {
  // ---- system: sign-in, registration, mail, third-party login, bot check ----
  PasswordLoginEnabled: bool(true, sys),
  PasswordRegisterEnabled: bool(true, sys),
  RegisterEnabled: bool(true, sys),
  EmailVerificationEnabled: bool(false, sys),
  EmailDomainRestrictionEnabled: bool(false, { ...sys, requires: ['EmailDomainWhitelist'] }),
  EmailDomainWhitelist: str(DEFAULT_EMAIL_DOMAIN_WHITELIST, {
    ...sys,
    maxLength: 10_000,
    pattern: DOMAIN_LIST,
    patternMessage: 'must be a comma-separated list of domains such as gmail.com,outlook.com',
  }),
  GitHubOAuthEnabled: bool(false, { ...sys, requires: ['GitHubClientId', 'GitHubClientSecret'] }),
  GitHubClientId: str('', { ...sys, maxLength: 256 }),
  GitHubClientSecret: str('', { ...sys, secret: true, maxLength: 256 }),
  GitHubOldIdCloseEnabled: bool(false, sys),
  LarkAuthEnabled: bool(false, { ...sys, requires: ['LarkClientId', 'LarkClientSecret'] }),
  LarkClientId: str('', { ...sys, maxLength: 256 }),
  LarkClientSecret: str('', { ...sys, secret: true, maxLength: 256 }),
  OIDCAuthEnabled: bool(false, {
    ...sys,
    requires: ['OIDCClientId', 'OIDCClientSecret', 'OIDCIssuer', 'OIDCScopes', 'OIDCUsernameClaims'],
  }),
  OIDCClientId: str('', { ...sys, maxLength: 256 }),
  OIDCClientSecret: str('', { ...sys, secret: true, maxLength: 512 }),
  OIDCIssuer: httpUrl('', sys),
  OIDCScopes: str('', { ...sys, maxLength: 512 }),
  OIDCUsernameClaims: str('', { ...sys, maxLength: 256 }),
  /** WebAuthn passkeys: registered on the profile, accepted on the login page. */
  PasskeyLoginEnabled: bool(false, sys),
  WeChatAuthEnabled: bool(false, { ...sys, requires: ['WeChatServerAddress', 'WeChatServerToken'] }),
  WeChatServerAddress: httpUrl('', sys),
  WeChatServerToken: str('', { ...sys, secret: true, maxLength: 512 }),
  WeChatAccountQRCodeImageURL: httpUrl('', sys),
  TurnstileCheckEnabled: bool(false, { ...sys, requires: ['TurnstileSiteKey', 'TurnstileSecretKey'] }),
  TurnstileSiteKey: str('', { ...sys, maxLength: 256 }),
  TurnstileSecretKey: str('', { ...sys, secret: true, maxLength: 256 }),
  SMTPServer: str('', { ...sys, maxLength: 256 }),
  SMTPPort: int(587, { ...sys, min: 1, max: 65535 }),
  SMTPAccount: str('', { ...sys, maxLength: 256 }),
  SMTPFrom: str('', { ...sys, maxLength: 256 }),
  SMTPToken: str('', { ...sys, secret: true, maxLength: 512 }),
  ServerAddress: httpUrl('http://localhost:3000', sys),
  /** The messaging bot: set, it runs; empty, it stops. */
  TelegramBotToken: str('', {
    ...sys,
    secret: true,
    maxLength: 256,
    pattern: /^\d{1,20}:[A-Za-z0-9_-]{20,200}$/,
    patternMessage: 'must be a bot token as BotFather gives it, such as 123456789:AAE...',
  }),
  /** Set: Telegram posts updates to ServerAddress with this secret; empty: the bot polls. */
  TelegramWebhookSecret: str('', {
    ...sys,
    secret: true,
    maxLength: 256,
    // Telegram's own rule for secret_token.
    pattern: /^[A-Za-z0-9_-]{1,256}$/,
    patternMessage: 'may contain only letters, digits, "_" and "-"',
  }),

  // ---- operation: quota, retries, channels, logs, payment, relay behaviour ----
  QuotaForNewUser: int(0, { ...op, min: 0 }),
  QuotaForInviter: int(0, { ...op, min: 0 }),
  QuotaForInvitee: int(0, { ...op, min: 0 }),
  QuotaRemindThreshold: int(1000, { ...op, min: 0 }),
  PreConsumedQuota: int(500, { ...op, min: 0 }),
  TopUpLink: httpUrl('', op),
  QuotaPerUnit: int(500000, { ...op, min: 1 }),
  DisplayInCurrencyEnabled: bool(true, op),
  RetryTimes: int(0, { ...op, min: 0, max: 10 }),
  RetryCooldownSeconds: int(5, { ...op, min: 0, max: 86_400 }),
  RetryTimeOut: int(10, { ...op, min: 0, max: 3600 }),
  AutomaticDisableChannelEnabled: bool(false, op),
  AutomaticEnableChannelEnabled: bool(false, op),
  ChannelDisableThreshold: float(5, { ...op, min: 0, max: 3600 }),
  DisableChannelKeywords: text(DEFAULT_DISABLE_CHANNEL_KEYWORDS.join('\n'), { ...op, maxLength: 100_000 }),
  ApproximateTokenEnabled: bool(false, op),
  LogConsumeEnabled: bool(true, op),
  MjNotifyEnabled: bool(false, op),
  ChatImageRequestProxy: str('', {
    ...op,
    maxLength: 2048,
    pattern: /^(https?|socks5h?):\/\/\S+$/i,
    patternMessage: 'must be an http://, https:// or socks5:// proxy URL',
  }),
  PaymentUSDRate: float(7.3, { ...op, moreThan: 0 }),
  PaymentMinAmount: int(1, { ...op, min: 1, max: TOPUP_MAX }),
  RechargeDiscount: json<Record<string, number>>({}, op, checkRechargeDiscount),
  CFWorkerImageUrl: httpUrl('', op),
  CFWorkerImageKey: str('', { ...op, secret: true, maxLength: 512 }),
  GeminiAPIEnabled: bool(true, op),
  ClaudeAPIEnabled: bool(true, op),
  ClaudeDefaultMaxTokens: json<Record<string, number>>({ default: 8192 }, op, checkModelMaxTokens),
  ClaudeBudgetTokensPercentage: float(0.8, { ...op, moreThan: 0, lessThan: 1 }),
  GeminiOpenThink: json<Record<string, boolean>>({}, op, checkModelBooleans),
  EnableSafe: bool(false, op),
  // The content check applied when EnableSafe is on; the keyword list is the only one there is.
  SafeToolName: str('Keyword', {
    ...op,
    maxLength: 64,
    pattern: /^Keyword$/,
    patternMessage: 'must be "Keyword" (the keyword list is the only content check)',
  }),
  // The reference ships a built-in word list; we ship none and let the operator fill it in.
  SafeKeyWords: text('', { ...op, maxLength: 100_000 }),
  // one-hub serves unknown models at 30/30; we refuse them unless the operator opts in
  // (docs/compatibility.md, "one-hub bugs not copied").
  ServeUnpricedModels: bool(false, op),
  UnpricedModelInput: float(30, { ...op, min: 0 }),
  UnpricedModelOutput: float(30, { ...op, min: 0 }),

  // ---- other: site content and branding ----
  Notice: text('', { ...other, maxLength: 100_000 }),
  About: text('', { ...other, maxLength: 100_000 }),
  HomePageContent: text('', { ...other, maxLength: 100_000 }),
  Footer: text('', { ...other, maxLength: 100_000 }),
  SystemName: str('Switchyard', { ...other, maxLength: 100 }),
  Logo: str('', { ...other, maxLength: 2048 }),
  AnalyticsCode: text('', { ...other, maxLength: 100_000 }),
  ChatLink: httpUrl('', other),
  ChatLinks: json<ChatLink[]>(
    DEFAULT_CHAT_LINKS.map((l) => ({ ...l })),
    other,
    checkChatLinks,
  ),
} as const;

export type OptionKey = keyof typeof optionDefs;

/**
 * Keys one-hub had that this gateway does not store, with what to use instead: a PUT naming one
 * is refused with this message (a stored row of one is ignored).
 */
export const RETIRED_OPTIONS: Readonly<Record<string, string>> = {
  OldTokenMaxId:
    'OldTokenMaxId was removed: every key is found by an exact keyed hash of the whole key, so an imported one-hub key of either form (48 or 59 characters) works as it is, and a cut-off id would only refuse keys this gateway issued',
  AudioTokenJson:
    'AudioTokenJson was removed: audio is priced per model in the price list, with the extra ratios input_audio_tokens and output_audio_tokens',
};

/** Why `key` is refused: retired (with what replaces it) or unknown. */
export function unknownOptionMessage(key: string): string {
  return Object.hasOwn(RETIRED_OPTIONS, key) ? RETIRED_OPTIONS[key]! : `Unknown option "${key}"`;
}
export type OptionValues = {
  -readonly [K in OptionKey]: (typeof optionDefs)[K] extends OptionDef<infer T> ? T : never;
};

export function isOptionKey(key: string): key is OptionKey {
  return Object.hasOwn(optionDefs, key);
}

function defOf(key: OptionKey): OptionDef<unknown> {
  return optionDefs[key] as OptionDef<unknown>;
}

export function defaultOptionValues(): OptionValues {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(optionDefs) as OptionKey[]) {
    const d = defOf(key);
    // JSON defaults are objects: hand out copies so a caller's edit cannot change the registry.
    out[key] = d.kind === 'json' ? d.parse(d.format(d.default)) : d.default;
  }
  return out as OptionValues;
}

/** Every key grouped by settings tab, in declaration order. */
export function optionSections(): Record<OptionSection, OptionKey[]> {
  const out: Record<OptionSection, OptionKey[]> = { operation: [], system: [], other: [] };
  for (const key of Object.keys(optionDefs) as OptionKey[]) out[defOf(key).section].push(key);
  return out;
}

export type OptionParseResult = { ok: true; value: unknown } | { ok: false; message: string };

/** Parses a stored or submitted value; the message names the key, e.g. "QuotaPerUnit must be at least 1". */
export function parseOption(key: OptionKey, raw: string): OptionParseResult {
  try {
    return { ok: true, value: defOf(key).parse(raw) };
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return { ok: false, message: `${key} ${reason}` };
  }
}

export function formatOption<K extends OptionKey>(key: K, value: OptionValues[K]): string {
  return defOf(key).format(value);
}

function isEmptyValue(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

/** The keys `key` needs that are still empty, when `key` is a guarded toggle that is on in `values`. */
export function unmetRequirements(key: OptionKey, values: Partial<Record<OptionKey, unknown>>): string[] {
  if (values[key] !== true) return [];
  return defOf(key).requires.filter((r) => isEmptyValue(values[r as OptionKey]));
}

/** Toggles that need `key`: clearing `key` while one of them is on would break that login method. */
export function dependentToggles(key: OptionKey): OptionKey[] {
  return (Object.keys(optionDefs) as OptionKey[]).filter((k) => defOf(k).requires.includes(key));
}
