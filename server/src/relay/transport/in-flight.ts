/**
 * Work started and not finished (the settlements that follow the replies), counted, with a way to
 * wait until none is left. A Set of the promises did the same, but its table was reallocated as
 * they came and went, and each new table outlived the young-generation collections, was promoted,
 * then dropped: old-generation garbage on every request.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];
  /** One function for every tracked promise, so tracking allocates no closure. */
  private readonly finished = (): void => {
    this.count--;
    if (this.count === 0 && this.waiters.length > 0) for (const wake of this.waiters.splice(0)) wake();
  };

  get size(): number {
    return this.count;
  }

  /** Counts `work` until it settles, fulfilled or rejected. */
  track(work: Promise<unknown>): void {
    this.count++;
    work.then(this.finished, this.finished);
  }

  /** Resolves once nothing tracked is left unsettled (at once when nothing is). */
  idle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((wake) => this.waiters.push(wake));
  }
}
