import { describe, expect, it } from 'vitest';
import type { RollupGroup } from '../db/queries/statistics.js';
import { daySlices, StatisticsRollup } from './statistics-rollup.js';

const at = (iso: string) => Date.parse(iso) / 1000;

/** A consume log as the fake aggregate sees it. */
interface FakeLog {
  /** Ids grow as logs are written, as the fake database hands them out. */
  id?: number;
  created_at: number;
  user_id: number;
  channel_id: number;
  model_name: string;
  quota: number;
}

/** The fake database's GROUP BY, written independently of the job's own summing. */
function aggregate(
  logs: readonly FakeLog[],
  start: number,
  end: number,
  ids: { after?: number; upTo?: number } = {},
): RollupGroup[] {
  const groups = new Map<string, RollupGroup>();
  for (const l of logs) {
    if (l.created_at < start || l.created_at >= end) continue;
    if (ids.after !== undefined && (l.id ?? 0) <= ids.after) continue;
    if (ids.upTo !== undefined && (l.id ?? 0) > ids.upTo) continue;
    const key = `${l.user_id}/${l.channel_id}/${l.model_name}`;
    const g = groups.get(key) ?? {
      user_id: l.user_id,
      channel_id: l.channel_id,
      model_name: l.model_name,
      request_count: 0,
      quota: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      request_time: 0,
    };
    g.request_count += 1;
    g.quota += l.quota;
    g.prompt_tokens += 2 * l.quota;
    g.completion_tokens += 3 * l.quota;
    g.request_time += 5;
    groups.set(key, g);
  }
  return [...groups.values()].sort(
    (x, y) =>
      x.user_id - y.user_id || x.channel_id - y.channel_id || x.model_name.localeCompare(y.model_name),
  );
}

function harness(start: string, mode: 'hour slices' | 'log ids' = 'hour slices', idsPerQuery?: number) {
  let now = at(start);
  const rolled: string[] = [];
  const written = new Map<string, RollupGroup[]>();
  const reads: [number, number][] = [];
  const idReads: [number, number][] = [];
  /** Per id read: whether an immediate set by the read before it had run (the event loop turned). */
  const turnedBefore: boolean[] = [];
  let turned = true;
  const logs: FakeLog[] = [];
  const lastId = () => logs.reduce((m, l) => Math.max(m, l.id ?? 0), 0);
  let release: (() => void) | undefined;
  let hold = false;
  const job = new StatisticsRollup(
    {
      async aggregateLogs(from: number, to: number, upToId?: number) {
        reads.push([from, to]);
        return aggregate(logs, from, to, { upTo: upToId });
      },
      logIdsInCommitOrder: mode === 'log ids',
      async lastLogId() {
        return lastId();
      },
      async aggregateLogIds(afterId: number, upToId: number) {
        idReads.push([afterId, upToId]);
        turnedBefore.push(turned);
        turned = false;
        setImmediate(() => {
          turned = true;
        });
        const hours = new Set(logs.map((l) => l.created_at - (l.created_at % 3600)));
        return [...hours].flatMap((hour) =>
          aggregate(logs, hour, hour + 3600, { after: afterId, upTo: upToId }).map((g) => ({ hour, ...g })),
        );
      },
      async writeDay(day: string, groups: readonly RollupGroup[]) {
        if (hold) await new Promise<void>((r) => (release = r));
        rolled.push(day);
        written.set(day, [...groups]);
      },
    },
    { nowSeconds: () => now },
    undefined,
    { idsPerQuery },
  );
  return {
    job,
    rolled,
    written,
    reads,
    idReads,
    turnedBefore,
    logs,
    /** Writes logs with the next ids. */
    write: (more: FakeLog[]) => {
      let id = lastId();
      for (const l of more) logs.push({ ...l, id: ++id });
    },
    setNow: (iso: string) => {
      now = at(iso);
    },
    holdNext: () => {
      hold = true;
    },
    release: () => {
      hold = false;
      release?.();
    },
  };
}

/** A seeded source of consume logs between two times, so a failure can be replayed. */
function randomLogs(seed: number) {
  let x = seed;
  const next = (n: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return Math.floor((x / 2_147_483_648) * n);
  };
  return (from: number, to: number, count: number): FakeLog[] =>
    Array.from({ length: count }, () => ({
      created_at: from + next(to - from),
      user_id: 1 + next(3),
      channel_id: next(3),
      model_name: ['a', 'b', 'c'][next(3)]!,
      quota: next(1000),
    }));
}

function wholeDay(logs: readonly FakeLog[], date: string): RollupGroup[] {
  const start = at(`${date}T00:00:00Z`);
  return aggregate(logs, start, start + 86_400);
}

describe('statistics rollup job', () => {
  it('rebuilds yesterday and today on its first run, then only today', async () => {
    const h = harness('2026-03-14T15:00:00Z');
    expect(await h.job.run()).toEqual(['2026-03-13', '2026-03-14']);
    expect(await h.job.run()).toEqual(['2026-03-14']);
    expect(h.rolled).toEqual(['2026-03-13', '2026-03-14', '2026-03-14']);
  });

  it('keeps rebuilding yesterday during the first hour of a day, and after a day change', async () => {
    const h = harness('2026-03-14T23:59:30Z');
    await h.job.run();
    h.setNow('2026-03-15T00:00:30Z');
    expect(await h.job.run()).toEqual(['2026-03-14', '2026-03-15']);
    h.setNow('2026-03-15T00:59:59Z');
    expect(await h.job.run()).toEqual(['2026-03-14', '2026-03-15']);
    h.setNow('2026-03-15T01:00:00Z');
    expect(await h.job.run()).toEqual(['2026-03-15']);
    // A process that missed midnight by more than the grace still catches up once.
    h.setNow('2026-03-16T05:00:00Z');
    expect(await h.job.run()).toEqual(['2026-03-15', '2026-03-16']);
  });

  it('never runs twice at once: a second call joins the run in progress', async () => {
    const h = harness('2026-03-14T15:00:00Z');
    h.holdNext();
    const a = h.job.run();
    const b = h.job.run();
    expect(b).toBe(a);
    h.release();
    await a;
    expect(h.rolled).toEqual(['2026-03-13', '2026-03-14']);
  });

  it('stop() waits for the run in progress', async () => {
    const h = harness('2026-03-14T15:00:00Z');
    h.holdNext();
    const running = h.job.run();
    let stopped = false;
    const stopping = h.job.stop().then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(stopped).toBe(false);
    h.release();
    await Promise.all([running, stopping]);
    expect(stopped).toBe(true);
  });

  it('runs on its schedule once started and not after stop()', async () => {
    const h = harness('2026-03-14T15:00:00Z');
    h.job.start(20);
    await new Promise((r) => setTimeout(r, 90));
    await h.job.stop();
    const runs = h.rolled.length;
    expect(runs).toBeGreaterThanOrEqual(3);
    await new Promise((r) => setTimeout(r, 60));
    expect(h.rolled.length).toBe(runs);
  });
  it('reads a closed hour once and the open rest of the day on every run', async () => {
    const h = harness('2026-03-14T15:20:00Z');
    await h.job.run();
    const day = at('2026-03-14T00:00:00Z');
    // Yesterday's 24 hours, today's 00:00-14:00 (ended more than the grace ago), then the rest.
    expect(h.reads).toHaveLength(24 + 14 + 1);
    expect(h.reads.at(-1)).toEqual([day + 14 * 3600, day + 86_400]);
    h.reads.length = 0;
    h.setNow('2026-03-14T15:21:00Z');
    await h.job.run();
    expect(h.reads).toEqual([[day + 14 * 3600, day + 86_400]]);
    h.reads.length = 0;
    // An hour later 14:00-15:00 has closed too: read once more, then remembered.
    h.setNow('2026-03-14T16:05:00Z');
    await h.job.run();
    await h.job.run();
    expect(h.reads).toEqual([
      [day + 14 * 3600, day + 15 * 3600],
      [day + 15 * 3600, day + 86_400],
      [day + 15 * 3600, day + 86_400],
    ]);
  });

  it('writes each day as the sum of its slices: what one whole-day read would give', async () => {
    const h = harness('2026-03-14T09:30:00Z');
    const logs = randomLogs(7);
    h.write(logs(at('2026-03-13T00:00:00Z'), at('2026-03-14T09:30:00Z'), 3000));
    await h.job.run();
    expect(h.written.get('2026-03-13')).toEqual(wholeDay(h.logs, '2026-03-13'));
    expect(h.written.get('2026-03-14')).toEqual(wholeDay(h.logs, '2026-03-14'));
    // Logs keep arriving in the open part (late ones within the grace included).
    h.write(logs(at('2026-03-14T08:31:00Z'), at('2026-03-14T11:00:00Z'), 500));
    h.setNow('2026-03-14T11:00:00Z');
    await h.job.run();
    expect(h.written.get('2026-03-14')).toEqual(wholeDay(h.logs, '2026-03-14'));
    expect(h.written.get('2026-03-14')!.length).toBeGreaterThan(20);
  });

  it('with ids in commit order: reads each hour once, then only the logs above the last id', async () => {
    const h = harness('2026-03-14T15:20:00Z', 'log ids');
    const logs = randomLogs(11);
    h.write(logs(at('2026-03-13T00:00:00Z'), at('2026-03-14T15:20:00Z'), 2000));
    await h.job.run();
    expect(h.reads).toHaveLength(48);
    expect(h.idReads).toHaveLength(0);
    expect(h.written.get('2026-03-13')).toEqual(wholeDay(h.logs, '2026-03-13'));
    expect(h.written.get('2026-03-14')).toEqual(wholeDay(h.logs, '2026-03-14'));
    h.reads.length = 0;
    // New logs, late ones for hours long closed among them: every one lands in its hour.
    h.write(logs(at('2026-03-14T15:00:00Z'), at('2026-03-14T15:30:00Z'), 300));
    h.write(logs(at('2026-03-14T02:00:00Z'), at('2026-03-14T03:00:00Z'), 20));
    h.setNow('2026-03-14T15:30:00Z');
    await h.job.run();
    expect(h.reads).toHaveLength(0);
    expect(h.idReads).toEqual([[2000, 2320]]);
    expect(h.written.get('2026-03-14')).toEqual(wholeDay(h.logs, '2026-03-14'));
    // Nothing new: no read at all, the same rows.
    h.idReads.length = 0;
    await h.job.run();
    expect(h.idReads).toHaveLength(0);
    expect(h.written.get('2026-03-14')).toEqual(wholeDay(h.logs, '2026-03-14'));
  });

  it('with ids in commit order: reads many new logs a slice of ids at a time, letting the loop turn between', async () => {
    const h = harness('2026-03-14T15:20:00Z', 'log ids', 100);
    const logs = randomLogs(17);
    h.write(logs(at('2026-03-14T00:00:00Z'), at('2026-03-14T15:20:00Z'), 1000));
    await h.job.run();
    h.write(logs(at('2026-03-14T14:00:00Z'), at('2026-03-14T15:30:00Z'), 320));
    h.setNow('2026-03-14T15:30:00Z');
    await h.job.run();
    expect(h.idReads).toEqual([
      [1000, 1100],
      [1100, 1200],
      [1200, 1300],
      [1300, 1320],
    ]);
    expect(h.turnedBefore).toEqual([true, true, true, true]);
    expect(h.written.get('2026-03-14')).toEqual(wholeDay(h.logs, '2026-03-14'));
  });

  it('with ids in commit order: a day rolled first after midnight counts its early logs once', async () => {
    const h = harness('2026-03-14T23:50:00Z', 'log ids');
    const logs = randomLogs(13);
    h.write(logs(at('2026-03-14T20:00:00Z'), at('2026-03-14T23:50:00Z'), 400));
    await h.job.run();
    // Written before the next day is rolled: above the last id seen, in a day not kept yet.
    h.write(logs(at('2026-03-15T00:00:00Z'), at('2026-03-15T00:10:00Z'), 200));
    h.write(logs(at('2026-03-14T23:50:00Z'), at('2026-03-15T00:00:00Z'), 50));
    h.setNow('2026-03-15T00:10:00Z');
    expect(await h.job.run()).toEqual(['2026-03-14', '2026-03-15']);
    expect(h.written.get('2026-03-14')).toEqual(wholeDay(h.logs, '2026-03-14'));
    expect(h.written.get('2026-03-15')).toEqual(wholeDay(h.logs, '2026-03-15'));
    h.write(logs(at('2026-03-15T00:10:00Z'), at('2026-03-15T01:30:00Z'), 100));
    h.setNow('2026-03-15T01:30:00Z');
    expect(await h.job.run()).toEqual(['2026-03-15']);
    expect(h.written.get('2026-03-15')).toEqual(wholeDay(h.logs, '2026-03-15'));
  });

  it('splits a day into closed hours and the open rest', () => {
    const before = daySlices('2026-03-14', at('2026-03-13T12:00:00Z'));
    expect(before).toEqual({
      closed: [],
      open: { start: at('2026-03-14T00:00:00Z'), end: at('2026-03-15T00:00:00Z') },
    });
    const after = daySlices('2026-03-13', at('2026-03-14T01:00:00Z'));
    expect(after.closed).toHaveLength(24);
    expect(after.open).toBeUndefined();
    const within = daySlices('2026-03-13', at('2026-03-14T00:59:59Z'));
    expect(within.closed).toHaveLength(23);
    expect(within.open).toEqual({ start: at('2026-03-13T23:00:00Z'), end: at('2026-03-14T00:00:00Z') });
  });
});
