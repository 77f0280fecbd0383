// Measures what a cold browser moves and waits for on the console's first screens, on a fast link
// and on a slow profile (4x CPU slowdown, 1.6 Mbps down, 750 kbps up, 150 ms round trip), through
// Chrome's DevTools protocol. A report, not a test: the figures depend on the machine.
//
//   npm run build && node --import tsx e2e/measure/first-load.ts [--runs 3] [--port 3140]
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type CDPSession, chromium, type Page } from '@playwright/test';

const ROOT_PASSWORD = 'measure-root-password';
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const PORT = arg('port', 3140);
const RUNS = arg('runs', 3);
const BASE = `http://127.0.0.1:${PORT}`;

const SLOW = {
  cpu: 4,
  network: {
    offline: false,
    latency: 150,
    downloadThroughput: (1.6 * 1024 * 1024) / 8,
    uploadThroughput: (750 * 1024) / 8,
  },
};

interface Sample {
  /** Bytes on the wire: response headers and (compressed) bodies. */
  transferred: number;
  /** The compressed bodies alone. */
  bodies: number;
  decoded: number;
  requests: number;
  ms: number;
}

async function startServer(): Promise<ChildProcess> {
  const repo = fileURLToPath(new URL('../../', import.meta.url));
  const child = spawn(process.execPath, ['server/dist/main.js'], {
    cwd: repo,
    env: {
      ...process.env,
      PORT: String(PORT),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'switchyard-measure-')),
      INITIAL_ROOT_PASSWORD: ROOT_PASSWORD,
      LOG_LEVEL: 'warn',
      CRITICAL_RATE_LIMIT: '0',
      API_RATE_LIMIT: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${BASE}/api/status`)).ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('the server did not start');
}

/** Counts the bytes on the wire (headers included) and the decoded bodies of every response. */
async function countTraffic(cdp: CDPSession): Promise<() => Omit<Sample, 'ms'>> {
  let transferred = 0;
  let headers = 0;
  let decoded = 0;
  let requests = 0;
  await cdp.send('Network.enable');
  cdp.on('Network.responseReceived', (e) => {
    // Received so far: the status line and headers.
    headers += e.response.encodedDataLength;
  });
  cdp.on('Network.dataReceived', (e) => {
    decoded += e.dataLength;
  });
  const urls = new Map<string, string>();
  cdp.on('Network.requestWillBeSent', (e) => {
    urls.set(e.requestId, e.request.url);
  });
  cdp.on('Network.loadingFinished', (e) => {
    transferred += e.encodedDataLength;
    requests += 1;
    if (process.env.MEASURE_VERBOSE)
      console.error(`${String(e.encodedDataLength).padStart(8)} ${urls.get(e.requestId)?.replace(BASE, '')}`);
  });
  return () => ({ transferred, bodies: transferred - headers, decoded, requests });
}

/** A new browser context, signed in through the login form when asked, with its cache then emptied. */
async function coldPage(
  browser: Browser,
  slow: boolean,
  signedIn: boolean,
): Promise<{ page: Page; cdp: CDPSession }> {
  const context = await browser.newContext({ locale: 'zh-CN' });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  if (signedIn) {
    await page.goto(`${BASE}/login`);
    await page.getByTestId('login-username').fill('root');
    await page.getByTestId('login-password').fill(ROOT_PASSWORD);
    await page.getByTestId('login-submit').click();
    await page.waitForURL(/\/panel\/dashboard$/);
    await page.goto('about:blank');
    await cdp.send('Network.clearBrowserCache');
  }
  if (slow) {
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', SLOW.network);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: SLOW.cpu });
  }
  return { page, cdp };
}

async function measure(
  browser: Browser,
  slow: boolean,
  path: string,
  ready: (page: Page) => Promise<unknown>,
  signedIn: boolean,
): Promise<Sample> {
  const { page, cdp } = await coldPage(browser, slow, signedIn);
  const traffic = await countTraffic(cdp);
  const started = Date.now();
  await page.goto(`${BASE}${path}`);
  await ready(page);
  const ms = Date.now() - started;
  // Requests the screen makes after it is usable (lazy chunks, icons) still count as its load.
  await page.waitForLoadState('networkidle');
  const sample = { ...traffic(), ms };
  await page.context().close();
  return sample;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;

async function main(): Promise<void> {
  const server = await startServer();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    const loginReady = (p: Page) => p.getByTestId('login-submit').waitFor();
    // Usable: the balance card holds its figure (the statistics have arrived and are drawn).
    const dashboardReady = (p: Page) =>
      p.waitForFunction(() => {
        const el = document.querySelector('[data-testid="dashboard-balance"]');
        return el !== null && /\d/.test(el.textContent ?? '');
      });
    const rows: [string, Sample][] = [];
    for (const [name, slow, path, ready, signedIn] of [
      ['/login, fast link', false, '/login', loginReady, false],
      ['/login, slow profile', true, '/login', loginReady, false],
      ['/panel/dashboard, fast link', false, '/panel/dashboard', dashboardReady, true],
      ['/panel/dashboard, slow profile', true, '/panel/dashboard', dashboardReady, true],
    ] as const) {
      const samples: Sample[] = [];
      for (let i = 0; i < RUNS; i++) samples.push(await measure(browser, slow, path, ready, signedIn));
      rows.push([
        name,
        {
          transferred: median(samples.map((s) => s.transferred)),
          bodies: median(samples.map((s) => s.bodies)),
          decoded: median(samples.map((s) => s.decoded)),
          requests: median(samples.map((s) => s.requests)),
          ms: median(samples.map((s) => s.ms)),
        },
      ]);
    }
    console.log(`Cold first load, median of ${RUNS} runs (slow profile: 4x CPU, 1.6 Mbps, 150 ms RTT)\n`);
    console.log('| screen | transferred | of which bodies | decoded | requests | usable after |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const [name, s] of rows)
      console.log(
        `| ${name} | ${kb(s.transferred)} | ${kb(s.bodies)} | ${kb(s.decoded)} | ${s.requests} | ${(s.ms / 1000).toFixed(2)} s |`,
      );
  } finally {
    await browser.close();
    server.kill();
  }
}

await main();
