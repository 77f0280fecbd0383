import path from 'node:path';
import { freePort, isReady, ManagedProcess } from '../processes/managed-process.js';
import type { FakeUpstream, ReplyMode } from './fake-upstream.js';

const SCRIPT = path.join(import.meta.dirname, 'node-upstream-process.js');

/** The Node fake upstream (node-upstream-process.ts) as a child process. */
export class NodeUpstream implements FakeUpstream {
  readonly description: string;

  private constructor(
    private readonly proc: ManagedProcess,
    readonly origin: string,
    kind: 'fast' | 'slow',
  ) {
    this.description = kind === 'fast' ? `node ${process.version}` : `node ${process.version}, slow streams`;
  }

  /** `name` keeps instances apart (their log file). */
  static async start(
    runDir: string,
    kind: 'fast' | 'slow',
    name: string,
    options: { intervalMs?: number } = {},
  ): Promise<NodeUpstream> {
    const port = await freePort();
    const proc = ManagedProcess.start({
      name: `${kind} upstream (${name})`,
      command: process.execPath,
      args: [SCRIPT, '--port', String(port), '--kind', kind, '--interval', String(options.intervalMs ?? 200)],
      logFile: path.join(runDir, `upstream-${name}.log`),
      ipc: true,
    });
    await proc.waitForMessage(isReady, 10_000);
    return new NodeUpstream(proc, `http://127.0.0.1:${port}`, kind);
  }

  async useMode(mode: ReplyMode): Promise<void> {
    const res = await fetch(`${this.origin}/__mode/${mode}`, { method: 'PUT' });
    await res.text();
  }

  async requestCount(): Promise<number> {
    const res = await fetch(`${this.origin}/__stats`);
    const body = (await res.json()) as { requests: number };
    return body.requests;
  }

  stop(): Promise<void> {
    return this.proc.stop();
  }
}
