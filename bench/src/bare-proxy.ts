import path from 'node:path';
import { freePort, isReady, ManagedProcess } from './processes/managed-process.js';

const SCRIPT = path.join(import.meta.dirname, 'bare-proxy-process.js');
export const LOOP_MONITOR = path.join(import.meta.dirname, 'processes', 'loop-monitor.js');

/** The bare proxy (bare-proxy-process.ts) in its own process, pointed at one upstream. */
export class BareProxy {
  private constructor(
    readonly proc: ManagedProcess,
    readonly origin: string,
  ) {}

  static async start(runDir: string, upstreamOrigin: string, label: string): Promise<BareProxy> {
    const port = await freePort();
    const proc = ManagedProcess.start({
      name: `bare proxy (${label})`,
      command: process.execPath,
      args: ['--import', LOOP_MONITOR, SCRIPT, '--port', String(port), '--upstream', upstreamOrigin],
      logFile: path.join(runDir, `bare-proxy-${label}.log`),
      ipc: true,
    });
    await proc.waitForMessage(isReady, 15_000);
    return new BareProxy(proc, `http://127.0.0.1:${port}`);
  }

  stop(): Promise<void> {
    return this.proc.stop();
  }
}
