import { sql, type Transaction } from 'kysely';
import type { Database } from '../../db/create-db.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Tables } from '../../db/tables.js';
import { applyPlan } from '../kysely-ledger/group-statements.js';
import { isTransient } from '../kysely-ledger/write-batcher.js';
import type { ReserveRequest } from '../ledger/ledger.js';
import { givenBack, planSettlements } from '../ledger/settlement-plan.js';

// A node's local budgets: slices of users' and tokens' balances moved into `quota_leases` rows
// (migration 0011) so a call reserves in memory, with no database round trip on its path.
// ARCHITECTURE.md "Quota leases" tells the whole design; the rules kept here:
// - a slice is taken only while the balances keep at least one more slice (a smaller balance is
//   reserved directly, so the last of a balance is never stranded in one node's lease);
// - the local budget never promises more than its row holds, so spend never exceeds a balance;
// - a lease is used only while this node renewed it recently: after its expiry any node may give
//   it back, so the node stops spending from it well before.

export interface LeaseOptions {
  /** Quota moved into a lease at a time. 0 turns leasing off (every reserve goes to the database). */
  slice: number;
  /** Seconds of idleness after which a lease with nothing outstanding is given back. */
  idleSeconds: number;
}

/** One lease as this node keeps it in memory. */
export interface Budget {
  readonly id: string;
  readonly userId: number;
  readonly tokenId: number;
  readonly limited: boolean;
  /** What can still be reserved locally; never more than the row's amount minus what is outstanding. */
  available: number;
  /** Reservations taken from it and not yet settled or released. */
  outstanding: number;
  /** False once given back (or found given back): nothing more is taken from it. */
  live: boolean;
  /** A take or refill is on its way. */
  growing: boolean;
  /** No slice is asked for before this second (the balances were too small). */
  quietUntil: number;
  /** A take of this budget committed, so its row exists. */
  stored: boolean;
  lastUsed: number;
}

export type TakeOutcome = 'taken' | 'refused' | 'returned';

/** How often a refused slice may be asked for again, in seconds. */
const REFUSED_QUIET_SECONDS = 5;
/** Tries of a slice the engine ended as a deadlock or a lock wait timeout. */
const TAKE_ATTEMPTS = 3;

class TakeRefusal extends Error {
  constructor(readonly outcome: TakeOutcome) {
    super(outcome);
  }
}

export class QuotaLeases {
  private readonly budgets = new Map<string, Budget>();
  private generation = 0;
  /** Leases are used only up to this second: half a lease after the last renewal that succeeded. */
  private usableUntil = 0;
  private stopped = false;
  /** Slices on their way, so a stop waits for them before giving everything back. */
  private readonly growing = new Set<Promise<void>>();
  /** Rows of retired budgets, given back at the next upkeep. */
  private readonly retired: string[] = [];

  constructor(
    private readonly database: Database,
    private readonly nodeId: string,
    private readonly bootId: string,
    private readonly options: LeaseOptions,
    private readonly leaseSeconds: number,
    private readonly nowSeconds: () => number,
    private readonly onError: (message: string) => void,
  ) {}

  get enabled(): boolean {
    return this.options.slice > 0 && !this.stopped;
  }

  /** After a renewal of this node's rows committed: leases stay usable for half a lease more. */
  renewed(at: number): void {
    this.usableUntil = at + this.leaseSeconds / 2;
  }

  /**
   * Takes `request.amount` from the local budget of its user and token, or answers undefined (the
   * caller reserves in the database). Starts a slice in the background when the budget is missing
   * or runs low. Synchronous: no I/O on a call's path.
   */
  take(request: ReserveRequest): Budget | undefined {
    const slice = this.options.slice;
    if (!this.enabled || request.amount > slice / 4) return undefined;
    const now = this.nowSeconds();
    const key = `${request.userId}.${request.tokenId}`;
    let budget = this.budgets.get(key);
    if (budget && (!budget.live || budget.limited === request.tokenUnlimited)) {
      // Given back, or the token changed between limited and unlimited: a fresh lease replaces it.
      if (budget.live) this.retire(budget);
      budget = undefined;
    }
    if (!budget) {
      budget = {
        id: `${this.bootId}.${request.userId}.${request.tokenId}.${(++this.generation).toString(36)}`,
        userId: request.userId,
        tokenId: request.tokenId,
        limited: !request.tokenUnlimited,
        available: 0,
        outstanding: 0,
        live: true,
        growing: false,
        quietUntil: 0,
        stored: false,
        lastUsed: now,
      };
      this.budgets.set(key, budget);
    }
    budget.lastUsed = now;
    const usable = now < this.usableUntil;
    let taken = false;
    if (usable && budget.available >= request.amount) {
      budget.available -= request.amount;
      budget.outstanding++;
      taken = true;
    }
    if (usable && budget.available < slice / 2 && !budget.growing && now >= budget.quietUntil)
      this.grow(budget);
    return taken ? budget : undefined;
  }

  /** What a settlement or a release hands back to the budget it was taken from. */
  giveBack(budget: Budget, amount: number, settledOne: boolean): void {
    if (settledOne) budget.outstanding--;
    if (budget.live) budget.available += amount;
  }

  /** Takes from the budget up to `wanted` more for an overrun; answers what it took. */
  takeMore(budget: Budget, wanted: number): number {
    if (!budget.live || this.nowSeconds() >= this.usableUntil) return 0;
    const more = Math.min(wanted, budget.available);
    budget.available -= more;
    return more;
  }

  /** A slice for `budget` in the background; waits for nothing on a call's path. */
  private grow(budget: Budget): void {
    budget.growing = true;
    const done = this.takeSlice(budget)
      .then((outcome) => {
        if (outcome === 'taken') {
          if (budget.live) budget.available += this.options.slice;
        } else if (outcome === 'refused') {
          budget.quietUntil = this.nowSeconds() + REFUSED_QUIET_SECONDS;
        } else this.retire(budget);
      })
      .catch((err: unknown) => {
        budget.quietUntil = this.nowSeconds() + REFUSED_QUIET_SECONDS;
        this.onError(`taking a quota lease failed: ${String(err)}`);
      })
      .finally(() => {
        budget.growing = false;
        this.growing.delete(done);
      });
    this.growing.add(done);
  }

  /**
   * Moves one slice from the user's (and a limited token's) balance into the lease row, creating or
   * growing it; nothing when a balance would keep less than another slice or the row was given back.
   */
  async takeSlice(budget: Budget): Promise<TakeOutcome> {
    const slice = this.options.slice;
    const expires = this.nowSeconds() + this.leaseSeconds;
    for (let attempt = 1; ; attempt++) {
      try {
        if (this.database.dialect === 'postgres') {
          const result = await sql<{ refusal: string | null }>`
            select take_lease(${budget.id}, ${this.nodeId}, ${expires}, ${budget.userId}, ${budget.tokenId},
              ${budget.limited}, ${slice}, ${slice}) as refusal`.execute(this.database.db);
          const refusal = result.rows[0]?.refusal ?? null;
          if (refusal === null) return 'taken';
          return refusal === 'lease_returned' ? 'returned' : 'refused';
        }
        await this.database.db.transaction().execute((trx) => this.takeInTransaction(trx, budget, expires));
        budget.stored = true;
        return 'taken';
      } catch (err) {
        if (err instanceof TakeRefusal) return err.outcome;
        // A first take whose COMMIT committed though its answer was lost: the row is there.
        if (!budget.stored && isUniqueViolation(err)) {
          budget.stored = true;
          continue;
        }
        if (attempt >= TAKE_ATTEMPTS || !isTransient(err)) throw err;
        await new Promise((r) => setTimeout(r, 5 * attempt));
      }
    }
  }

  /**
   * MySQL and SQLite: the lease row first, then the user, then the token, as settlements lock them.
   * A budget's first take inserts its row without looking for it (its id is new to this boot): on
   * InnoDB an UPDATE that finds no row locks the gap where it would be, and two nodes' first takes
   * then deadlock on each other's gap when they insert.
   */
  private async takeInTransaction(trx: Transaction<Tables>, budget: Budget, expires: number): Promise<void> {
    const slice = this.options.slice;
    if (budget.stored) {
      const grown = await trx
        .updateTable('quota_leases')
        .set((eb) => ({ amount: eb('amount', '+', slice), expires_at: expires }))
        .where('id', '=', budget.id)
        .where('returned', '=', 0)
        .executeTakeFirst();
      if (Number(grown.numUpdatedRows) === 0) throw new TakeRefusal('returned');
    } else {
      await trx
        .insertInto('quota_leases')
        .values({
          id: budget.id,
          node_id: this.nodeId,
          user_id: budget.userId,
          token_id: budget.tokenId,
          token_limited: budget.limited ? 1 : 0,
          amount: slice,
          expires_at: expires,
          returned: 0,
        })
        .execute();
    }
    const user = await trx
      .updateTable('users')
      .set((eb) => ({ quota: eb('quota', '-', slice) }))
      .where('id', '=', budget.userId)
      .where('quota', '>=', 2 * slice)
      .executeTakeFirst();
    if (Number(user.numUpdatedRows) !== 1) throw new TakeRefusal('refused');
    if (budget.limited) {
      const token = await trx
        .updateTable('tokens')
        .set((eb) => ({ remain_quota: eb('remain_quota', '-', slice) }))
        .where('id', '=', budget.tokenId)
        .where('remain_quota', '>=', 2 * slice)
        .executeTakeFirst();
      if (Number(token.numUpdatedRows) !== 1) throw new TakeRefusal('refused');
    }
  }

  /** Stops taking from a budget; its row goes back at the next upkeep (`retiredIds`). */
  private retire(budget: Budget): void {
    if (budget.live) this.retired.push(budget.id);
    budget.live = false;
    budget.available = 0;
    const key = `${budget.userId}.${budget.tokenId}`;
    if (this.budgets.get(key) === budget) this.budgets.delete(key);
  }

  /**
   * Retires the budgets idle for `idleSeconds` with nothing outstanding (their slices help nobody
   * here and may be wanted by another node), and answers the ids of every row retired since the
   * last call, for the upkeep to give back.
   */
  retiredIds(): string[] {
    const before = this.nowSeconds() - this.options.idleSeconds;
    for (const budget of [...this.budgets.values()])
      if (budget.outstanding === 0 && !budget.growing && budget.lastUsed <= before) this.retire(budget);
    return this.retired.splice(0);
  }

  /** Budgets whose rows another node gave back (this node went too long without renewing). */
  forget(returnedIds: ReadonlySet<string>): void {
    for (const budget of [...this.budgets.values()]) if (returnedIds.has(budget.id)) this.retire(budget);
  }

  liveIds(): string[] {
    return [...this.budgets.values()].map((b) => b.id);
  }

  /** Stops every budget and waits for slices on their way (a stop gives every row back after). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const budget of [...this.budgets.values()]) this.retire(budget);
    await Promise.all([...this.growing]);
  }

  /** Local levels, for tests and metrics: quota available in memory and reservations outstanding. */
  levels(): { leases: number; available: number; outstanding: number } {
    let available = 0;
    let outstanding = 0;
    for (const b of this.budgets.values()) {
      available += b.available;
      outstanding += b.outstanding;
    }
    return { leases: this.budgets.size, available, outstanding };
  }

  /**
   * Gives back, in `trx`, the lease rows chosen by `which` (this node's, expired ones of any node, or
   * the listed ids of this node): what each still holds goes back to the user and a limited token,
   * and the row is marked returned. Rows are locked first, as settlements lock them. Answers how
   * many rows were given back.
   */
  async giveBackRows(
    trx: Transaction<Tables>,
    which: { own: true } | { expiredBefore: number } | { ids: readonly string[] },
    limit: number,
  ): Promise<number> {
    let query = liveLeaseRows(trx).limit(limit);
    if ('own' in which) query = query.where('node_id', '=', this.nodeId);
    else if ('expiredBefore' in which) query = query.where('expires_at', '<', which.expiredBefore);
    else {
      if (which.ids.length === 0) return 0;
      query = query.where('node_id', '=', this.nodeId).where('id', 'in', [...which.ids]);
    }
    if (this.database.dialect !== 'sqlite') query = query.forUpdate();
    const rows = await query.execute();
    if (rows.length === 0) return 0;
    await returnLeaseRows(trx, this.database, rows);
    return rows.length;
  }
}

/** Live lease rows, what giving them back needs of each, in the order they are locked. */
function liveLeaseRows(trx: Transaction<Tables>) {
  return trx
    .selectFrom('quota_leases')
    .select(['id', 'user_id', 'token_id', 'token_limited', 'amount', 'used_quota', 'request_count'])
    .where('returned', '=', 0)
    .orderBy('id');
}

type LeaseRow = Awaited<ReturnType<ReturnType<typeof liveLeaseRows>['execute']>>[number];

/**
 * Gives back lease rows locked by the caller: what each still holds goes back to its user and, for a
 * limited token, to the token, and what its settlements counted joins the user's and token's
 * counters (one UPDATE per table, as settlements write them); the rows are marked returned. A node
 * that settles against a returned lease charges and counts on the balances instead.
 */
async function returnLeaseRows(
  trx: Transaction<Tables>,
  database: Pick<Database, 'dialect' | 'quoteLiteral'>,
  rows: readonly LeaseRow[],
): Promise<void> {
  if (rows.length === 0) return;
  await applyPlan(trx, database, planSettlements(rows.map(givenBack)));
  await trx
    .updateTable('quota_leases')
    .set({ returned: 1 })
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .execute();
}

/**
 * Gives back, in `trx`, every live lease of a user, or of one of the user's tokens (whatever node
 * took it), so that the column is the whole balance before a write that names it outright.
 */
export async function returnLeasesOf(
  trx: Transaction<Tables>,
  database: Pick<Database, 'dialect' | 'quoteLiteral'>,
  owner: { userId: number; tokenId?: number },
): Promise<void> {
  let query = liveLeaseRows(trx).where('user_id', '=', owner.userId);
  if (owner.tokenId !== undefined) query = query.where('token_id', '=', owner.tokenId);
  if (database.dialect !== 'sqlite') query = query.forUpdate();
  await returnLeaseRows(trx, database, await query.execute());
}
