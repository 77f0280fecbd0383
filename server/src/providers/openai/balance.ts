import { openAiCompatibleRoot, providerById } from '@switchyard/domain';
import type { Dispatcher } from 'undici';
import { getUpstreamJson, isRecord, UpstreamCallError } from './upstream-json.js';

// Account balances of the vendors that publish one (the channel list's "update balance"). Each vendor
// has its own endpoint and shape; the amount is kept in the vendor's own currency.

export interface BalanceChannel {
  type: number;
  /** Empty means the catalog default. */
  baseUrl: string;
  key: string;
}

export interface Balance {
  amount: number;
  /** ISO code, or `credits` for vendors that sell credits. */
  currency: string;
}

type Fetcher = (dispatcher: Dispatcher, root: URL, key: string, nowSeconds: number) => Promise<Balance>;

const DAY_MS = 86_400_000;
/** OpenAI's usage endpoint is asked about this many days back, as other gateways do. */
const OPENAI_USAGE_DAYS = 100;

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function auth(key: string): Record<string, string> {
  return key ? { authorization: `Bearer ${key}` } : {};
}

function numberField(value: unknown, what: string): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw new UpstreamCallError(200, `the upstream answer has no ${what}`);
  return n;
}

function join(root: URL, path: string, query = ''): string {
  return `${root.origin}${root.pathname.replace(/\/+$/, '')}/${path}${query}`;
}

/** Chinese-mainland hosts bill in yuan, their international twins in dollars. */
const currencyOfHost = (root: URL) => (root.hostname.endsWith('.cn') ? 'CNY' : 'USD');

/** OpenAI's (and one-api-style gateways') billing views: the hard limit minus the usage so far. */
const openAiBilling: Fetcher = async (dispatcher, root, key, nowSeconds) => {
  const headers = auth(key);
  const subscription = await getUpstreamJson(dispatcher, {
    url: join(root, 'dashboard/billing/subscription'),
    headers,
  });
  const limit = numberField(
    isRecord(subscription) ? subscription.hard_limit_usd : undefined,
    'hard_limit_usd',
  );
  const now = nowSeconds * 1000;
  const query = `?start_date=${dateOf(now - OPENAI_USAGE_DAYS * DAY_MS)}&end_date=${dateOf(now + DAY_MS)}`;
  const usage = await getUpstreamJson(dispatcher, {
    url: join(root, 'dashboard/billing/usage', query),
    headers,
  });
  // total_usage is in cents.
  const used = numberField(isRecord(usage) ? usage.total_usage : undefined, 'total_usage') / 100;
  return { amount: roundMoney(limit - used), currency: 'USD' };
};

/** DeepSeek: `GET /user/balance` at the host root (not under /v1), one entry per currency. */
const deepSeek: Fetcher = async (dispatcher, root, key) => {
  const hostRoot = new URL(root.href.replace(/\/v1\/?$/, ''));
  const body = await getUpstreamJson(dispatcher, { url: join(hostRoot, 'user/balance'), headers: auth(key) });
  const infos =
    isRecord(body) && Array.isArray(body.balance_infos) ? body.balance_infos.filter(isRecord) : [];
  const info = infos.find((i) => i.currency === 'USD') ?? infos.find((i) => i.currency === 'CNY') ?? infos[0];
  if (!info) throw new UpstreamCallError(200, 'the upstream answer has no balance_infos');
  return {
    amount: numberField(info.total_balance, 'total_balance'),
    currency: typeof info.currency === 'string' ? info.currency : 'CNY',
  };
};

/** Moonshot (Kimi): `GET /v1/users/me/balance` -> `{data:{available_balance}}`. */
const moonshot: Fetcher = async (dispatcher, root, key) => {
  const body = await getUpstreamJson(dispatcher, { url: join(root, 'users/me/balance'), headers: auth(key) });
  const data = isRecord(body) && isRecord(body.data) ? body.data : {};
  return { amount: numberField(data.available_balance, 'available_balance'), currency: currencyOfHost(root) };
};

/** SiliconFlow: `GET /v1/user/info` -> `{data:{totalBalance:"88.88"}}`. */
const siliconFlow: Fetcher = async (dispatcher, root, key) => {
  const body = await getUpstreamJson(dispatcher, { url: join(root, 'user/info'), headers: auth(key) });
  const data = isRecord(body) && isRecord(body.data) ? body.data : {};
  return { amount: numberField(data.totalBalance, 'totalBalance'), currency: currencyOfHost(root) };
};

/** Recraft: `GET /v1/users/me` -> `{credits}`. */
const recraft: Fetcher = async (dispatcher, root, key) => {
  const body = await getUpstreamJson(dispatcher, { url: join(root, 'users/me'), headers: auth(key) });
  return { amount: numberField(isRecord(body) ? body.credits : undefined, 'credits'), currency: 'credits' };
};

const FETCHERS: ReadonlyMap<number, Fetcher> = new Map([
  [1, openAiBilling],
  // Custom channels usually front another gateway, which serves OpenAI's billing views.
  [8, openAiBilling],
  [28, deepSeek],
  [29, moonshot],
  [45, siliconFlow],
  [51, recraft],
]);

/** Channel types whose balance can be asked for. */
export function balanceSupported(type: number): boolean {
  return FETCHERS.has(type) && providerById(type)?.supportsBalance === true;
}

export class BalanceUnsupportedError extends Error {}

/** Asks the vendor for the account balance behind a channel's key. */
export async function fetchBalance(
  dispatcher: Dispatcher,
  channel: BalanceChannel,
  nowSeconds: number,
): Promise<Balance> {
  const fetcher = FETCHERS.get(channel.type);
  const provider = providerById(channel.type);
  if (!fetcher || !provider?.supportsBalance)
    throw new BalanceUnsupportedError(
      `${provider?.name ?? `Type ${channel.type}`} channels have no balance query`,
    );
  const base = channel.baseUrl.trim() || provider.defaultBaseUrl;
  if (!base) throw new BalanceUnsupportedError('The channel has no base URL');
  let root: URL;
  try {
    root = new URL(openAiCompatibleRoot(base));
  } catch {
    throw new BalanceUnsupportedError(`Invalid base URL: ${base}`);
  }
  return fetcher(dispatcher, root, channel.key, nowSeconds);
}

function roundMoney(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
