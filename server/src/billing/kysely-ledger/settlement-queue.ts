import type { Transaction } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { type WriteBatcher, WriteBatcherClosedError } from './write-batcher.js';

/** How a group of items is written: together (the common case), or one alone after a failure. */
export interface GroupHandlers<I, R> {
  /**
   * Writes all `items` in `trx` and answers one result per item, in order. Same rules as a WriteJob.
   * `again`: the group ran before, and that run may have committed (its COMMIT's answer was lost).
   */
  runGroup(trx: Transaction<Tables>, items: readonly I[], again: boolean): Promise<R[]>;
  /** Writes one item in `trx`, after its group failed: that group's run may have committed. */
  runOne(trx: Transaction<Tables>, item: I): Promise<R>;
}

export interface SettlementQueueOptions {
  /** Items per group; a full group is closed and the next item opens another. Default 500. */
  maxGroup?: number;
}

interface Member<I, R> {
  item: I;
  resolve: (value: R) => void;
  reject: (err: unknown) => void;
}

interface Group<I, R> {
  members: Member<I, R>[];
  /** False once the writer started it (or refused it): its item list is then fixed. */
  open: boolean;
}

/**
 * Gathers the items that arrive while one group waits for the writer into that group, which the
 * writer runs as one job: the batch's statements are then per group (per row touched), not per item.
 *
 * The writer treats a group like any job: it may run it again (its results come from the run that
 * committed) and, when the group fails for good, rejects it. Nothing of a rejected group was
 * committed, so each of its items is then submitted as a job of its own, and the writer isolates the
 * bad one as it does for any job: one item that cannot be written never costs its neighbours.
 */
export class SettlementQueue<I, R> {
  private readonly maxGroup: number;
  private current: Group<I, R> | undefined;
  /** One promise per item not yet answered; each settles (never rejects) with its item's answer. */
  private readonly outstanding = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly writer: WriteBatcher,
    private readonly handlers: GroupHandlers<I, R>,
    options: SettlementQueueOptions = {},
  ) {
    this.maxGroup = options.maxGroup ?? 500;
    if (!Number.isInteger(this.maxGroup) || this.maxGroup < 1) throw new RangeError('maxGroup must be >= 1');
  }

  /** Resolves with the item's result once it is committed; rejects if it could not be written. */
  add(item: I): Promise<R> {
    if (this.closed) return Promise.reject(new WriteBatcherClosedError());
    let group = this.current;
    if (!group?.open || group.members.length >= this.maxGroup) group = this.open();
    const result = new Promise<R>((resolve, reject) => {
      group.members.push({ item, resolve, reject });
    });
    const done = result.then(
      () => {},
      () => {},
    );
    this.outstanding.add(done);
    void done.then(() => this.outstanding.delete(done));
    return result;
  }

  /** Resolves when every item added before the call is answered, including any run again alone. */
  async flush(): Promise<void> {
    const snapshot = [...this.outstanding];
    await this.writer.flush();
    await Promise.all(snapshot);
  }

  /** Refuses new items, answers all added ones, then closes the writer. */
  async close(): Promise<void> {
    this.closed = true;
    // The writer stays open until then: a failed group's items still need it to run alone.
    await this.flush();
    await this.writer.close();
  }

  private open(): Group<I, R> {
    const group: Group<I, R> = { members: [], open: true };
    this.current = group;
    let results: R[] | undefined;
    let runs = 0;
    this.writer
      .submit(async (trx) => {
        group.open = false;
        const items = group.members.map((m) => m.item);
        const answer = await this.handlers.runGroup(trx, items, runs++ > 0);
        if (answer.length !== items.length) throw new Error('A group answered a different number of results');
        results = answer;
      })
      .then(
        () => {
          group.open = false;
          group.members.forEach((m, i) => {
            m.resolve(results![i]!);
          });
        },
        () => {
          group.open = false;
          for (const m of group.members) this.runAlone(m);
        },
      );
    return group;
  }

  private runAlone(member: Member<I, R>): void {
    let result: { value: R } | undefined;
    this.writer
      .submit(async (trx) => {
        result = { value: await this.handlers.runOne(trx, member.item) };
      })
      .then(() => member.resolve(result!.value), member.reject);
  }
}
