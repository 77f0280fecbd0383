// The realistic setup the issue asks for: 20 channels over 3 priority tiers and 4 groups, 200
// tokens, prices, consume logging on. Plain data, so the results file can record it.

export const BENCH_MODEL = 'gpt-4o-mini';
/** Served only by the slow channels (the many-concurrent-streams test). */
export const SLOW_MODEL = 'gpt-4o-mini-slow';
/** The fourth group (the seed has default, vip and svip); there is no API to create it yet. */
export const EXTRA_GROUP = 'bench';

export interface GroupPlan {
  symbol: string;
  ratio: number;
}

export interface ChannelPlan {
  name: string;
  priority: number;
  weight: number;
  groups: string[];
  models: string[];
  slow: boolean;
}

export const GROUPS: readonly GroupPlan[] = [
  { symbol: 'default', ratio: 1 },
  { symbol: 'vip', ratio: 0.9 },
  { symbol: 'svip', ratio: 0.8 },
  { symbol: EXTRA_GROUP, ratio: 1.2 },
];

const CHANNEL_MODELS = [
  BENCH_MODEL,
  'gpt-4o',
  'gpt-4.1-mini',
  'gpt-4.1',
  'o4-mini',
  'text-embedding-3-small',
];

export const PRICES = [
  { model: BENCH_MODEL, input: 0.075, output: 0.3 },
  { model: SLOW_MODEL, input: 0.075, output: 0.3 },
  { model: 'gpt-4o', input: 1.25, output: 5 },
  { model: 'gpt-4.1-mini', input: 0.2, output: 0.8 },
  { model: 'gpt-4.1', input: 1, output: 4 },
  { model: 'o4-mini', input: 0.55, output: 2.2 },
  { model: 'text-embedding-3-small', input: 0.01, output: 0 },
] as const;

export const USERS = 20;
export const TOKENS_PER_USER = 10;
/** Quota of every benchmark user and token: never the limit during a run. */
export const BENCH_QUOTA = 1_000_000_000_000;

/**
 * Tier 1 (priority 100): 8 channels, each serving two groups, so every group has four first-choice
 * channels of different weights. Tiers 2 and 3 (priority 50 and 0): 6 channels each, all groups, the
 * fallbacks. Plus two slow channels for the slow-stream model.
 */
export function channelPlan(): ChannelPlan[] {
  const symbols = GROUPS.map((g) => g.symbol);
  const plan: ChannelPlan[] = [];
  for (let i = 0; i < 8; i++) {
    plan.push({
      name: `tier1-${i + 1}`,
      priority: 100,
      weight: 1 + (i % 4),
      groups: [symbols[i % 4]!, symbols[(i + 1) % 4]!],
      models: CHANNEL_MODELS,
      slow: false,
    });
  }
  for (const [tier, priority] of [
    [2, 50],
    [3, 0],
  ] as const) {
    for (let i = 0; i < 6; i++) {
      plan.push({
        name: `tier${tier}-${i + 1}`,
        priority,
        weight: 1 + i,
        groups: symbols,
        models: CHANNEL_MODELS,
        slow: false,
      });
    }
  }
  for (let i = 0; i < 2; i++) {
    plan.push({
      name: `slow-${i + 1}`,
      priority: 100,
      weight: 1,
      groups: symbols,
      models: [SLOW_MODEL],
      slow: true,
    });
  }
  return plan;
}

export function benchUsername(i: number): string {
  return `benchuser${String(i + 1).padStart(2, '0')}`;
}

/** Users are spread over the four groups in turn. */
export function groupOfUser(i: number): string {
  return GROUPS[i % GROUPS.length]!.symbol;
}

export function scenarioSummary(): Record<string, unknown> {
  const channels = channelPlan();
  return {
    channels: channels.filter((c) => !c.slow).length,
    slowChannels: channels.filter((c) => c.slow).length,
    priorityTiers: [...new Set(channels.filter((c) => !c.slow).map((c) => c.priority))],
    groups: GROUPS.map((g) => g.symbol),
    users: USERS,
    tokens: USERS * TOKENS_PER_USER,
    model: BENCH_MODEL,
    prices: PRICES.length,
    consumeLog: true,
    groupRateLimit: 'off (api_rate 0)',
  };
}
