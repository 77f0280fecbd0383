import { describe, expect, it } from 'vitest';
import { BalanceDeltas, type DeltaSink } from './balance-deltas.js';

function recording(): { writes: unknown[]; sink: DeltaSink } {
  const writes: unknown[] = [];
  return {
    writes,
    sink: {
      user: (id, d) => writes.push(['user', id, { ...d }]),
      token: (id, d) => writes.push(['token', id, { ...d }]),
      channel: (id, used) => writes.push(['channel', id, used]),
    },
  };
}

describe('BalanceDeltas', () => {
  it('sums the changes of each row and writes users, then tokens, then channels', () => {
    const deltas = new BalanceDeltas();
    deltas.addChannel(5, 100);
    deltas.addToken(10, 50, 100);
    deltas.addUser(1, 50, 100, 1);
    deltas.addUser(2, 0, 30, 1);
    deltas.addToken(10, -20, 40);
    deltas.addUser(1, 20, 0, 0);
    deltas.addChannel(5, 40);
    const { writes, sink } = recording();
    deltas.applyAll(sink);
    expect(writes).toEqual([
      ['user', 1, { change: 70, used: 100, requests: 1 }],
      ['user', 2, { change: 0, used: 30, requests: 1 }],
      ['token', 10, { change: 30, used: 140 }],
      ['channel', 5, 140],
    ]);
    const again = recording();
    deltas.applyAll(again.sink);
    expect(again.writes).toEqual([]);
  });

  it('applies one user and one token on demand and keeps the rest pending', () => {
    const deltas = new BalanceDeltas();
    deltas.addUser(1, 10, 0, 0);
    deltas.addUser(2, 20, 0, 0);
    deltas.addToken(10, 10, 0);
    deltas.addToken(20, 20, 0);
    const { writes, sink } = recording();
    deltas.applyFor(1, 20, sink);
    expect(writes).toEqual([
      ['user', 1, { change: 10, used: 0, requests: 0 }],
      ['token', 20, { change: 20, used: 0 }],
    ]);
    writes.length = 0;
    deltas.applyAll(sink);
    expect(writes).toEqual([
      ['user', 2, { change: 20, used: 0, requests: 0 }],
      ['token', 10, { change: 10, used: 0 }],
    ]);
  });

  it('forgets everything on clear', () => {
    const deltas = new BalanceDeltas();
    deltas.addUser(1, 10, 0, 0);
    deltas.addToken(10, 10, 0);
    deltas.addChannel(3, 10);
    deltas.clear();
    const { writes, sink } = recording();
    deltas.applyAll(sink);
    expect(writes).toEqual([]);
  });
});
