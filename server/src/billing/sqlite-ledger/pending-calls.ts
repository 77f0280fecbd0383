/** A call waiting for an answer, under the id it was sent with. */
export interface PendingCall {
  readonly id: number;
}

const INITIAL_SLOTS = 256;

/**
 * Calls waiting for their answers, by id. Ids are handed out in increasing order and answered soon
 * after, so each call has the slot of a ring its id's low bits name, and the ring doubles when a
 * new id would land on a call still waiting. A Map reallocated its table as entries came and went:
 * referenced from a long-lived object, each new table outlived the young-generation collections,
 * was promoted, then dropped. At the benchmark soak's load that was the largest source of the
 * old-generation garbage that grows the heap until a full collection.
 */
export class PendingCalls<T extends PendingCall> {
  private slots: (T | undefined)[] = new Array(INITIAL_SLOTS).fill(undefined);
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(call: T): void {
    while (this.slots[this.slotOf(call.id)] !== undefined) this.grow();
    this.slots[this.slotOf(call.id)] = call;
    this.count++;
  }

  /** Removes and returns the call waiting under `id`; undefined when none is. */
  take(id: number): T | undefined {
    const i = this.slotOf(id);
    const call = this.slots[i];
    if (call === undefined || call.id !== id) return undefined;
    this.slots[i] = undefined;
    this.count--;
    return call;
  }

  /** Removes and returns every waiting call, oldest first. */
  takeAll(): T[] {
    const all = this.slots.filter((c): c is T => c !== undefined).sort((a, b) => a.id - b.id);
    this.slots.fill(undefined);
    this.count = 0;
    return all;
  }

  private slotOf(id: number): number {
    return id & (this.slots.length - 1);
  }

  /** Doubles the ring until every waiting call has a slot of its own (ids are distinct). */
  private grow(): void {
    const waiting = this.slots.filter((c): c is T => c !== undefined);
    for (let size = this.slots.length * 2; ; size *= 2) {
      const slots = placed(waiting, size);
      if (slots) {
        this.slots = slots;
        return;
      }
    }
  }
}

/** The calls in a ring of `size` slots, or undefined when two of them share a slot. */
function placed<T extends PendingCall>(calls: readonly T[], size: number): (T | undefined)[] | undefined {
  const slots: (T | undefined)[] = new Array(size).fill(undefined);
  for (const call of calls) {
    const i = call.id & (size - 1);
    if (slots[i] !== undefined) return undefined;
    slots[i] = call;
  }
  return slots;
}
