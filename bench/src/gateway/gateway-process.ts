import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { LOOP_MONITOR } from '../bare-proxy.js';
import { freePort, ManagedProcess, waitForHttp } from '../processes/managed-process.js';

export interface GatewayConfig {
  /** Names the log file: `sqlite`, `postgres`, ... */
  label: string;
  repoRoot: string;
  dataDir: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  rootPassword: string;
  logLevel: string;
  /** When set, the gateway runs with --cpu-prof and writes its profile here on exit. */
  cpuProfileDir?: string;
}

/**
 * The real gateway (`server/dist/main.js`), configured only through its documented environment
 * variables, with the loop monitor preloaded.
 */
export class GatewayProcess {
  private constructor(
    readonly proc: ManagedProcess,
    readonly origin: string,
  ) {}

  static async start(runDir: string, c: GatewayConfig, startNo: number): Promise<GatewayProcess> {
    const port = await freePort();
    mkdirSync(c.dataDir, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: c.dataDir,
      DATABASE_URL: c.databaseUrl,
      INITIAL_ROOT_PASSWORD: c.rootPassword,
      LOG_LEVEL: c.logLevel,
      API_RATE_LIMIT: '0',
      CRITICAL_RATE_LIMIT: '0',
      SHUTDOWN_GRACE_MS: '30000',
      ...(c.redisUrl ? { REDIS_URL: c.redisUrl } : {}),
    };
    const profile = c.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${c.cpuProfileDir}`] : [];
    const proc = ManagedProcess.start({
      name: `gateway (${c.label})`,
      command: process.execPath,
      args: [...profile, '--import', LOOP_MONITOR, path.join(c.repoRoot, 'server', 'dist', 'main.js')],
      cwd: c.repoRoot,
      env,
      logFile: path.join(runDir, `gateway-${c.label}-${startNo}.log`),
      ipc: true,
    });
    const origin = `http://127.0.0.1:${port}`;
    await waitForHttp(`${origin}/api/status`, proc, 60_000);
    return new GatewayProcess(proc, origin);
  }

  /** Graceful stop: the gateway drains its writer before it exits. */
  stop(): Promise<void> {
    return this.proc.stop(40_000);
  }
}
