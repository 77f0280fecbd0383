import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, type ManagedProcess, waitForHttp } from '../processes/managed-process.js';
import { startNginx } from '../processes/nginx-process.js';
import { chatCompletionEvents, chatCompletionJson } from './canned-replies.js';
import type { FakeUpstream, ReplyMode } from './fake-upstream.js';

// nginx (Debian's nginx-light) as the fake upstream: one worker answering every chat request from
// memory with `return 200`. nginx cannot look into a request body, so the reply kind is a file the
// server block includes, switched by rewriting it and reloading (SIGHUP) between phases.

/** The nginx version when the binary is installed, else undefined. */
export function nginxVersion(): string | undefined {
  // nginx prints its version on stderr.
  const r = spawnSync('nginx', ['-v'], { encoding: 'utf8' });
  if (r.error) return undefined;
  return /nginx\/([\d.]+)/.exec(`${r.stdout}${r.stderr}`)?.[1] ?? 'unknown';
}

/** A string for nginx's `return` inside single quotes: `$` would start a variable, so it is refused. */
export function nginxQuoted(text: string): string {
  if (text.includes('$')) throw new Error('nginx return text cannot contain $');
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** nginx reads a directive argument into a 4 KiB buffer, so a longer reply is set in parts. */
const PART_CHARS = 3000;

/** The location body answering every request with `text`: parts in variables, joined by `return`. */
export function replyDirectives(contentType: string, text: string): string {
  const parts: string[] = [];
  for (let at = 0; at < text.length; at += PART_CHARS) parts.push(text.slice(at, at + PART_CHARS));
  const sets = parts.map((part, i) => `set $reply_${i} ${nginxQuoted(part)};`);
  const joined = parts.map((_, i) => `$reply_${i}`).join('');
  return `default_type ${contentType};\n${sets.join('\n')}\nreturn 200 "${joined}";\n`;
}

function replyConf(mode: ReplyMode): string {
  return mode === 'sse'
    ? replyDirectives('text/event-stream', chatCompletionEvents('gpt-4o-mini').join(''))
    : replyDirectives('application/json', chatCompletionJson('gpt-4o-mini'));
}

function mainConf(dir: string, port: number): string {
  const p = (name: string) => path.join(dir, name);
  return `worker_processes 1;
pid ${p('nginx.pid')};
error_log ${p('error.log')} warn;
events { worker_connections 8192; multi_accept on; }
http {
  access_log off;
  client_body_temp_path ${p('tmp/body')};
  proxy_temp_path ${p('tmp/proxy')};
  fastcgi_temp_path ${p('tmp/fastcgi')};
  uwsgi_temp_path ${p('tmp/uwsgi')};
  scgi_temp_path ${p('tmp/scgi')};
  keepalive_requests 10000000;
  keepalive_timeout 120s;
  client_body_buffer_size 64k;
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location = /__stats { stub_status; }
    location / { include ${p('reply.conf')}; }
  }
}
`;
}

export class NginxUpstream implements FakeUpstream {
  private mode: ReplyMode = 'json';
  /** Requests the stats reads themselves add to nginx's counter. */
  private statsOverhead = 0;
  private baseCount = 0;

  private constructor(
    private readonly proc: ManagedProcess,
    private readonly dir: string,
    readonly origin: string,
    readonly description: string,
  ) {}

  /** `name` keeps two instances apart (their directory and log). */
  static async start(runDir: string, version: string, name: string): Promise<NginxUpstream> {
    const dir = path.join(runDir, `nginx-${name}`);
    mkdirSync(path.join(dir, 'tmp'), { recursive: true });
    const port = await freePort();
    writeFileSync(path.join(dir, 'reply.conf'), replyConf('json'));
    writeFileSync(path.join(dir, 'nginx.conf'), mainConf(dir, port));
    const proc = startNginx(dir, `nginx upstream (${name})`, path.join(runDir, `upstream-nginx-${name}.log`));
    const origin = `http://127.0.0.1:${port}`;
    await waitForHttp(`${origin}/__stats`, proc, 10_000);
    const up = new NginxUpstream(proc, dir, origin, `nginx ${version}`);
    // Two reads in a row measure what one read adds, so counts exclude the reads.
    const a = await up.rawCount();
    const b = await up.rawCount();
    up.statsOverhead = b - a;
    up.baseCount = b;
    return up;
  }

  async useMode(mode: ReplyMode): Promise<void> {
    if (mode === this.mode) return;
    writeFileSync(path.join(this.dir, 'reply.conf'), replyConf(mode));
    process.kill(this.proc.pid, 'SIGHUP');
    // The new worker is serving once a request gets the new content type. These probes are
    // requests too, so they join the ones excluded from the count.
    const want = mode === 'sse' ? 'text/event-stream' : 'application/json';
    for (let i = 0; i < 100; i++) {
      // A kept-alive connection to the old worker may be closing under us: that try failed, not nginx.
      const type = await fetch(`${this.origin}/v1/chat/completions`, { method: 'POST', body: '{}' }).then(
        async (res) => {
          await res.arrayBuffer();
          this.baseCount++;
          return res.headers.get('content-type') ?? '';
        },
        () => '',
      );
      if (type.startsWith(want)) {
        this.mode = mode;
        return;
      }
      await sleep(20);
    }
    throw new Error(`nginx did not switch to ${mode} replies; see ${path.join(this.dir, 'error.log')}`);
  }

  /** Chat requests answered, excluding the stats reads and the reload checks made by this class. */
  async requestCount(): Promise<number> {
    const raw = await this.rawCount();
    this.baseCount += this.statsOverhead;
    return raw - this.baseCount;
  }

  private async rawCount(): Promise<number> {
    const res = await fetch(`${this.origin}/__stats`);
    const text = await res.text();
    // "server accepts handled requests\n A H R"
    const m = /\n\s*(\d+)\s+(\d+)\s+(\d+)\s*\n/.exec(text);
    if (!m) throw new Error(`unexpected stub_status output: ${text}`);
    return Number(m[3]);
  }

  stop(): Promise<void> {
    return this.proc.stop();
  }
}
