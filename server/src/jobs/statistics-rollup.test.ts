import { describe, expect, it } from 'vitest';
import type { RollupGroup } from '../db/queries/statistics.js';
import { daySlices, StatisticsRollup } from './statistics-rollup.js';

const at = (iso: string) => Date.parse(iso) / 1000;

/** A consume log as the fake aggregate sees it. */
interface FakeLog {
  created_at: number;
  user_id: number;
  channel_id: number;
  model_name: string;
  quota: number;
}

/** The fake database's GROUP BY, written independently of the job's own summing. */
function aggregate(logs: readonly FakeLog[], start: number, end: number): RollupGroup[] {
  const groups = new Map<string, RollupGroup>();
  for (const l of logs) {
    if (l.created_at < start || l.created_at >= end) continue;
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

function harness(start: string) {
  let now = at(start);
  const rolled: string[] = [];
  const written = new Map<string, RollupGroup[]>();
  const reads: [number, number][] = [];
  const logs: FakeLog[] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const job = new StatisticsRollup(
    {
      async aggregateLogs(from: number, to: number) {
        reads.push([from, to]);
        return aggregate(logs, from, to);
      },
      async writeDay(day: string, groups: readonly RollupGroup[]) {
        if (hold) await new Promise<void>((r) => (release = r));
        rolled.push(day);
        written.set(day, [...groups]);
      },
    },
    { nowSeconds: () => now },
  );
  return {
    job,
    rolled,
    written,
    reads,
    logs,
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
    const base = at('2026-03-13T00:00:00Z');
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor((seed / 2_147_483_648) * n);
    };
    const addLogs = (from: number, to: number, count: number) => {
      for (let i = 0; i < count; i++) {
        h.logs.push({
          created_at: from + next(to - from),
          user_id: 1 + next(3),
          channel_id: next(3),
          model_name: ['a', 'b', 'c'][next(3)]!,
          quota: next(1000),
        });
      }
    };
    const wholeDay = (date: string) => {
      const start = at(`${date}T00:00:00Z`);
      return aggregate(h.logs, start, start + 86_400);
    };
    addLogs(base, at('2026-03-14T09:30:00Z'), 3000);
    await h.job.run();
    expect(h.written.get('2026-03-13')).toEqual(wholeDay('2026-03-13'));
    expect(h.written.get('2026-03-14')).toEqual(wholeDay('2026-03-14'));
    // Logs keep arriving in the open part (late ones within the grace included).
    addLogs(at('2026-03-14T08:31:00Z'), at('2026-03-14T11:00:00Z'), 500);
    h.setNow('2026-03-14T11:00:00Z');
    await h.job.run();
    expect(h.written.get('2026-03-14')).toEqual(wholeDay('2026-03-14'));
    expect(h.written.get('2026-03-14')!.length).toBeGreaterThan(20);
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
