import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The real gateway as a process of its own (`server/src/main.ts` through tsx), configured only by
// its environment, for the tests that stop, kill or starve it. The management calls it needs are
// made over HTTP like an operator's.

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
export const ROOT_PASSWORD = 'fault-suite-root-pw';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface GatewayProcessOptions {
  databaseUrl?: string;
  /** Reused across starts of the same node (its node id, its SQLite file). */
  dataDir?: string;
  env?: Record<string, string>;
}

export class GatewayProcess {
  private output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly child: ChildProcess,
    readonly origin: string,
    readonly dataDir: string,
    private readonly ownDir: boolean,
  ) {
    child.stdout?.on('data', (b: Buffer) => {
      this.output += b.toString();
    });
    child.stderr?.on('data', (b: Buffer) => {
      this.output += b.toString();
    });
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  static async start(options: GatewayProcessOptions = {}): Promise<GatewayProcess> {
    const port = await freePort();
    const ownDir = options.dataDir === undefined;
    const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'switchyard-node-'));
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        INITIAL_ROOT_PASSWORD: ROOT_PASSWORD,
        LOG_LEVEL: 'warn',
        API_RATE_LIMIT: '0',
        CRITICAL_RATE_LIMIT: '0',
        WEB_DIST: path.join(dataDir, 'no-console'),
        // The tests' fake upstreams listen on loopback.
        OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8,::1',
        ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const g = new GatewayProcess(child, `http://127.0.0.1:${port}`, dataDir, ownDir);
    for (let i = 0; ; i++) {
      const exit = await Promise.race([g.exited, new Promise((r) => setTimeout(r, 100, undefined))]);
      if (exit) throw new Error(`the gateway exited while starting: ${g.log}`);
      const ready = await fetch(`${g.origin}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) return g;
      if (i > 600) {
        child.kill('SIGKILL');
        throw new Error(`the gateway did not start: ${g.log}`);
      }
    }
  }

  /** Everything it wrote to stdout and stderr. */
  get log(): string {
    return this.output;
  }

  /** SIGKILL, then the data directory goes unless the caller gave it. */
  async dispose(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
    if (this.ownDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** The management API with root's session. */
export class RootSession {
  private constructor(
    readonly origin: string,
    private readonly cookie: string,
  ) {}

  static async open(origin: string): Promise<RootSession> {
    const res = await fetch(`${origin}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: ROOT_PASSWORD }),
    });
    if (!res.ok) throw new Error(`login failed: ${res.status} ${await res.text()}`);
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    return new RootSession(origin, cookie);
  }

  async call<T = unknown>(method: string, url: string, body?: unknown): Promise<T> {
    const send = () =>
      fetch(`${this.origin}${url}`, {
        method,
        headers: {
          cookie: this.cookie,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    let res = await send();
    // A session kept in Redis answers 503 while the gateway's Redis breaker is open (a command
    // slower than 250 ms on a loaded machine opens it); the answer says to try again shortly.
    for (let i = 0; res.status === 503 && i < 20; i++) {
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 250));
      res = await send();
    }
    const text = await res.text();
    const parsed = JSON.parse(text) as { success?: boolean; data?: unknown };
    if (!res.ok || parsed.success !== true) throw new Error(`${method} ${url} failed: ${res.status} ${text}`);
    return parsed.data as T;
  }

  /**
   * A channel to `baseUrl` for `models`, and a limited token of root's: its key. The default group's
   * rate limit is lifted, so a test's load reaches the ledger instead of being answered 429.
   */
  async channelAndToken(baseUrl: string, models = 'gpt-4o', remainQuota = 50_000_000): Promise<string> {
    const groups = await this.call<
      { data: { id: number; symbol: string }[] } | { id: number; symbol: string }[]
    >('GET', '/api/user_group/?size=100');
    const list = Array.isArray(groups) ? groups : groups.data;
    const group = list.find((g) => g.symbol === 'default');
    if (!group) throw new Error('no default group');
    await this.call('PUT', '/api/user_group/', { ...group, api_rate: 0 });
    await this.addChannel('fake', baseUrl, models);
    const token = await this.call<{ key: string }>('POST', '/api/token/', {
      name: 'fault',
      expired_time: -1,
      remain_quota: remainQuota,
      unlimited_quota: false,
    });
    return token.key;
  }

  /** An OpenAI-type channel of the default group to `baseUrl` for `models`. */
  async addChannel(name: string, baseUrl: string, models: string, fields: Record<string, unknown> = {}) {
    await this.call('POST', '/api/channel/', {
      type: 1,
      name,
      key: 'sk-upstream',
      base_url: baseUrl,
      models,
      group: 'default',
      ...fields,
    });
  }
}
