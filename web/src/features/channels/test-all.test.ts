import { describe, expect, it } from 'vitest';
import { responseTimeColor, type TestProgress, testChannels } from './test-all';

describe('test all channels', () => {
  it('tests each channel once, a few at a time, and reports progress and failures', async () => {
    let running = 0;
    let peak = 0;
    const seen: number[] = [];
    const reports: TestProgress[] = [];
    const result = await testChannels(
      [1, 2, 3, 4, 5],
      async (id) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        seen.push(id);
        running -= 1;
        if (id === 4) throw new Error('network');
        return id !== 2;
      },
      (p) => reports.push(p),
      { concurrency: 2 },
    );
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    expect(result).toEqual({ done: 5, total: 5, failed: expect.arrayContaining([2, 4]) });
    expect(result.failed).toHaveLength(2);
    expect(reports[0]).toEqual({ done: 0, total: 5, failed: [] });
    expect(reports.map((r) => r.done)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('stops taking new channels once aborted', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    await testChannels(
      [1, 2, 3, 4],
      async (id) => {
        seen.push(id);
        controller.abort();
        return true;
      },
      () => {},
      { concurrency: 1, signal: controller.signal },
    );
    expect(seen).toEqual([1]);
  });

  it('colours response times by speed', () => {
    expect([0, 800, 2500, 4000, 9000].map(responseTimeColor)).toEqual([
      'default',
      'success',
      'primary',
      'warning',
      'error',
    ]);
  });
});
