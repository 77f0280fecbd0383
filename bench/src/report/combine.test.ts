import { describe, expect, it } from 'vitest';
import { combineRounds, median, rotate } from './combine.js';
import type { LoadResult } from './results.js';

function run(rps: number, p50Ms: number, extra: Partial<LoadResult> = {}): LoadResult {
  return {
    connections: 64,
    durationS: 3,
    requests: rps * 3,
    rps,
    p50Ms,
    p99Ms: p50Ms * 4,
    maxMs: p50Ms * 10,
    non2xx: 0,
    errors: 0,
    ...extra,
  };
}

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones, ignoring NaN', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([5, Number.NaN])).toBe(5);
    expect(median([])).toBeNaN();
  });
});

describe('rotate', () => {
  it('starts the order at a different target each round', () => {
    expect(rotate(['d', 'b', 'g'], 0)).toEqual(['d', 'b', 'g']);
    expect(rotate(['d', 'b', 'g'], 1)).toEqual(['b', 'g', 'd']);
    expect(rotate(['d', 'b', 'g'], 5)).toEqual(['g', 'd', 'b']);
  });
});

describe('combineRounds', () => {
  it('keeps the median round, so one disturbed round does not move the result', () => {
    const c = combineRounds([run(5000, 10), run(2000, 40, { non2xx: 1 }), run(5200, 9)]);
    expect(c.rps).toBe(5000);
    expect(c.p50Ms).toBe(10);
    expect(c.p99Ms).toBe(40);
    expect(c.maxMs).toBe(400);
    expect(c.requests).toBe(36600);
    expect(c.non2xx).toBe(1);
    expect(c.durationS).toBe(9);
    expect(c.roundsRps).toEqual([5000, 2000, 5200]);
  });

  it('combines the proxy figures when the rounds have them, and takes the worst backlog', () => {
    const c = combineRounds([
      run(1, 1, {
        proxyCpuUsPerRequest: 100,
        proxyLoopDelay: { p50Ms: 1, p99Ms: 10, maxMs: 20 },
        backlogS: 0.1,
      }),
      run(1, 1, {
        proxyCpuUsPerRequest: 300,
        proxyLoopDelay: { p50Ms: 2, p99Ms: 30, maxMs: 90 },
        backlogS: 0.5,
      }),
      run(1, 1, {
        proxyCpuUsPerRequest: 200,
        proxyLoopDelay: { p50Ms: 3, p99Ms: 20, maxMs: 40 },
        backlogS: 0.2,
      }),
    ]);
    expect(c.proxyCpuUsPerRequest).toBe(200);
    expect(c.proxyLoopDelay).toEqual({ p50Ms: 2, p99Ms: 20, maxMs: 90 });
    expect(c.backlogS).toBe(0.5);
  });

  it('leaves proxy figures out for direct calls', () => {
    const c = combineRounds([run(10, 1), run(12, 1)]);
    expect(c).not.toHaveProperty('proxyCpuUsPerRequest');
    expect(c).not.toHaveProperty('proxyLoopDelay');
    expect(c).not.toHaveProperty('backlogS');
  });
});
