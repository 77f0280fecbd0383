import {
  addDays,
  type HourGroup,
  type RollupGroup,
  type StatisticsQueries,
  utcDate,
  utcDayStart,
} from '../db/queries/statistics.js';

/** How long after midnight (UTC) yesterday is still re-aggregated: logs are stamped with the request's
 * start and written when it settles, so a request begun before midnight can land minutes later. */
export const YESTERDAY_GRACE_SECONDS = 3600;

const SECONDS_PER_HOUR = 3600;
const HOURS_PER_DAY = 24;

/**
 * Log ids one query of a run adds up, small enough that a run's queries (synchronous on SQLite)
 * never stall the event loop longer than anything else on it does.
 */
const DEFAULT_IDS_PER_QUERY = 5_000;

export interface StatisticsRollupOptions {
  /** Log ids read by one query when catching up by id. Default 5 000. */
  idsPerQuery?: number;
}

/**
 * Lets requests waiting on the event loop run between two queries: SQLite answers synchronously,
 * so consecutive awaited queries alone would hold the loop for all of them.
 */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface RollupClock {
  nowSeconds(): number;
}

/** The hour slices of a day a run reads: closed ones (cached once read) and the open rest. */
export interface DaySlices {
  /** Start of each whole hour that ended more than the grace ago: its logs no longer change. */
  closed: number[];
  /** `[start, end)` of the rest of the day, read on every run. */
  open: { start: number; end: number } | undefined;
}

/** How a run at `nowSeconds` reads `date`: hour by hour up to the grace, then the rest in one piece. */
export function daySlices(date: string, nowSeconds: number): DaySlices {
  const dayStart = utcDayStart(date);
  const dayEnd = dayStart + HOURS_PER_DAY * SECONDS_PER_HOUR;
  const closed: number[] = [];
  let hour = dayStart;
  while (hour < dayEnd && hour + SECONDS_PER_HOUR <= nowSeconds - YESTERDAY_GRACE_SECONDS) {
    closed.push(hour);
    hour += SECONDS_PER_HOUR;
  }
  return { closed, open: hour < dayEnd ? { start: hour, end: dayEnd } : undefined };
}

function groupKey(g: RollupGroup): string {
  return `${g.user_id}\u0000${g.channel_id}\u0000${g.model_name}`;
}

/** Sums groups of several slices per user, channel and model, in the key order the writes take. */
export function sumGroups(slices: readonly (readonly RollupGroup[])[]): RollupGroup[] {
  const sums = new Map<string, RollupGroup>();
  for (const slice of slices) {
    for (const g of slice) {
      const key = groupKey(g);
      const sum = sums.get(key);
      if (!sum) {
        sums.set(key, { ...g });
        continue;
      }
      sum.request_count += g.request_count;
      sum.quota += g.quota;
      sum.prompt_tokens += g.prompt_tokens;
      sum.completion_tokens += g.completion_tokens;
      sum.request_time += g.request_time;
    }
  }
  return [...sums.values()].sort(
    (a, b) =>
      a.user_id - b.user_id ||
      a.channel_id - b.channel_id ||
      (a.model_name < b.model_name ? -1 : a.model_name > b.model_name ? 1 : 0),
  );
}

/**
 * Keeps the `statistics` rollup current: every run writes today's totals (and yesterday's, just
 * after midnight or when this process last ran on another day) whole, with an upsert, so the job
 * needs no lease: nodes running it at the same time write the same rows. Runs never overlap within a
 * process; a run asked for while one is going joins it.
 *
 * A whole-day scan of a busy day's logs stalled the event loop for a second and more every minute,
 * so a day is read hour by hour, each hour its own query (the first run after a start reads them
 * all, letting the event loop turn between them), and then:
 * - where log ids grow in commit order (SQLite), the hours are kept and each run adds only the
 *   logs above the last id it saw, late ones for an earlier hour included, a slice of ids per query;
 * - on the servers, an hour that ended more than the grace ago is read once and remembered, and
 *   each run reads the open rest of the day (the scan runs on the server, not in this process).
 */
export class StatisticsRollup {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<string[]> | undefined;
  private lastRunDay: string | undefined;
  /** The groups of closed hours already read, by hour start; only hours of days still rolled. */
  private readonly closedHours = new Map<number, RollupGroup[]>();
  /** Ids in commit order: every hour of the loaded days, summed up to `seenId`. */
  private readonly hours = new Map<number, Map<string, RollupGroup>>();
  private readonly loadedDays = new Set<string>();
  private seenId: number | undefined;
  private readonly idsPerQuery: number;

  constructor(
    private readonly queries: Pick<
      StatisticsQueries,
      'aggregateLogs' | 'writeDay' | 'logIdsInCommitOrder' | 'lastLogId' | 'aggregateLogIds'
    >,
    private readonly clock: RollupClock,
    private readonly onError: (err: unknown) => void = () => {},
    options: StatisticsRollupOptions = {},
  ) {
    this.idsPerQuery = options.idsPerQuery ?? DEFAULT_IDS_PER_QUERY;
  }

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
    const now = this.clock.nowSeconds();
    const days = this.daysToRoll(now);
    this.running = (async () => {
      this.forgetBefore(utcDayStart(days[0]!));
      if (this.queries.logIdsInCommitOrder) {
        await this.catchUp(days);
        for (const day of days) await this.queries.writeDay(day, this.keptDay(day));
      } else {
        for (const day of days) await this.queries.writeDay(day, await this.dayGroups(day, now));
      }
      this.lastRunDay = days.at(-1);
      return days;
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Runs once soon, then every `intervalMs`. Timers do not keep the process alive. `mayRun` (the
   * job's lease when nodes share a database) is asked at each tick: one node rolls up at a time.
   */
  start(intervalMs: number, mayRun: () => Promise<boolean> = async () => true): void {
    if (this.timer) return;
    const tick = () => {
      if (!this.timer) return;
      mayRun()
        .then((allowed) => (allowed && this.timer ? this.run() : undefined))
        .catch(this.onError);
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

  private async dayGroups(day: string, now: number): Promise<RollupGroup[]> {
    const { closed, open } = daySlices(day, now);
    const slices: RollupGroup[][] = [];
    for (const hour of closed) {
      let groups = this.closedHours.get(hour);
      if (!groups) {
        groups = await this.queries.aggregateLogs(hour, hour + SECONDS_PER_HOUR);
        this.closedHours.set(hour, groups);
      }
      slices.push(groups);
    }
    if (open) slices.push(await this.queries.aggregateLogs(open.start, open.end));
    return sumGroups(slices);
  }

  /**
   * Brings the kept hours up to the last log id: the logs written since the last run are added
   * to their hours, and a day rolled for the first time is read hour by hour up to that id.
   */
  private async catchUp(days: readonly string[]): Promise<void> {
    const upTo = await this.queries.lastLogId();
    // A busy minute is hundreds of thousands of logs: read in slices of ids, each its own query.
    while (this.seenId !== undefined && this.seenId < upTo) {
      const to = Math.min(upTo, this.seenId + this.idsPerQuery);
      for (const g of await this.queries.aggregateLogIds(this.seenId, to)) {
        if (this.loadedDays.has(utcDate(g.hour))) this.add(g.hour, g);
      }
      this.seenId = to;
      if (to < upTo) await nextTurn();
    }
    this.seenId = upTo;
    for (const day of days) {
      if (this.loadedDays.has(day)) continue;
      const start = utcDayStart(day);
      for (let h = 0; h < HOURS_PER_DAY; h++) {
        const hour = start + h * SECONDS_PER_HOUR;
        for (const g of await this.queries.aggregateLogs(hour, hour + SECONDS_PER_HOUR, upTo))
          this.add(hour, g);
        await nextTurn();
      }
      this.loadedDays.add(day);
    }
  }

  private add(hour: number, g: RollupGroup | HourGroup): void {
    let groups = this.hours.get(hour);
    if (!groups) {
      groups = new Map();
      this.hours.set(hour, groups);
    }
    const key = groupKey(g);
    const sum = groups.get(key);
    if (!sum) {
      groups.set(key, {
        user_id: g.user_id,
        channel_id: g.channel_id,
        model_name: g.model_name,
        request_count: g.request_count,
        quota: g.quota,
        prompt_tokens: g.prompt_tokens,
        completion_tokens: g.completion_tokens,
        request_time: g.request_time,
      });
      return;
    }
    sum.request_count += g.request_count;
    sum.quota += g.quota;
    sum.prompt_tokens += g.prompt_tokens;
    sum.completion_tokens += g.completion_tokens;
    sum.request_time += g.request_time;
  }

  private keptDay(day: string): RollupGroup[] {
    const start = utcDayStart(day);
    const slices: RollupGroup[][] = [];
    for (let h = 0; h < HOURS_PER_DAY; h++) {
      const groups = this.hours.get(start + h * SECONDS_PER_HOUR);
      if (groups) slices.push([...groups.values()]);
    }
    return sumGroups(slices);
  }

  private forgetBefore(start: number): void {
    for (const hour of this.closedHours.keys()) if (hour < start) this.closedHours.delete(hour);
    for (const hour of this.hours.keys()) if (hour < start) this.hours.delete(hour);
    for (const day of this.loadedDays) if (utcDayStart(day) < start) this.loadedDays.delete(day);
  }
}
