import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultBalanceValues, type FakeBalance, startFakeBalance } from '../../test/fake-balance.js';
import { BalanceUnsupportedError, balanceSupported, fetchBalance } from './balance.js';
import { UpstreamCallError } from './upstream-json.js';

const KEY = 'sk-balance-key';
// 2026-03-15 12:00:00 UTC
const NOW = Date.UTC(2026, 2, 15, 12) / 1000;

describe('vendor balances', () => {
  let fake: FakeBalance;
  let agent: Agent;
  const balance = (type: number, baseUrl = fake.url) => fetchBalance(agent, { type, baseUrl, key: KEY }, NOW);

  beforeAll(async () => {
    fake = await startFakeBalance({ apiKey: KEY });
    agent = new Agent();
  });
  afterAll(async () => {
    await agent?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.failWith(undefined);
    Object.assign(fake.values, defaultBalanceValues());
  });

  it('OpenAI and Custom: hard limit minus the usage (cents) of the last 100 days', async () => {
    expect(await balance(1)).toEqual({ amount: 94.5, currency: 'USD' });
    expect(fake.requests.map((r) => r.path)).toEqual([
      '/v1/dashboard/billing/subscription',
      '/v1/dashboard/billing/usage',
    ]);
    const usage = fake.requests[1]!;
    expect(usage.query.get('start_date')).toBe('2025-12-05');
    expect(usage.query.get('end_date')).toBe('2026-03-16');
    expect(usage.authorization).toBe(`Bearer ${KEY}`);
    // A base URL with a path is the API root itself.
    expect(await balance(8, `${fake.url}/v1`)).toEqual({ amount: 94.5, currency: 'USD' });
  });

  it('DeepSeek: /user/balance at the host root, USD preferred over CNY', async () => {
    expect(await balance(28, `${fake.url}/v1`)).toEqual({ amount: 110, currency: 'CNY' });
    expect(fake.requests.at(-1)?.path).toBe('/user/balance');
    fake.values.deepseek.infos.push({
      currency: 'USD',
      total_balance: '15.50',
      granted_balance: '0.00',
      topped_up_balance: '15.50',
    });
    expect(await balance(28)).toEqual({ amount: 15.5, currency: 'USD' });
  });

  it('Moonshot, SiliconFlow and Recraft read their own shapes', async () => {
    expect(await balance(29)).toEqual({ amount: 49.58894, currency: 'USD' });
    expect(await balance(45)).toEqual({ amount: 88.88, currency: 'USD' });
    expect(await balance(51)).toEqual({ amount: 184250, currency: 'credits' });
    expect(fake.requests.map((r) => r.path)).toEqual([
      '/v1/users/me/balance',
      '/v1/user/info',
      '/v1/users/me',
    ]);
  });

  it('a negative balance is reported as it is', async () => {
    fake.values.openai.totalUsageCents = 13_000;
    expect((await balance(1)).amount).toBe(-10);
  });

  it('fails readably on upstream errors and on types without a balance', async () => {
    fake.failWith(500);
    await expect(balance(1)).rejects.toThrow(UpstreamCallError);
    await expect(balance(1)).rejects.toThrow(/answered 500: fake balance failure 500/);
    fake.failWith(undefined);
    await expect(fetchBalance(agent, { type: 1, baseUrl: fake.url, key: 'wrong' }, NOW)).rejects.toThrow(
      /answered 401: Incorrect API key/,
    );
    await expect(balance(14)).rejects.toThrow(BalanceUnsupportedError);
    await expect(balance(1, 'http://127.0.0.1:1')).rejects.toThrow(/cannot reach/);
    expect(balanceSupported(1)).toBe(true);
    expect(balanceSupported(3)).toBe(false);
  });
});
