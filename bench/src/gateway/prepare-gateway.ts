import { type BenchDatabase, openBenchDatabase } from './bench-database.js';
import { type GatewayConfig, GatewayProcess } from './gateway-process.js';
import { ManagementClient } from './management-client.js';
import {
  BENCH_QUOTA,
  benchUsername,
  channelPlan,
  EXTRA_GROUP,
  GROUPS,
  groupOfUser,
  PRICES,
  TOKENS_PER_USER,
  USERS,
} from './scenario.js';

const USER_PASSWORD = 'bench-password-1';

export interface PreparedGateway {
  gateway: GatewayProcess;
  db: BenchDatabase;
  /** The 200 API keys, in the order the load generator rotates through them. */
  keys: string[];
}

/**
 * Builds the scenario on a fresh database through the real management API, with two direct
 * database edits the API cannot make yet: the fourth group with its ratio, `api_rate` 0 (no group
 * rate limit, so the limiter does not cap throughput) on every group, and the users' groups. Those
 * are made while the gateway is stopped, and it is started again to load them.
 */
export async function prepareGateway(
  runDir: string,
  config: GatewayConfig,
  upstreams: { fast: string; slow: string },
  say: (line: string) => void,
): Promise<PreparedGateway> {
  // First start: migrations and seed, then options, prices and the users through the API.
  let gateway = await GatewayProcess.start(runDir, config, 1);
  const root = new ManagementClient(gateway.origin);
  await root.login('root', config.rootPassword);
  for (const [key, value] of [
    ['LogConsumeEnabled', 'true'],
    ['RegisterEnabled', 'true'],
    ['PasswordRegisterEnabled', 'true'],
    ['EmailVerificationEnabled', 'false'],
    ['QuotaForNewUser', String(BENCH_QUOTA)],
  ] as const) {
    await root.call('PUT', '/api/option/', { key, value });
  }
  for (const p of PRICES) {
    const body = { model: p.model, type: 'tokens', channel_type: 1, input: p.input, output: p.output };
    const created = await root.try('POST', '/api/prices/single', body);
    if (!created.ok) await root.call('PUT', `/api/prices/single/${p.model}`, body);
  }
  const guest = new ManagementClient(gateway.origin);
  for (let i = 0; i < USERS; i++) {
    await guest.call('POST', '/api/user/register', { username: benchUsername(i), password: USER_PASSWORD });
  }
  await gateway.stop();

  say('  direct database edits: fourth group, group rate limits off, user groups');
  const db = await openBenchDatabase(config.databaseUrl);
  await db.run(
    'insert into user_groups (symbol, name, ratio, api_rate, public, enable) values (?, ?, ?, 0, 0, 1)',
    [EXTRA_GROUP, 'Bench', 1],
  );
  for (const g of GROUPS) {
    await db.run('update user_groups set api_rate = 0, ratio = ? where symbol = ?', [g.ratio, g.symbol]);
  }
  for (let i = 0; i < USERS; i++) {
    await db.run('update users set "group" = ? where username = ?', [groupOfUser(i), benchUsername(i)]);
  }

  // Second start: channels (they name the groups, which must exist) and the users' tokens.
  gateway = await GatewayProcess.start(runDir, config, 2);
  const admin = new ManagementClient(gateway.origin);
  await admin.login('root', config.rootPassword);
  for (const c of channelPlan()) {
    await admin.call('POST', '/api/channel/', {
      type: 1,
      name: c.name,
      key: `sk-upstream-${c.name}`,
      base_url: c.slow ? upstreams.slow : upstreams.fast,
      models: c.models,
      group: c.groups,
      priority: c.priority,
      weight: c.weight,
    });
  }
  const keys: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const user = new ManagementClient(gateway.origin);
    await user.login(benchUsername(i), USER_PASSWORD);
    for (let t = 0; t < TOKENS_PER_USER; t++) {
      const token = await user.call<{ key: string }>('POST', '/api/token/', {
        name: `bench-${t + 1}`,
        expired_time: -1,
        remain_quota: BENCH_QUOTA,
        unlimited_quota: false,
      });
      keys.push(token.key);
    }
  }
  // Interleave users so consecutive requests come from different users, as real traffic does.
  const interleaved: string[] = [];
  for (let t = 0; t < TOKENS_PER_USER; t++) {
    for (let u = 0; u < USERS; u++) interleaved.push(keys[u * TOKENS_PER_USER + t]!);
  }
  return { gateway, db, keys: interleaved };
}
