import { describe, expect, it } from 'vitest';
import { PendingCalls } from './pending-calls.js';

const call = (id: number) => ({ id, label: `call ${id}` });

describe('PendingCalls', () => {
  it('gives back each call once, by its id, and nothing for an id not waiting', () => {
    const pending = new PendingCalls<ReturnType<typeof call>>();
    for (let id = 1; id <= 5; id++) pending.add(call(id));
    expect(pending.size).toBe(5);
    expect(pending.take(3)).toEqual(call(3));
    expect(pending.take(3)).toBeUndefined();
    // Same slot as 1 in any ring up to 2^10 slots, but a different id.
    expect(pending.take(1 + 1024)).toBeUndefined();
    expect(pending.size).toBe(4);
    expect(pending.takeAll().map((c) => c.id)).toEqual([1, 2, 4, 5]);
    expect(pending.size).toBe(0);
    expect(pending.take(1)).toBeUndefined();
  });

  it('keeps every call when ids far apart wait together, growing the ring as needed', () => {
    const pending = new PendingCalls<ReturnType<typeof call>>();
    // One old call stays unanswered while 10 000 later ones come and go around it.
    pending.add(call(7));
    for (let id = 8; id < 10_008; id++) {
      pending.add(call(id));
      if (id % 3 !== 0) expect(pending.take(id)?.id).toBe(id);
    }
    const left = [7, ...Array.from({ length: 10_000 }, (_, i) => i + 8).filter((id) => id % 3 === 0)];
    expect(pending.size).toBe(left.length);
    for (const id of left.slice(0, 100)) expect(pending.take(id)?.id).toBe(id);
    expect(pending.takeAll().map((c) => c.id)).toEqual(left.slice(100));
  });

  it('works with ids past 2^32, where only the low bits pick the slot', () => {
    const pending = new PendingCalls<ReturnType<typeof call>>();
    const base = 2 ** 33 + 250;
    for (let i = 0; i < 20; i++) pending.add(call(base + i));
    for (let i = 19; i >= 0; i--) expect(pending.take(base + i)?.id).toBe(base + i);
    expect(pending.size).toBe(0);
  });
});
