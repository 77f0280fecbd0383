import { describe, expect, it } from 'vitest';
import { CommittedBalanceCache } from './committed-balances.js';

function setup() {
  const db = { users: new Map([[1, 1000]]), tokens: new Map([[10, 500]]) };
  let reads = 0;
  let writes = 0;
  let now = 0;
  const cache = new CommittedBalanceCache(
    (userId, tokenId) => {
      reads++;
      return { user: db.users.get(userId), token: db.tokens.get(tokenId) };
    },
    { writes: () => writes, nowMs: () => now, ttlMs: 1000 },
  );
  return {
    db,
    cache,
    reads: () => reads,
    write: () => writes++,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('CommittedBalanceCache', () => {
  it('reads a pair once and answers from memory until its time to live has passed', () => {
    const t = setup();
    expect(t.cache.read(1, 10)).toEqual({ user: 1000, token: 500 });
    t.db.users.set(1, 1);
    t.advance(999);
    expect(t.cache.read(1, 10)).toEqual({ user: 1000, token: 500 });
    expect(t.reads()).toBe(1);
    // A write from outside the process is seen once the entry has lived its time.
    t.advance(1);
    expect(t.cache.read(1, 10)).toEqual({ user: 1, token: 500 });
    expect(t.reads()).toBe(2);
  });

  it('reads again after this process wrote through its other connection', () => {
    const t = setup();
    t.cache.read(1, 10);
    t.db.tokens.set(10, 20);
    t.write();
    expect(t.cache.read(1, 10)).toEqual({ user: 1000, token: 20 });
    expect(t.reads()).toBe(2);
  });

  it('keeps nothing for a row that does not exist', () => {
    const t = setup();
    expect(t.cache.read(2, 10)).toEqual({ user: undefined, token: 500 });
    t.db.users.set(2, 70);
    expect(t.cache.read(2, 10)).toEqual({ user: 70, token: 500 });
  });

  it("learns the thread's reports of its own generation, and not of one before a write", () => {
    const t = setup();
    t.cache.read(1, 10);
    const g = t.cache.generation;
    t.cache.learn(g, 'user', 1, 400);
    t.cache.learn(g, 'token', 10, 90);
    expect(t.cache.read(1, 10)).toEqual({ user: 400, token: 90 });
    expect(t.reads()).toBe(1);
    // Settlements written before a write of the other connection may have been committed before
    // it: what their batch reports is not believed, and the next reserve reads.
    t.write();
    t.cache.learn(g, 'user', 1, 300);
    expect(t.cache.read(1, 10)).toEqual({ user: 1000, token: 500 });
    expect(t.cache.generation).toBe(g + 1);
    // A report refreshes the time to live.
    t.cache.learn(g + 1, 'user', 1, 250);
    t.advance(600);
    t.cache.learn(g + 1, 'token', 10, 80);
    t.advance(600);
    // The user's entry has lived its time: both are read.
    expect(t.cache.read(1, 10)).toEqual({ user: 1000, token: 500 });
    expect(t.reads()).toBe(3);
  });
});
