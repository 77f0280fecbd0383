import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { fakeProviderPorts, ROOT } from './tests/support';

// E2E_PORT lets two checkouts run their browser tests side by side.
const PORT = Number(process.env.E2E_PORT ?? 3123);
// With TEST_POSTGRES_URL set, a second server on a fresh PostgreSQL schema serves the "postgres"
// project: the flows whose storage differs most between engines (third-party sign-in, bindings,
// passkeys) run against it too.
const PG_PORT = PORT + 500;
const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);

// Workers load this file too; they inherit the directory chosen by the main process instead of
// making their own.
process.env.SWITCHYARD_E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'switchyard-e2e-'));
process.env.SWITCHYARD_E2E_PG_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'switchyard-e2e-pg-'));

/** The environment of a server under test listening on `port`. */
function serverEnv(port: number, dataDir: string | undefined): Record<string, string> {
  const fakes = fakeProviderPorts(port);
  return {
    PORT: String(port),
    DATA_DIR: dataDir ?? '',
    // The end-to-end tests' fake upstreams listen on loopback.
    OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8,::1',
    INITIAL_ROOT_PASSWORD: ROOT.password,
    LOG_LEVEL: 'warn',
    // Every test signs in; the per-IP sign-in limit (20 per 20 min) would otherwise trip mid-run.
    CRITICAL_RATE_LIMIT: '0',
    API_RATE_LIMIT: '0',
    // sign-in.spec.ts's fakes: the server exchanges codes there instead of at GitHub and Lark.
    GITHUB_OAUTH_URL: `http://127.0.0.1:${fakes.github}`,
    GITHUB_API_URL: `http://127.0.0.1:${fakes.github}`,
    LARK_API_URL: `http://127.0.0.1:${fakes.lark}`,
    // task-relays.spec.ts waits for the task poller: once a second instead of every 15.
    TASK_POLL_SECONDS: '1',
  };
}

export default defineConfig({
  testDir: './tests',
  outputDir: '../test-results/e2e',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: process.env.CI ? 2 : undefined,
  // .ci/run collects the counts from the JSON report it names in PLAYWRIGHT_JSON_OUTPUT_NAME.
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : 'list',
  // Generous on purpose: a CI machine shared with other work ran these pages three to six times slower
  // than a quiet one, and a timeout here says nothing about the console, only about the machine.
  timeout: 60_000,
  expect: { timeout: 15_000 },
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    locale: 'zh-CN',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [
    { name: 'chromium', use: { browserName: 'chromium' } },
    ...(onPostgres
      ? [
          {
            name: 'postgres',
            testMatch: 'sign-in.spec.ts',
            use: { browserName: 'chromium' as const, baseURL: `http://127.0.0.1:${PG_PORT}` },
          },
        ]
      : []),
  ],
  webServer: [
    {
      command: 'node server/dist/main.js',
      cwd: '..',
      url: `http://127.0.0.1:${PORT}/api/status`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: serverEnv(PORT, process.env.SWITCHYARD_E2E_DATA_DIR),
    },
    ...(onPostgres
      ? [
          {
            command: 'node --import tsx e2e/postgres-server.ts',
            cwd: '..',
            url: `http://127.0.0.1:${PG_PORT}/api/status`,
            reuseExistingServer: false,
            timeout: 60_000,
            stdout: 'ignore' as const,
            stderr: 'pipe' as const,
            env: serverEnv(PG_PORT, process.env.SWITCHYARD_E2E_PG_DATA_DIR),
            // Without it Playwright kills the process group outright and the schema stays behind.
            gracefulShutdown: { signal: 'SIGTERM' as const, timeout: 20_000 },
          },
        ]
      : []),
  ],
});
