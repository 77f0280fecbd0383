import type { PaymentType } from '@switchyard/domain';
import type { LoginBackoff } from './auth/login-backoff.js';
import type { PasswordHasher } from './auth/passwords.js';
import type { SessionStore } from './auth/session-store.js';
import type { TurnstileVerifier } from './auth/turnstile.js';
import type { ChangeBus } from './cache/change-bus.js';
import type { KvStore } from './cache/kv-store.js';
import type { RateLimiter } from './cache/rate-limiter.js';
import type { Config } from './config.js';
import type { SecretBox } from './crypto/secret-box.js';
import type { Database } from './db/create-db.js';
import type { Repos } from './db/repos.js';
import type { StatisticsRollup } from './jobs/statistics-rollup.js';
import type { Mailer } from './mail/mailer.js';
import type { GatewayMetrics } from './metrics/gateway-metrics.js';
import type { OidcClient } from './oauth/oidc-client.js';
import type { OptionStore } from './options/option-store.js';
import type { GatewayDriver } from './payments/gateway.js';
import type { RelayServices } from './relay/relay-services.js';
import type { Secrets } from './secrets.js';
import type { KlingTokenCache } from './tasks/kling/kling-token.js';
import type { TaskPolling } from './tasks/task-polling.js';
import type { MessagingBot } from './telegram/messaging-bot.js';
import type { CallTracer } from './tracing/call-tracer.js';

export type { Repos } from './db/repos.js';

export interface Clock {
  nowMs(): number;
  nowSeconds(): number;
}

/** Everything a request handler may use, wired once in main.ts (the composition root). */
export interface Services {
  config: Config;
  secrets: Secrets;
  database: Database;
  repos: Repos;
  options: OptionStore;
  sessions: SessionStore;
  kv: KvStore;
  /**
   * One-time codes every node must see (verification, reset, OAuth states): Redis when configured,
   * else the database; never process memory.
   */
  codes: KvStore;
  /** OpenID Connect sign-in (discovery cache, code exchange, ID token verification). */
  oidc: OidcClient;
  limiter: RateLimiter;
  bus: ChangeBus;
  secretBox: SecretBox;
  passwords: PasswordHasher;
  /** Failed sign-ins per account, in `codes` so every node counts the same. */
  loginBackoff: LoginBackoff;
  mailer: Mailer;
  turnstile: TurnstileVerifier;
  /** The protocol of each payment gateway type. */
  paymentDrivers: Readonly<Record<PaymentType, GatewayDriver>>;
  /** The /v1 pipeline's in-memory tables, ledger and upstream pools. */
  relay: RelayServices;
  /** Scheduled work, started by main.ts's composition and stopped by close(). */
  jobs: { statisticsRollup: StatisticsRollup; taskPoller: TaskPolling };
  /** The asynchronous task relays (Midjourney, Suno, Kling): Kling's signed tokens per key. */
  tasks: { klingTokens: KlingTokenCache };
  /** The messaging bot (off until TelegramBotToken is set). */
  telegram: MessagingBot;
  clock: Clock;
  /** Operating a node: its name, metrics (when METRICS_TOKEN is set), Redis reachability for /readyz. */
  ops?: {
    nodeId: string;
    metrics?: GatewayMetrics;
    /** Set when OTEL_EXPORTER_OTLP_ENDPOINT is. */
    tracer?: CallTracer;
    redis?: { ping(): Promise<unknown> };
  };
  /** Unix seconds when this process started (site status `start_time`). */
  startTime: number;
  /** Closes everything the services hold, in reverse order of creation. */
  close(): Promise<void>;
}
