import { describe, expect, it } from 'vitest';
import { InFlight } from './in-flight.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('InFlight', () => {
  it('is idle at once with nothing tracked', async () => {
    const inFlight = new InFlight();
    expect(inFlight.size).toBe(0);
    await inFlight.idle();
  });

  it('counts work until it settles, fulfilled or rejected, and wakes every waiter at the end', async () => {
    const inFlight = new InFlight();
    const a = deferred();
    const b = deferred();
    inFlight.track(a.promise);
    inFlight.track(b.promise);
    b.promise.catch(() => {});
    expect(inFlight.size).toBe(2);
    const woken: string[] = [];
    const first = inFlight.idle().then(() => woken.push('first'));
    const second = inFlight.idle().then(() => woken.push('second'));
    a.resolve();
    await a.promise;
    await Promise.resolve();
    expect(inFlight.size).toBe(1);
    expect(woken).toEqual([]);
    b.reject(new Error('settlement failed'));
    await Promise.all([first, second]);
    expect(woken).toEqual(['first', 'second']);
    expect(inFlight.size).toBe(0);
  });
});
