import { monitorEventLoopDelay } from 'node:perf_hooks';

// Preloaded (`node --import`) into the gateway and the bare proxy so the benchmark can read their
// event-loop delay from the inside: the gateway exposes no metric of its own. A histogram sampled
// every 5 ms costs next to nothing. Asked over IPC, it answers and starts a new window.

export interface LoopStats {
  type: 'bench:loop';
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  rssMb: number;
  heapUsedMb: number;
}

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();

process.on('message', (m: unknown) => {
  if (m !== 'bench:loop') return;
  const mem = process.memoryUsage();
  const stats: LoopStats = {
    type: 'bench:loop',
    p50Ms: histogram.percentile(50) / 1e6,
    p99Ms: histogram.percentile(99) / 1e6,
    maxMs: histogram.max / 1e6,
    rssMb: mem.rss / 2 ** 20,
    heapUsedMb: mem.heapUsed / 2 ** 20,
  };
  histogram.reset();
  process.send?.(stats);
});
// The channel must not keep a process alive that would otherwise exit.
process.channel?.unref();
