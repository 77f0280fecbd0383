import { addDays, type StatisticsQueries, utcDate } from '../db/queries/statistics.js';

/** How long after midnight (UTC) yesterday is still re-aggregated: logs are stamped with the request's
 * start and written when it settles, so a request begun before midnight can land minutes later. */
export const YESTERDAY_GRACE_SECONDS = 3600;

export interface RollupClock {
  nowSeconds(): number;
}

/**
 * Keeps the `statistics` rollup current: every run rebuilds today from its consume logs (and
 * yesterday, just after midnight or when this process last ran on another day). Each day is written
 * whole with an upsert, so the job needs no lease: nodes running it at the same time write the same
 * rows. Runs never overlap within a process; a run asked for while one is going joins it.
 */
export class StatisticsRollup {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<string[]> | undefined;
  private lastRunDay: string | undefined;

  constructor(
    private readonly queries: Pick<StatisticsQueries, 'rollupDay'>,
    private readonly clock: RollupClock,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** The days a run at `nowSeconds` rebuilds, oldest first. */
  daysToRoll(nowSeconds: number): string[] {
    const today = utcDate(nowSeconds);
    const secondsIntoDay = nowSeconds - Math.floor(nowSeconds / 86_400) * 86_400;
    const catchUp = this.lastRunDay !== today || secondsIntoDay < YESTERDAY_GRACE_SECONDS;
    return catchUp ? [addDays(today, -1), today] : [today];
  }

  /** Rebuilds the due days now; resolves with the days it rebuilt. */
  run(): Promise<string[]> {
    if (this.running) return this.running;
    const days = this.daysToRoll(this.clock.nowSeconds());
    this.running = (async () => {
      for (const day of days) await this.queries.rollupDay(day);
      this.lastRunDay = days.at(-1);
      return days;
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Runs once soon, then every `intervalMs`. Timers do not keep the process alive. */
  start(intervalMs: number): void {
    if (this.timer) return;
    const tick = () => {
      if (this.timer) this.run().catch(this.onError);
    };
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
    setImmediate(tick).unref();
  }

  /** Stops the schedule and waits for a run in progress, so the database can close after it. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => {});
  }
}
