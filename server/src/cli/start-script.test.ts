import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// deploy/start.sh is the container's entry point and the systemd unit's ExecStart: run it as they
// do (built output, environment only) and check the gateway comes up, answers /readyz and stops
// cleanly, and that the other subcommands work through it.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = path.join(ROOT, 'deploy/start.sh');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(SCRIPT, args, { env: { PATH: process.env.PATH ?? '', ...env } });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => resolve({ code, out }));
  });
}

/** The Node options between `node` and the script in a start command line. */
function nodeOptions(line: string): string[] {
  return line
    .trim()
    .split(/\s+/)
    .filter((word) => word.startsWith('--'));
}

// The garbage collector options are written twice (npm start, and this script for the container and
// systemd): they must stay the same, or the benchmark, which reads npm start's, measures another gateway.
describe('the Node options of deploy/start.sh', () => {
  it('are those of npm start', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    const npmStart = nodeOptions(pkg.scripts.start.split('&&').at(-1)!);
    const execLine = readFileSync(SCRIPT, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('exec node '))!;
    expect(nodeOptions(execLine)).toEqual(npmStart);
    expect(npmStart).toContain('--no-allocation-site-pretenuring');
  });
});

describe('deploy/start.sh', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let child: ChildProcess | undefined;

  beforeAll(() => {
    // The script runs the built server, as an installed copy would.
    execFileSync('npx', ['tsc', '-b', 'domain', 'server'], { cwd: ROOT, stdio: 'inherit' });
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-start-'));
    env = {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      INITIAL_ROOT_PASSWORD: 'start-script-password',
      WEB_DIST: path.join(dataDir, 'no-console'),
      LOG_LEVEL: 'warn',
    };
  }, 300_000);

  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('migrate creates the schema, and a second migrate finds it up to date', async () => {
    const first = await run(['migrate'], env);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toContain('Applied:');
    const second = await run(['migrate'], env);
    expect(second.code, second.out).toBe(0);
    expect(second.out).toContain('The schema is up to date.');
  });

  it('import refuses bad arguments with its usage, and a missing source with the reason', async () => {
    const bad = await run(['import', '--from', 'two-hub', '--source', 'x.db'], env);
    expect(bad.code).toBe(2);
    expect(bad.out).toContain('--from must be one of one-hub, one-api, new-api');
    const missing = await run(
      ['import', '--from', 'one-hub', '--source', path.join(dataDir, 'absent.db')],
      env,
    );
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(
      /switchyard import failed: .*(unable to open|does not exist|directory does not exist)/i,
    );
  });

  it('start answers /readyz, and SIGTERM stops it with status 0', async () => {
    const port = await freePort();
    child = spawn(SCRIPT, ['start'], { env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) } });
    let log = '';
    child.stdout?.on('data', (d) => {
      log += d;
    });
    child.stderr?.on('data', (d) => {
      log += d;
    });
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    let ready: Response | undefined;
    for (let i = 0; i < 600 && !ready; i++) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready?.status, log).toBe(200);
    expect(await ready!.json()).toMatchObject({ ready: true });
    child.kill('SIGTERM');
    expect(await exited, log).toBe(0);
    child = undefined;
  }, 120_000);
});
