import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../app.js';
import { type Config, loadConfig } from '../config.js';
import { type ComposeOverrides, composeServices } from '../main.js';
import type { Services } from '../services.js';
import { createTestDatabase, type EngineTarget, type TestDatabase } from './databases.js';

export const ROOT_PASSWORD = 'root-test-password';

export interface TestApp {
  app: FastifyInstance;
  s: Services;
  config: Config;
  /** Sends a request through the real app (no socket); cookies are passed explicitly. */
  call(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** Signs in and returns the session cookie header value. */
  signIn(username: string, password: string): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  engine?: EngineTarget;
  env?: Record<string, string>;
  overrides?: ComposeOverrides;
}

/** The real app on a fresh database (SQLite by default), wired exactly as main.ts wires it. */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-app-'));
  let testDb: TestDatabase | undefined;
  if (opts.engine && opts.engine.engine !== 'sqlite') testDb = await createTestDatabase(opts.engine);
  const config = loadConfig({
    DATA_DIR: dataDir,
    INITIAL_ROOT_PASSWORD: ROOT_PASSWORD,
    LOG_LEVEL: 'silent',
    API_RATE_LIMIT: '0',
    CRITICAL_RATE_LIMIT: '0',
    WEB_DIST: path.join(dataDir, 'no-console'),
    // The tests' fake upstreams listen on loopback.
    OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8,::1',
    // Apps that share a Redis (two test runs, two Node versions) must not see each other's sign-in
    // back-off, sessions or rate counters.
    REDIS_KEY_PREFIX: `sy-test-${path.basename(dataDir)}:`,
    ...(testDb ? { DATABASE_URL: testDb.url } : {}),
    ...opts.env,
  });
  const { services } = await composeServices(config, opts.overrides);
  const app = await buildApp(services);
  await app.ready();
  const call = (o: InjectOptions) => app.inject(o);
  return {
    app,
    s: services,
    config,
    call,
    async signIn(username, password) {
      const res = await call({ method: 'POST', url: '/api/user/login', payload: { username, password } });
      if (res.statusCode !== 200)
        throw new Error(`sign-in as ${username} failed: ${res.statusCode} ${res.body}`);
      const cookie = res.cookies.find((c) => c.name === 'sy_session');
      if (!cookie) throw new Error('no session cookie');
      return `sy_session=${cookie.value}`;
    },
    async close() {
      await app.close();
      await services.close();
      await testDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Registers a normal user through the public API and returns its id. */
export async function registerUser(
  t: TestApp,
  username: string,
  password = 'password-123',
  extra: Record<string, string> = {},
) {
  const res = await t.call({
    method: 'POST',
    url: '/api/user/register',
    payload: { username, password, ...extra },
  });
  if (res.statusCode !== 200) throw new Error(`register ${username} failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: { id: number } }).data.id;
}
