import { performance } from 'node:perf_hooks';

// Wall-clock time of each phase of a run, printed as it ends and kept in the results: these say
// where a run's quarter of an hour goes.

export interface PhaseTiming {
  phase: string;
  seconds: number;
}

export class PhaseClock {
  private readonly list: PhaseTiming[] = [];

  constructor(private readonly say: (line: string) => void) {}

  /** Runs `work`, then logs and records how long it took (also when it throws). */
  async time<T>(phase: string, work: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      const seconds = Math.round((performance.now() - t0) / 100) / 10;
      this.list.push({ phase, seconds });
      this.say(`  [${phase}: ${seconds} s]`);
    }
  }

  get timings(): PhaseTiming[] {
    return [...this.list];
  }
}
