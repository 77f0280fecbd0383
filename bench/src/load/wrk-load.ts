import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LoadResult } from '../report/results.js';
import type { LoadGenerator, LoadSpec } from './load-generator.js';

// wrk (Debian's package) driven by a generated Lua script: the requests are formatted once, keys
// rotate per request, and `done` prints the figures as one JSON line.

/** The wrk version when the binary is installed, else undefined. */
export function wrkVersion(): string | undefined {
  try {
    execFileSync('wrk', ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    // `wrk -v` prints its banner and exits with status 1.
    const out = `${String((err as { stdout?: unknown }).stdout ?? '')}${String((err as { stderr?: unknown }).stderr ?? '')}`;
    const m = /wrk (?:debian\/)?([\w.+-]+)/.exec(out);
    if (m) return m[1];
    return undefined;
  }
  return 'unknown';
}

/** A Lua long string that cannot be closed by its content. */
export function luaString(text: string): string {
  let level = 1;
  while (text.includes(`]${'='.repeat(level)}]`)) level++;
  const eq = '='.repeat(level);
  // A leading newline would be dropped by Lua, so one is added that it drops instead.
  return `[${eq}[\n${text}]${eq}]`;
}

export function wrkScript(spec: Pick<LoadSpec, 'path' | 'body' | 'keys' | 'pauseMs'>): string {
  // wrk calls delay() after each reply and waits that many ms before the connection's next request;
  // the wait is not part of the measured latency.
  const pause =
    spec.pauseMs === undefined
      ? ''
      : `\nfunction delay()\n  return ${Math.max(0, Math.round(spec.pauseMs))}\nend\n`;
  return `local keys = {
${spec.keys.map((k) => `  ${luaString(k)},`).join('\n')}
}
local body = ${luaString(spec.body)}
local path = ${luaString(spec.path)}
local reqs = {}
local n = 0
local i = 0

function init(args)
  for k, key in ipairs(keys) do
    reqs[k] = wrk.format("POST", path, { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }, body)
  end
  n = #reqs
end

function request()
  i = i % n + 1
  return reqs[i]
end
${pause}
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH_JSON {\\"requests\\":%d,\\"duration_us\\":%d,\\"connect\\":%d,\\"read\\":%d,\\"write\\":%d,\\"status\\":%d,\\"timeout\\":%d,\\"p50_us\\":%d,\\"p99_us\\":%d,\\"max_us\\":%d}\\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;
}

interface WrkSummary {
  requests: number;
  duration_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50_us: number;
  p99_us: number;
  max_us: number;
}

/** Reads the line printed by the script's `done` out of wrk's output. */
export function parseWrkOutput(stdout: string, connections: number): LoadResult {
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (!line) throw new Error(`wrk printed no result line:\n${stdout}`);
  const s = JSON.parse(line.slice('BENCH_JSON '.length)) as WrkSummary;
  const durationS = s.duration_us / 1e6;
  return {
    connections,
    durationS,
    requests: s.requests,
    rps: durationS > 0 ? s.requests / durationS : 0,
    p50Ms: s.p50_us / 1000,
    p99Ms: s.p99_us / 1000,
    maxMs: s.max_us / 1000,
    non2xx: s.status,
    errors: s.connect + s.read + s.write + s.timeout,
  };
}

export class WrkLoad implements LoadGenerator {
  readonly description: string;

  constructor(
    private readonly scriptDir: string,
    version: string,
  ) {
    this.description = `wrk ${version}`;
  }

  run(spec: LoadSpec): Promise<LoadResult> {
    const script = path.join(this.scriptDir, 'wrk-load.lua');
    writeFileSync(script, wrkScript(spec));
    // One thread: the machine has two cores, shared with the upstream and the proxy under test.
    const args = [
      '-t1',
      `-c${spec.connections}`,
      `-d${spec.durationS}s`,
      '--timeout',
      '10s',
      '-s',
      script,
      `${spec.origin}${spec.path}`,
    ];
    return new Promise((resolve, reject) => {
      execFile('wrk', args, { encoding: 'utf8', maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
        if (err) return reject(new Error(`wrk failed: ${err.message}\n${stderr}`));
        try {
          resolve(parseWrkOutput(stdout, spec.connections));
        } catch (e) {
          reject(e);
        }
      });
    });
  }
}
