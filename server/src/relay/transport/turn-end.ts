// Writes to sockets, held until every callback of the current turn of the event loop has run, then
// made back to back. A write to a loopback or LAN peer that sleeps wakes it, and on a virtual
// machine whose other vCPU sleeps too that wake-up (an interrupt to the other vCPU) is among the
// dearest things a call costs the main thread. Made together, the writes of one turn wake each peer
// once: its other sockets are ready when it looks, which saves much of the main thread's system
// time per call. At one connection a turn holds one call.

/**
 * Jobs run at the end of the current turn of the event loop: first those deferred with `deferFirst`,
 * then `beforeWrites`, then the others, each lane in the order its jobs were deferred.
 */
export class TurnEnd {
  private first: (() => void)[] = [];
  private jobs: (() => void)[] = [];
  private scheduled = false;

  /**
   * `onError` hears of a job that threw: a held write or settlement that did not happen.
   * `beforeWrites` runs between the lanes: the settlement journal's write, so a settlement deferred
   * first is on file before the client's last bytes leave.
   */
  constructor(
    private readonly onError: (err: unknown) => void,
    private readonly beforeWrites: () => void = () => {},
  ) {}

  /** Runs `job` once this turn's callbacks have run (one `setImmediate` for all of the turn's jobs). */
  defer(job: () => void): void {
    this.jobs.push(job);
    this.schedule();
  }

  /** Like `defer`, but ahead of every job deferred with `defer`, and of `beforeWrites`. */
  deferFirst(job: () => void): void {
    this.first.push(job);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const first = this.first;
    const jobs = this.jobs;
    this.first = [];
    this.jobs = [];
    this.runAll(first);
    try {
      this.beforeWrites();
    } catch (err) {
      this.onError(err);
    }
    this.runAll(jobs);
  };

  private runAll(jobs: (() => void)[]): void {
    for (const job of jobs) {
      // One job's failure must not keep the others' replies or settlements from happening.
      try {
        job();
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
