import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { processTicks, processTreeTicks } from './cpu-time.js';

// Child processes of the benchmark (upstreams, proxies, the gateway): started with their output in
// a log file, stopped by their own pid, measured through /proc.

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Output goes here (stdout and stderr). */
  logFile: string;
  /** Open an IPC channel (Node children): the loop monitor and `ready` messages use it. */
  ipc?: boolean;
}

export class ManagedProcess {
  private exitCode: number | null | undefined;
  private readonly exited: Promise<void>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logFile: string,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : 0);
        resolve();
      });
    });
    live.add(this);
    void this.exited.then(() => live.delete(this));
  }

  static start(o: StartOptions): ManagedProcess {
    const fd = openSync(o.logFile, 'a');
    const child = spawn(o.command, o.args, {
      cwd: o.cwd,
      env: o.env ?? process.env,
      stdio: o.ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
    });
    return new ManagedProcess(o.name, child, o.logFile);
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name} has no pid (did it start?)`);
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** Resolves with the first IPC message matching `accept`, or rejects when the process exits first. */
  waitForMessage<T>(accept: (m: unknown) => m is T, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => done(new Error(`${this.name}: no answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onMessage = (m: unknown) => {
        if (accept(m)) done(undefined, m);
      };
      const onExit = () => done(new Error(`${this.name} exited; see ${this.logFile}\n${this.logTail()}`));
      const done = (err?: Error, value?: T) => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        if (err) reject(err);
        else resolve(value as T);
      };
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
    });
  }

  send(message: unknown): void {
    this.child.send?.(message as never);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Resident set size now, from /proc (MiB). */
  rssMb(): number {
    return readRssMb(this.pid);
  }

  /** CPU time used so far (user + system), in clock ticks. */
  cpuTicks(): number {
    return processTicks(this.pid);
  }

  /** CPU time of this process and of the processes it started (nginx's workers), in clock ticks. */
  treeCpuTicks(): number {
    return processTreeTicks(this.pid);
  }

  logTail(lines = 20): string {
    try {
      return readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}

const live = new Set<ManagedProcess>();

/** Kills whatever the benchmark started and is still running (on failure or Ctrl-C). */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((p) => p.stop(3000)));
}

/** VmRSS of a process in MiB. */
export function readRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/** A TCP port free right now on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 2xx (the process is listening and ready). */
export async function waitForHttp(url: string, proc: ManagedProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running)
      throw new Error(`${proc.name} exited during start-up; see ${proc.logFile}\n${proc.logTail()}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${proc.name} did not answer ${url} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

export function isReady(m: unknown): m is 'ready' {
  return m === 'ready';
}
