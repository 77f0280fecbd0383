import path from 'node:path';
import { z } from 'zod';
import { AddressPolicy } from './outbound/address-policy.js';

// The only reader of process.env. Everything else receives a Config.

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const byteSize = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?\s*(b|kb|k|mb|m|gb|g)?$/i, 'must be a size such as 1048576, 512kb or 32mb')
  .transform((raw) => {
    const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(raw)!;
    const unit = (m[2] ?? '').toLowerCase();
    const mult = unit.startsWith('g')
      ? 1024 ** 3
      : unit.startsWith('m')
        ? 1024 ** 2
        : unit.startsWith('k')
          ? 1024
          : 1;
    return Math.floor(Number(m[1]) * mult);
  });

const databaseUrl = z
  .string()
  .trim()
  .refine((v) => /^(sqlite:|postgres:\/\/|postgresql:\/\/|mysql:\/\/|mariadb:\/\/)/.test(v), {
    message: 'must start with sqlite:, postgres://, postgresql://, mysql:// or mariadb://',
  });

const secret = z.string().min(32, 'must be at least 32 characters');

const envSchema = z.object({
  PORT: z.coerce.number().int('must be a whole number').min(0).max(65535).default(3000),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  DATABASE_URL: databaseUrl.optional(),
  REDIS_URL: z
    .string()
    .trim()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  // Deployments that share one Redis keep apart by prefix; every node of one deployment uses the same.
  REDIS_KEY_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 letters, digits or _ . : -')
    .default('sy:'),
  SESSION_SECRET: secret.optional(),
  SECRET_KEY: secret.optional(),
  INITIAL_ROOT_PASSWORD: z.string().min(8, 'must be at least 8 characters').max(128).optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  TRUSTED_PROXIES: z.string().trim().default(''),
  BASE_PATH: z
    .string()
    .trim()
    .regex(/^(\/[A-Za-z0-9._~-]+)*\/?$/, 'must be a URL path such as / or /console')
    .default('/'),
  API_BODY_LIMIT: byteSize.default(1024 * 1024),
  RELAY_BODY_LIMIT: byteSize.default(32 * 1024 * 1024),
  SESSION_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  SECURE_COOKIES: z.enum(['true', 'false', 'auto']).default('auto'),
  WEB_DIST: z.string().trim().optional(),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(15_000),
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().int('must be a whole number').min(0).max(3600).default(30),
  NODE_ID: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')
    .optional(),
  RESERVE_LEASE_SECONDS: z.coerce.number().int('must be a whole number').min(10).max(86_400).default(120),
  TASK_POLL_SECONDS: z.coerce.number().int('must be a whole number').min(1).max(3600).default(15),
  TASK_TIMEOUT_SECONDS: z.coerce
    .number()
    .int('must be a whole number')
    .min(60)
    .max(30 * 86_400)
    .default(86_400),
  // Quota a node moves from a balance into a lease it reserves against in memory (PostgreSQL,
  // MySQL; a SQLite file holds reserves in memory anyway); 0 sends every reserve to the database.
  QUOTA_LEASE_SLICE: z.coerce.number().int('must be a whole number').min(0).default(500_000),
  // PostgreSQL, MySQL: the least time between two settlement commits of the cluster unless a full
  // batch waits (each node waits it times the nodes running); a commit's fixed cost is paid per
  // batch, so a pause gathers more settlements into one.
  LEDGER_BATCH_GAP_MS: z.coerce.number().int('must be a whole number').min(0).max(1000).default(20),
  LANGUAGE: z.enum(['zh_CN', 'zh_HK', 'en_US', 'ja_JP']).default('zh_CN'),
  API_RATE_LIMIT: z.coerce.number().int('must be a whole number').min(0).default(300),
  CRITICAL_RATE_LIMIT: z.coerce.number().int('must be a whole number').min(0).default(20),
  TURNSTILE_VERIFY_URL: z.url().default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  // Where the sign-in providers' server-side endpoints are (GitHub Enterprise, Lark's international
  // site, or a test's fake).
  GITHUB_OAUTH_URL: z.url().default('https://github.com'),
  GITHUB_API_URL: z.url().default('https://api.github.com'),
  LARK_API_URL: z.url().default('https://open.feishu.cn'),
  // The Telegram Bot API (a self-hosted Bot API server, or a test's fake).
  TELEGRAM_API_URL: z.url().default('https://api.telegram.org'),
  // Private, loopback and unspecified networks the gateway may connect to (a local Ollama, an
  // upstream on the LAN); link-local and cloud metadata addresses stay refused whatever it says.
  OUTBOUND_ALLOWED_NETWORKS: z
    .string()
    .trim()
    .default('')
    .superRefine((v, ctx) => {
      try {
        AddressPolicy.parseList(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
  DATABASE_POOL_MAX: z.coerce.number().int('must be a whole number').min(1).max(1000).default(10),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce
    .number()
    .int('must be a whole number')
    .min(100)
    .max(600_000)
    .default(10_000),
  DATABASE_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int('must be a whole number')
    .min(1000)
    .max(86_400_000)
    .default(30_000),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int('must be a whole number')
    .min(0)
    .max(86_400_000)
    .default(0),
  METRICS_TOKEN: z.string().trim().min(16, 'must be at least 16 characters').optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().trim().min(1).default('switchyard'),
  HTTP_HEADERS_TIMEOUT_SECONDS: z.coerce.number().int('must be a whole number').min(1).max(3600).default(30),
  HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce
    .number()
    .int('must be a whole number')
    .min(1)
    .max(86_400)
    .default(300),
  HTTP_KEEP_ALIVE_SECONDS: z.coerce.number().int('must be a whole number').min(1).max(3600).default(65),
  HTTP_IDLE_TIMEOUT_SECONDS: z.coerce.number().int('must be a whole number').min(0).max(86_400).default(120),
  MAX_CONNECTIONS_PER_IP: z.coerce.number().int('must be a whole number').min(0).default(256),
  REALTIME_MAX_MESSAGE_BYTES: byteSize.default(8 * 1024 * 1024),
  REALTIME_SESSIONS_PER_IP: z.coerce.number().int('must be a whole number').min(0).default(16),
  REALTIME_SESSIONS_PER_TOKEN: z.coerce.number().int('must be a whole number').min(0).default(16),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  sessionSecret: string | undefined;
  secretKey: string | undefined;
  initialRootPassword: string | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Addresses or CIDRs whose X-Forwarded-For is believed; empty = trust none. */
  trustedProxies: string[];
  basePath: string;
  apiBodyLimit: number;
  relayBodyLimit: number;
  sessionTtlSeconds: number;
  secureCookies: 'true' | 'false' | 'auto';
  webDist: string | undefined;
  /** After the drain: how long settlements and the database get to finish before the process exits anyway. */
  shutdownGraceMs: number;
  /** SIGTERM: how long calls and streams in flight get to finish before their connections are cut. */
  shutdownDrainMs: number;
  /** This node's stable name (else one kept in DATA_DIR): a restart gives back the reserves it held. */
  nodeId: string | undefined;
  /** Seconds a reserve held in the database outlives a node that stopped renewing it. */
  reserveLeaseSeconds: number;
  /** How often unfinished Midjourney, Suno and Kling tasks are brought up to date. */
  taskPollSeconds: number;
  /** A task unfinished this long after its submit is failed and its charge given back. */
  taskTimeoutSeconds: number;
  /** Quota a node moves at a time into a lease it reserves against in memory (PostgreSQL, MySQL); 0 = off. */
  quotaLeaseSlice: number;
  /** Least time between two settlement commits of the cluster (server databases), shared by its nodes. */
  ledgerBatchGapMs: number;
  /** Management API requests per client IP per 3 minutes; 0 turns the limit off. */
  apiRateLimit: number;
  /** Sign-in, sign-up and reset requests per client IP per 20 minutes; 0 turns the limit off. */
  criticalRateLimit: number;
  turnstileVerifyUrl: string;
  /** Token endpoint origin (`/login/oauth/access_token`) and REST API origin of GitHub. */
  githubOAuthUrl: string;
  githubApiUrl: string;
  /** Lark (Feishu) open platform origin, for its token and user-info endpoints. */
  larkApiUrl: string;
  /** Telegram Bot API origin the messaging bot calls (`<url>/bot<token>/<method>`). */
  telegramApiUrl: string;
  /** Console language for visitors who have not chosen one (site status `language`). */
  language: 'zh_CN' | 'zh_HK' | 'en_US' | 'ja_JP';
  /** Private and loopback networks (CIDRs) outbound connections may reach; see outbound/address-policy.ts. */
  outboundAllowedNetworks: string[];
  /** PostgreSQL/MySQL pool of each node: connections at most, wait for a new one, idle life, statement limit (0 = none). */
  databasePool: { max: number; connectTimeoutMs: number; idleTimeoutMs: number; statementTimeoutMs: number };
  /** Bearer token of GET /metrics; unset = /metrics answers 404. */
  metricsToken: string | undefined;
  /** OTLP/HTTP collector base URL; unset = no tracing (the SDK is never loaded). */
  otlpEndpoint: string | undefined;
  otelServiceName: string;
  /** Inbound connection deadlines and the per-address cap (http/connection-guard.ts). */
  connections: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    idleTimeoutMs: number;
    maxConnectionsPerIp: number;
  };
  /** The Realtime API relay (/v1/realtime): largest WebSocket message either way; open sessions per client address and per key on this node (0 = no cap). */
  realtime: { maxMessageBytes: number; sessionsPerIp: number; sessionsPerToken: number };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Parses the environment; throws a ConfigError naming every bad variable at once. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (i) => `${i.path.join('.') || 'environment'}: ${i.message} (got ${show(present, i.path)})`,
      ),
    );
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const basePath = `/${e.BASE_PATH.replace(/^\/+|\/+$/g, '')}`.replace(/^\/$/, '/');
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL ?? `sqlite:${path.join(dataDir, 'switchyard.db')}`,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    sessionSecret: e.SESSION_SECRET,
    secretKey: e.SECRET_KEY,
    initialRootPassword: e.INITIAL_ROOT_PASSWORD,
    logLevel: e.LOG_LEVEL,
    trustedProxies: e.TRUSTED_PROXIES.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    basePath,
    apiBodyLimit: e.API_BODY_LIMIT,
    relayBodyLimit: e.RELAY_BODY_LIMIT,
    sessionTtlSeconds: e.SESSION_TTL_DAYS * 86400,
    secureCookies: e.SECURE_COOKIES,
    webDist: e.WEB_DIST,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_SECONDS * 1000,
    nodeId: e.NODE_ID,
    reserveLeaseSeconds: e.RESERVE_LEASE_SECONDS,
    taskPollSeconds: e.TASK_POLL_SECONDS,
    taskTimeoutSeconds: e.TASK_TIMEOUT_SECONDS,
    quotaLeaseSlice: e.QUOTA_LEASE_SLICE,
    ledgerBatchGapMs: e.LEDGER_BATCH_GAP_MS,
    apiRateLimit: e.API_RATE_LIMIT,
    criticalRateLimit: e.CRITICAL_RATE_LIMIT,
    turnstileVerifyUrl: e.TURNSTILE_VERIFY_URL,
    githubOAuthUrl: e.GITHUB_OAUTH_URL.replace(/\/+$/, ''),
    githubApiUrl: e.GITHUB_API_URL.replace(/\/+$/, ''),
    larkApiUrl: e.LARK_API_URL.replace(/\/+$/, ''),
    telegramApiUrl: e.TELEGRAM_API_URL.replace(/\/+$/, ''),
    language: e.LANGUAGE,
    outboundAllowedNetworks: AddressPolicy.parseList(e.OUTBOUND_ALLOWED_NETWORKS),
    databasePool: {
      max: e.DATABASE_POOL_MAX,
      connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      idleTimeoutMs: e.DATABASE_IDLE_TIMEOUT_MS,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    },
    metricsToken: e.METRICS_TOKEN,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, ''),
    otelServiceName: e.OTEL_SERVICE_NAME,
    connections: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
      // Node refuses a request deadline shorter than the header deadline.
      requestTimeoutMs: Math.max(e.HTTP_REQUEST_TIMEOUT_SECONDS, e.HTTP_HEADERS_TIMEOUT_SECONDS) * 1000,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_SECONDS * 1000,
      idleTimeoutMs: e.HTTP_IDLE_TIMEOUT_SECONDS * 1000,
      maxConnectionsPerIp: e.MAX_CONNECTIONS_PER_IP,
    },
    realtime: {
      maxMessageBytes: e.REALTIME_MAX_MESSAGE_BYTES,
      sessionsPerIp: e.REALTIME_SESSIONS_PER_IP,
      sessionsPerToken: e.REALTIME_SESSIONS_PER_TOKEN,
    },
  };
}

function show(env: Record<string, string | undefined>, p: PropertyKey[]): string {
  const key = String(p[0] ?? '');
  const value = env[key];
  if (value === undefined) return 'nothing';
  // Never echo secrets into logs.
  if (/SECRET|PASSWORD|KEY|TOKEN/.test(key)) return `${value.length} characters`;
  return JSON.stringify(value);
}
