import { describe, expect, it } from 'vitest';
import { StatisticsRollup } from './statistics-rollup.js';

const at = (iso: string) => Date.parse(iso) / 1000;

function harness(start: string) {
  let now = at(start);
  const rolled: string[] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const job = new StatisticsRollup(
    {
      async rollupDay(day: string) {
        if (hold) await new Promise<void>((r) => (release = r));
        rolled.push(day);
        return 0;
      },
    },
    { nowSeconds: () => now },
  );
  return {
    job,
    rolled,
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
});
