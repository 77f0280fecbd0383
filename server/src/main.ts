import { setGlobalDispatcher } from 'undici';
import { buildApp } from './app.js';
import { DbCodeStore } from './auth/db-code-store.js';
import { FallbackSessionStore } from './auth/fallback-session-store.js';
import { LoginBackoff } from './auth/login-backoff.js';
import { Argon2Hasher, type PasswordHasher } from './auth/passwords.js';
import { RedisSessionStore } from './auth/redis-session-store.js';
import { DbSessionStore, type SessionStore } from './auth/session-store.js';
import { HttpTurnstileVerifier, type TurnstileVerifier } from './auth/turnstile.js';
import { KyselyLedgerStore } from './billing/kysely-ledger/kysely-ledger-store.js';
import { nodeGapMs, WriteBatcher } from './billing/kysely-ledger/write-batcher.js';
import { Ledger } from './billing/ledger/ledger.js';
import { SettlementJournal } from './billing/ledger/settlement-journal.js';
import { QuotaReminder } from './billing/quota-reminder.js';
import { SqliteWorkerLedger } from './billing/sqlite-ledger/sqlite-ledger-client.js';
import { type ChangeBus, LocalChangeBus, RedisChangeBus } from './cache/change-bus.js';
import { type KvStore, MemoryKvStore } from './cache/kv-store.js';
import { MemoryRateLimiter, type RateLimiter } from './cache/rate-limiter.js';
import { RedisBreaker } from './cache/redis-breaker.js';
import {
  FallbackChannelHealth,
  FallbackKvStore,
  FallbackRateLimiter,
  FallbackTokenBucket,
} from './cache/redis-fallbacks.js';
import { RedisKvStore } from './cache/redis-kv-store.js';
import { RedisRateLimiter } from './cache/redis-rate-limiter.js';
import { RedisTokenBucket } from './cache/redis-token-bucket.js';
import { MemoryTokenBucket, type TokenBucket } from './cache/token-bucket.js';
import { clusterQueries } from './cluster/cluster-queries.js';
import { DbChangeBus } from './cluster/db-change-bus.js';
import { JobLease } from './cluster/job-lease.js';
import { NodeRoster } from './cluster/node-roster.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { SecretBox } from './crypto/secret-box.js';
import { createDb } from './db/create-db.js';
import { migrateToLatest } from './db/migrations/index.js';
import { auditLogsQueries } from './db/queries/audit-logs.js';
import { authCodesQueries } from './db/queries/auth-codes.js';
import { channelsQueries } from './db/queries/channels.js';
import { logsQueries } from './db/queries/logs.js';
import { midjourneysQueries } from './db/queries/midjourneys.js';
import { modelOwnersQueries } from './db/queries/model-owners.js';
import { optionsQueries } from './db/queries/options.js';
import { ordersQueries } from './db/queries/orders.js';
import { passkeysQueries } from './db/queries/passkeys.js';
import { paymentsQueries } from './db/queries/payments.js';
import { pricesQueries } from './db/queries/prices.js';
import { redemptionsQueries } from './db/queries/redemptions.js';
import { sessionsQueries } from './db/queries/sessions.js';
import { statisticsQueries } from './db/queries/statistics.js';
import { tasksQueries } from './db/queries/tasks.js';
import { telegramMenusQueries } from './db/queries/telegram-menus.js';
import { telegramUpdatesQueries } from './db/queries/telegram-updates.js';
import { tokensQueries } from './db/queries/tokens.js';
import { userGroupsQueries } from './db/queries/user-groups.js';
import { usersQueries } from './db/queries/users.js';
import { type SeedResult, seedDatabase } from './db/seed.js';
import { isEntryPoint } from './entry-point.js';
import { StatisticsRollup } from './jobs/statistics-rollup.js';
import { type Mailer, SmtpMailer } from './mail/mailer.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { metricQueries } from './metrics/metric-queries.js';
import { resolveNodeId } from './node-id.js';
import { OidcClient } from './oauth/oidc-client.js';
import { OptionStore } from './options/option-store.js';
import { AddressPolicy } from './outbound/address-policy.js';
import { ImageFetcher } from './outbound/image-fetch.js';
import { OutboundAgent } from './outbound/outbound-agent.js';
import { PAYMENT_DRIVERS } from './payments/drivers.js';
import { TokenCounter } from './providers/token-counter.js';
import { VertexTokenCache } from './providers/vertex/access-token.js';
import { ZhipuTokenCache } from './providers/zhipu/token.js';
import { ChannelAccessCache } from './relay/channels/channel-access-cache.js';
import { ChannelTestRun } from './relay/channels/channel-tester.js';
import { channelAccess } from './relay/channels/channel-transports.js';
import { RelayAuthenticator } from './relay/inbound/token-auth.js';
import { RelayTables } from './relay/relay-tables.js';
import { SafeKeywordCheck } from './relay/request-policies/safe-keywords.js';
import {
  type ChannelHealth,
  MemoryChannelHealth,
  RedisChannelHealth,
} from './relay/routing/channel-health.js';
import { ChannelSelector } from './relay/routing/channel-selector.js';
import { Http1Upstream, InFlight, TurnEnd } from './relay/transport/transport.js';
import { resolveSecrets, type Secrets } from './secrets.js';
import type { Clock, Repos, Services } from './services.js';
import { KlingTokenCache } from './tasks/kling/kling-token.js';
import { TaskPoller } from './tasks/task-poller.js';
import { installCommands } from './telegram/bot-commands.js';
import { pollLeaseMs, type TelegramTiming } from './telegram/bot-settings.js';
import { TelegramBot } from './telegram/telegram-bot.js';
import type { CallTracer } from './tracing/call-tracer.js';

const OPTION_POLL_MS = 5000;
/** A Redis command not answered in this long fails, and opens the breaker (cache/redis-breaker.ts). */
const REDIS_COMMAND_TIMEOUT_MS = 250;
const STATISTICS_ROLLUP_MS = 60_000;
/** Without Redis, nodes sharing a database read its change counters this often. */
const CHANGE_POLL_MS = 1000;
const HEARTBEAT_MS = 15_000;

export interface ComposeOverrides {
  clock?: Clock;
  passwords?: PasswordHasher;
  mailer?: Mailer;
  turnstile?: TurnstileVerifier;
  secrets?: Secrets;
  onWarning?: (message: string) => void;
  /** The Telegram bot's poll and back-off times (tests shorten them). */
  telegramTiming?: Partial<TelegramTiming>;
}

/**
 * The composition root: config -> database (migrated, seeded) -> cache, sessions, limiter (memory
 * on one node, Redis when REDIS_URL is set) -> options. The only place that chooses implementations.
 */
export async function composeServices(
  config: Config,
  overrides: ComposeOverrides = {},
): Promise<{ services: Services; seed: SeedResult }> {
  const clock: Clock = overrides.clock ?? {
    nowMs: () => Date.now(),
    nowSeconds: () => Math.floor(Date.now() / 1000),
  };
  const warn = overrides.onWarning ?? (() => {});
  const closers: (() => Promise<unknown>)[] = [];

  let secrets = overrides.secrets;
  if (!secrets) {
    const resolved = resolveSecrets(config.dataDir, {
      sessionSecret: config.sessionSecret,
      secretKey: config.secretKey,
    });
    secrets = resolved.secrets;
    if (resolved.generated.length > 0 && !config.databaseUrl.startsWith('sqlite:')) {
      warn(
        `Generated ${resolved.generated.join(' and ')} into ${config.dataDir}: every node sharing this database must use the same values (set SESSION_SECRET and SECRET_KEY).`,
      );
    }
  }

  const database = createDb(config.databaseUrl, {
    poolSize: config.databasePool.max,
    connectTimeoutMs: config.databasePool.connectTimeoutMs,
    idleTimeoutMs: config.databasePool.idleTimeoutMs,
    statementTimeoutMs: config.databasePool.statementTimeoutMs,
    onConnectionError: (err) =>
      warn(`a database connection was lost (${err.message}); the pool opens another`),
  });
  closers.push(() => database.close());
  try {
    await migrateToLatest(database.db, database.dialect);
    const repos: Repos = {
      users: usersQueries(database),
      sessions: sessionsQueries(database),
      options: optionsQueries(database),
      auditLogs: auditLogsQueries(database),
      userGroups: userGroupsQueries(database),
      modelOwners: modelOwnersQueries(database),
      prices: pricesQueries(database),
      tokens: tokensQueries(database),
      channels: channelsQueries(database),
      logs: logsQueries(database),
      redemptions: redemptionsQueries(database),
      statistics: statisticsQueries(database),
      midjourneys: midjourneysQueries(database),
      tasks: tasksQueries(database),
      telegramMenus: telegramMenusQueries(database),
      passkeys: passkeysQueries(database),
      payments: paymentsQueries(database),
      orders: ordersQueries(database),
    };
    const nodeId = resolveNodeId(config.dataDir, config.nodeId);
    const cluster = clusterQueries(database);
    const passwords = overrides.passwords ?? new Argon2Hasher();
    const seed = await seedDatabase(repos, passwords, config.initialRootPassword, clock.nowSeconds());

    let kv: KvStore;
    let limiter: RateLimiter;
    let bus: ChangeBus;
    let sessions: SessionStore;
    let bucket: TokenBucket;
    let health: ChannelHealth;
    let redisState: { ping(): Promise<unknown>; available(): boolean } | undefined;
    if (config.redisUrl) {
      // Loaded only when Redis is configured: memory a single node does not need.
      const { Redis } = await import('ioredis');
      // Short timeouts and no offline queue: while Redis is away a command fails at once and the
      // breaker sends the callers to their fallbacks, so an outage costs a call no more than this.
      const redis = new Redis(config.redisUrl, {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        connectTimeout: 2000,
        retryStrategy: (times) => Math.min(times * 200, 2000),
      });
      const subscriber = new Redis(config.redisUrl, {
        maxRetriesPerRequest: null,
        retryStrategy: (times) => Math.min(times * 200, 2000),
      });
      // Until the change bus listens on it: ioredis prints an 'error' event nobody listens to.
      subscriber.on('error', () => {});
      closers.push(() => redis.quit().catch(() => redis.disconnect()));
      const breaker = new RedisBreaker(redis, warn);
      closers.push(async () => breaker.close());
      // A node starts while Redis is away, on its fallbacks (the breaker says so once); ioredis keeps
      // reconnecting, and the breaker's recovery reloads every cache when it answers.
      await redis
        .connect()
        .then(() => redis.ping())
        .catch((err: unknown) =>
          breaker.trip(`not reachable at start: ${err instanceof Error ? err.message : String(err)}`),
        );
      redisState = { ping: () => redis.ping(), available: () => breaker.available };
      kv = new FallbackKvStore(
        new RedisKvStore(redis, `${config.redisKeyPrefix}kv:`),
        new MemoryKvStore(clock.nowMs),
        breaker,
      );
      limiter = new FallbackRateLimiter(
        new RedisRateLimiter(redis, `${config.redisKeyPrefix}rl:`),
        new MemoryRateLimiter(clock.nowMs),
        breaker,
      );
      const redisBus = new RedisChangeBus(redis, subscriber, `${config.redisKeyPrefix}changes`);
      breaker.onRecover(() => redisBus.reloadAll());
      bus = redisBus;
      sessions = new FallbackSessionStore(
        new RedisSessionStore(
          redis,
          config.sessionTtlSeconds,
          clock.nowSeconds,
          `${config.redisKeyPrefix}sess:`,
        ),
        new DbSessionStore(repos.sessions, config.sessionTtlSeconds, clock.nowSeconds),
        breaker,
      );
      bucket = new FallbackTokenBucket(
        new RedisTokenBucket(redis, `${config.redisKeyPrefix}tb:`),
        new MemoryTokenBucket(clock.nowMs),
        breaker,
      );
      const freezes = new MemoryChannelHealth(clock.nowMs);
      health = new FallbackChannelHealth(
        // A failed freeze write is a call's failure and trips the breaker; loading the running freezes
        // in the background (at start, after a reconnection) only says so.
        new RedisChannelHealth(
          redis,
          subscriber,
          freezes,
          `${config.redisKeyPrefix}freeze:`,
          (err) => breaker.trip(String(err)),
          (err) => warn(`loading the channel freezes from Redis failed: ${String(err)}`),
        ),
        freezes,
        breaker,
      );
    } else {
      kv = new MemoryKvStore(clock.nowMs);
      limiter = new MemoryRateLimiter(clock.nowMs);
      if (database.dialect === 'sqlite') bus = new LocalChangeBus();
      else {
        // Nodes may share this server without Redis: changes travel through its version counters.
        const dbBus = new DbChangeBus(cluster, (err) =>
          warn(`reading or counting a change in change_versions failed: ${String(err)}`),
        );
        await dbBus.start(CHANGE_POLL_MS);
        bus = dbBus;
      }
      sessions = new DbSessionStore(repos.sessions, config.sessionTtlSeconds, clock.nowSeconds);
      bucket = new MemoryTokenBucket(clock.nowMs);
      health = new MemoryChannelHealth(clock.nowMs);
    }
    closers.push(
      () => kv.close(),
      () => limiter.close(),
      () => bus.close(),
      () => sessions.close(),
      () => bucket.close(),
      () => health.close(),
    );
    const codes: KvStore = config.redisUrl
      ? kv
      : new DbCodeStore(authCodesQueries(database), clock.nowSeconds);
    if (codes !== kv) closers.push(() => codes.close());

    const secretBox = new SecretBox(secrets.secretKey);
    const options = new OptionStore(
      repos.options,
      bus,
      clock.nowSeconds,
      (key, message) => warn(`Stored option ${key} is invalid (${message}); using its default`),
      secretBox,
    );
    await options.reload();
    const sealed = await options.sealPlainSecrets();
    if (sealed.length > 0) warn(`Sealed the secret options stored in the clear: ${sealed.join(', ')}`);
    options.startPolling(OPTION_POLL_MS);
    closers.push(async () => options.stop());

    const tables = new RelayTables(repos, bus, warn);
    await tables.reload();
    // SQLite: the ledger's SQL runs in a thread of its own, so its commits never stall the event
    // loop; the servers: Kysely through the group-commit writer.
    // On a server database the store is kept by name too: /metrics reads its writer and leases.
    const ledgerWriter = database.sqliteFile
      ? undefined
      : new WriteBatcher(database.db, { gapMs: config.ledgerBatchGapMs });
    const serverLedger = !ledgerWriter
      ? undefined
      : new KyselyLedgerStore(database, ledgerWriter, {
          nodeId,
          leaseSeconds: config.reserveLeaseSeconds,
          leaseSlice: config.quotaLeaseSlice,
          nowSeconds: clock.nowSeconds,
          onError: warn,
        });
    const ledger = new Ledger(
      serverLedger ??
        new SqliteWorkerLedger(database.sqliteFile!, {
          onError: warn,
          writesElsewhere: database.sqliteWrites,
          nowMs: clock.nowMs,
        }),
      new SettlementJournal(config.dataDir, warn),
    );
    // Before anything is served: the settlements a killed run left unmade are made, then what it
    // still held in the database is given back.
    const replayed = await ledger.replay(warn);
    if (replayed > 0)
      warn(
        `ran again ${replayed} settlement(s) a previous run of this node left open in its journal (one already committed charges nothing more)`,
      );
    await ledger.start();
    if (serverLedger) {
      // A balance written outright gives its owner's leases back (db/queries/quota-leases.ts); the
      // topics are those the user and token handlers publish, as the key cache hears them.
      for (const topic of ['users', 'tokens']) bus.subscribe(topic, () => serverLedger.balancesChanged());
    }
    // Drains pending settlements before the database closes (closers run in reverse order).
    closers.push(() => ledger.close());
    // No cap on connections per upstream: a cap queues streams behind each other (1000 slow streams
    // need 1000 sockets); idle sockets are closed after the keep-alive time.
    const policy = new AddressPolicy(config.outboundAllowedNetworks);
    const upstream = new OutboundAgent(policy, {
      agent: { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 },
    });
    closers.push(() => upstream.close());
    const turnEnd = new TurnEnd(
      (err) => warn(`a write or settlement held for the end of a turn failed: ${String(err)}`),
      () => ledger.flushJournal(),
    );
    const forward = new Http1Upstream({ fallback: upstream, turnEnd, policy });
    closers.push(() => forward.close());
    const mailer = overrides.mailer ?? new SmtpMailer(options);
    const quotaReminder = new QuotaReminder(
      database,
      mailer,
      () => options.current,
      clock.nowSeconds,
      (message, err) => warn(`${message}: ${String(err)}`),
    );
    const relay = {
      tables,
      auth: new RelayAuthenticator(repos, secretBox, bus, clock.nowMs),
      selector: new ChannelSelector(() => tables.routing, health),
      health,
      ledger,
      counter: new TokenCounter(() => options.current.ApproximateTokenEnabled),
      bucket,
      access: new ChannelAccessCache((channel) => channelAccess(services, channel)),
      upstream,
      images: new ImageFetcher(upstream),
      forward,
      turnEnd,
      pending: new InFlight(),
      testRun: new ChannelTestRun(() => services),
      vertexTokens: new VertexTokenCache(),
      zhipuTokens: new ZhipuTokenCache(),
      safety: new SafeKeywordCheck(),
      quotaReminder,
    };
    closers.push(async () => {
      await relay.testRun.settled();
      await relay.pending.idle();
      await quotaReminder.flush().catch(() => {});
    });

    const statisticsRollup = new StatisticsRollup(repos.statistics, clock, (err) =>
      warn(`statistics rollup failed: ${String(err)}`),
    );
    // A lease three runs long: a node gone quiet hands the rollup over within three minutes.
    const rollupLease = new JobLease(
      cluster,
      'statistics-rollup',
      nodeId,
      3 * STATISTICS_ROLLUP_MS,
      clock.nowMs,
    );
    statisticsRollup.start(STATISTICS_ROLLUP_MS, () => rollupLease.hold());
    closers.push(async () => {
      await statisticsRollup.stop();
      await rollupLease.release().catch(() => {});
    });
    // Unfinished Midjourney, Suno and Kling tasks, polled by one node at a time: a lease three runs
    // long hands the poller over when its node goes quiet.
    const taskPollMs = config.taskPollSeconds * 1000;
    const taskPoller = new TaskPoller(
      () => services,
      new JobLease(cluster, 'task-poller', nodeId, Math.max(3 * taskPollMs, 60_000), clock.nowMs),
      { timeoutSeconds: config.taskTimeoutSeconds },
      warn,
    );
    taskPoller.start(taskPollMs);
    closers.push(() => taskPoller.stop());
    if (database.dialect !== 'sqlite') {
      // The database pays each commit's fixed cost: the nodes share LEDGER_BATCH_GAP_MS between them.
      const roster = new NodeRoster(cluster, nodeId, Boolean(config.redisUrl), clock.nowMs, warn, (nodes) =>
        ledgerWriter?.setGapMs(nodeGapMs(config.ledgerBatchGapMs, nodes)),
      );
      await roster.start(HEARTBEAT_MS).catch((err) => warn(`node heartbeat failed: ${String(err)}`));
      closers.push(() => roster.stop());
    }

    let tracer: CallTracer | undefined;
    if (config.otlpEndpoint) {
      const { startOtelTracer } = await import('./tracing/otel-tracer.js');
      const started = await startOtelTracer({
        endpoint: config.otlpEndpoint,
        serviceName: config.otelServiceName,
        nodeId,
      });
      tracer = started;
      closers.push(() => started.close());
    }
    // Built only when someone may read them: a node without METRICS_TOKEN counts nothing.
    const deadLetters = metricQueries(database);
    const metrics = config.metricsToken
      ? new GatewayMetrics(nodeId, {
          ...(database.poolStats ? { pool: database.poolStats } : {}),
          ...(redisState ? { redisAvailable: redisState.available } : {}),
          deadLetters: () => deadLetters.deadLetters(),
          pendingSettlements: () => relay.pending.size,
          ...(serverLedger
            ? {
                ledger: () => serverLedger.writerLevels(),
                ...(serverLedger.leases.enabled ? { leases: () => serverLedger.leases.levels() } : {}),
              }
            : {}),
        })
      : undefined;
    // The messaging bot: one poller across the nodes (the lease), restarted when its options change.
    const telegram = new TelegramBot({
      settings: () => ({
        token: options.current.TelegramBotToken,
        webhookSecret: options.current.TelegramWebhookSecret,
        serverAddress: options.current.ServerAddress,
      }),
      apiUrl: config.telegramApiUrl,
      dispatcher: upstream,
      lease: new JobLease(
        cluster,
        'telegram-poll',
        nodeId,
        pollLeaseMs(overrides.telegramTiming),
        clock.nowMs,
      ),
      claims: telegramUpdatesQueries(database),
      menus: repos.telegramMenus,
      nodeId,
      nowSeconds: clock.nowSeconds,
      install: (bot) => installCommands(bot, () => services),
      warn,
      ...(overrides.telegramTiming ? { timing: overrides.telegramTiming } : {}),
    });
    const services: Services = {
      config,
      secrets,
      database,
      repos,
      options,
      sessions,
      kv,
      codes,
      oidc: new OidcClient(clock.nowMs),
      limiter,
      bus,
      secretBox,
      passwords,
      loginBackoff: new LoginBackoff(codes, clock.nowSeconds),
      mailer,
      turnstile: overrides.turnstile ?? new HttpTurnstileVerifier(config.turnstileVerifyUrl),
      paymentDrivers: PAYMENT_DRIVERS,
      relay,
      jobs: { statisticsRollup, taskPoller },
      tasks: { klingTokens: new KlingTokenCache(clock.nowSeconds) },
      telegram,
      clock,
      ops: {
        nodeId,
        ...(metrics ? { metrics } : {}),
        ...(tracer ? { tracer } : {}),
        ...(redisState ? { redis: redisState } : {}),
      },
      startTime: clock.nowSeconds(),
      close: async () => {
        for (const close of closers.reverse()) await close().catch(() => {});
      },
    };
    options.onChange(() => void telegram.apply());
    void telegram.apply();
    // Pushed last, so it stops first: the poller's lease is handed over before the database closes.
    closers.push(() => telegram.stop());
    return { services, seed };
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => {});
    throw err;
  }
}

export async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // Warnings raised while composing wait for the logger; later ones (background jobs) go straight to it.
  const warnings: string[] = [];
  let warn = (m: string): void => {
    warnings.push(m);
  };
  const { services, seed } = await composeServices(config, { onWarning: (m) => warn(m) });
  // The calls made with fetch or undici's request() (sign-in providers, Turnstile, Vertex AI token
  // exchanges) go through the same outbound policy as the relay's.
  setGlobalDispatcher(services.relay.upstream);
  const app = await buildApp(services);
  for (const w of warnings) app.log.warn(w);
  warn = (m) => app.log.warn(m);
  if (seed.generatedRootPassword) {
    app.log.warn(
      `Created the root user. Username: root  Password: ${seed.generatedRootPassword}  (shown once; change it after signing in)`,
    );
  }

  let stopping = false;
  /**
   * Readiness turns false and every request left gets `Connection: close`; calls and streams in
   * flight get SHUTDOWN_DRAIN_SECONDS to finish, then their connections are cut (a cut call is still
   * billed for what it delivered). Then the settlements are committed, the reserves this node still
   * holds given back and the database closed, within SHUTDOWN_GRACE_MS; only then does it exit.
   */
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info(
      { signal, drainMs: config.shutdownDrainMs },
      'shutting down: not ready, no new connections, finishing requests in flight',
    );
    try {
      app.drain.begin(app.server);
      const closed = app.close();
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        closed.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), config.shutdownDrainMs);
        }),
      ]);
      clearTimeout(timer);
      if (!drained) {
        app.log.warn('drain time over: cutting the connections still open');
        app.server.closeAllConnections();
        await closed;
      }
      app.drain.end();
      const force = setTimeout(() => {
        app.log.error('shutdown grace period over; exiting before every settlement was committed');
        process.exit(1);
      }, config.shutdownGraceMs);
      force.unref();
      await services.close();
      app.log.info('stopped: every settlement committed');
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
}

if (isEntryPoint(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`Switchyard failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
