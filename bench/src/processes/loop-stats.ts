import type { LoopStats } from './loop-monitor.js';
import type { ManagedProcess } from './managed-process.js';

export type { LoopStats };

function isLoopStats(m: unknown): m is LoopStats {
  return typeof m === 'object' && m !== null && (m as { type?: unknown }).type === 'bench:loop';
}

/** Reads (and resets) the event-loop histogram of a process started with the loop monitor preloaded. */
export async function readLoopStats(proc: ManagedProcess): Promise<LoopStats> {
  const answer = proc.waitForMessage(isLoopStats, 5000);
  proc.send('bench:loop');
  return answer;
}
