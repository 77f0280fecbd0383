import { TokenStatus } from '@switchyard/domain';
import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../db/create-db.js';
import type { LogsTable, Tables } from '../db/tables.js';
import type { WriteBatcher } from './write-batcher.js';

// Reserve, settle and release of quota (design §4 billing rules). Every balance change is a
// relative, conditional UPDATE, so no interleaving of requests, nodes or engines can take a user or
// a token below zero (the fix of reference §16 item 7).

export type ReserveRefusal = 'insufficient_user_quota' | 'insufficient_token_quota';

export interface ReserveRequest {
  userId: number;
  tokenId: number;
  /** An unlimited token's `remain_quota` is neither checked nor changed. */
  tokenUnlimited: boolean;
  /** Quota to hold back, from `reserveAmount` (quota-math.ts). */
  amount: number;
}

/** Held quota. Only the object `reserve` returned can be settled or released, once. */
export interface Reservation {
  readonly userId: number;
  readonly tokenId: number;
  readonly tokenUnlimited: boolean;
  readonly amount: number;
}

export type ReserveOutcome = { ok: true; reservation: Reservation } | { ok: false; reason: ReserveRefusal };

/**
 * The consume log row of a settlement, every column but `quota`: the ledger writes the amount it
 * actually charged, which is only known inside the settling transaction.
 */
export type ConsumeLog = Omit<Insertable<LogsTable>, 'id' | 'quota'>;

export interface SettleOptions {
  /** False when option `LogConsumeEnabled` is off: balances and counters change, no log row is written. */
  recordLog?: boolean;
}

export interface Settlement {
  outcome: 'settled' | 'released';
  reserved: number;
  /** What the call cost (`finalQuota` of settle; 0 for a release). */
  finalQuota: number;
  /** What was taken in the end: reserved + extra, or less after a refund. Equals the log's quota. */
  charged: number;
  /** Returned to the balance because the reserve exceeded the cost. */
  refunded: number;
  /** Cost the balance could not cover (recorded in the log detail as `shortfall`). */
  shortfall: number;
}

class Refusal extends Error {
  constructor(readonly reason: ReserveRefusal) {
    super(reason);
  }
}

function assertQuota(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer`);
}

/** Adds `shortfall` to the caller's metadata JSON (kept as `detail` if it is not a JSON object). */
function withShortfall(metadata: string, shortfall: number): string {
  if (shortfall <= 0) return metadata;
  let parsed: unknown;
  try {
    parsed = metadata.trim() === '' ? {} : JSON.parse(metadata);
  } catch {
    parsed = undefined;
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    return JSON.stringify({ ...parsed, shortfall });
  }
  return JSON.stringify({ detail: metadata, shortfall });
}

export class Ledger {
  private readonly issued = new WeakSet<Reservation>();
  /** The first settle or release of each reservation; later calls get the same answer. */
  private readonly outcomes = new WeakMap<Reservation, Promise<Settlement>>();

  constructor(
    private readonly database: Database,
    private readonly writer: WriteBatcher,
  ) {}

  /**
   * Holds `amount` from the user and (unless unlimited) the token, both or neither, in one direct
   * transaction: the answer is needed before the request goes upstream, so it does not wait for a
   * batch. The user is updated before the token, in the same order as settlement, so the two never
   * deadlock on PostgreSQL or MySQL.
   */
  async reserve(request: ReserveRequest): Promise<ReserveOutcome> {
    assertQuota('amount', request.amount);
    const reservation: Reservation = Object.freeze({
      userId: request.userId,
      tokenId: request.tokenId,
      tokenUnlimited: request.tokenUnlimited,
      amount: request.amount,
    });
    const amount = request.amount;
    if (amount > 0) {
      try {
        await this.database.db.transaction().execute(async (trx) => {
          const user = await trx
            .updateTable('users')
            .set((eb) => ({ quota: eb('quota', '-', amount) }))
            .where('id', '=', request.userId)
            .where('quota', '>=', amount)
            .executeTakeFirst();
          if (Number(user.numUpdatedRows) !== 1) throw new Refusal('insufficient_user_quota');
          if (request.tokenUnlimited) return;
          const token = await trx
            .updateTable('tokens')
            .set((eb) => ({ remain_quota: eb('remain_quota', '-', amount) }))
            .where('id', '=', request.tokenId)
            .where('remain_quota', '>=', amount)
            .executeTakeFirst();
          // Throwing rolls the user's deduction back with it.
          if (Number(token.numUpdatedRows) !== 1) throw new Refusal('insufficient_token_quota');
        });
      } catch (err) {
        if (err instanceof Refusal) return { ok: false, reason: err.reason };
        throw err;
      }
    }
    this.issued.add(reservation);
    return { ok: true, reservation };
  }

  /**
   * Charges the final cost and writes the consume log in the same transaction (through the
   * group-commit writer): delta = final - reserved is refunded when negative; when positive it is
   * taken as far as the user's and the limited token's balances go, and the rest is reported as
   * the shortfall, so no balance ever goes negative. Also adds the charge to the used_quota of the
   * user, token and channel (`log.channel_id`) and counts the request. Runs once per reservation:
   * a second settle or release returns the first one's result without touching the database.
   */
  settle(
    reservation: Reservation,
    finalQuota: number,
    log: ConsumeLog,
    options: SettleOptions = {},
  ): Promise<Settlement> {
    return this.once(reservation, () => {
      assertQuota('finalQuota', finalQuota);
      const recordLog = options.recordLog ?? true;
      return this.run((trx) => this.settleIn(trx, reservation, finalQuota, log, recordLog));
    });
  }

  /** Gives the whole reserve back (the upstream failed before the first byte): no charge, no log. */
  release(reservation: Reservation): Promise<Settlement> {
    return this.once(reservation, () => {
      const released: Settlement = {
        outcome: 'released',
        reserved: reservation.amount,
        finalQuota: 0,
        charged: 0,
        refunded: reservation.amount,
        shortfall: 0,
      };
      if (reservation.amount === 0) return Promise.resolve(released);
      return this.run(async (trx) => {
        await this.applyChange(trx, reservation, reservation.amount, 0, false);
        return released;
      });
    });
  }

  private once(reservation: Reservation, start: () => Promise<Settlement>): Promise<Settlement> {
    const previous = this.outcomes.get(reservation);
    if (previous) return previous;
    if (!this.issued.has(reservation)) {
      return Promise.reject(new Error('Not a reservation issued by this ledger'));
    }
    let result: Promise<Settlement>;
    try {
      result = start();
    } catch (err) {
      // Bad arguments: nothing happened, so the reservation may still be settled properly.
      return Promise.reject(err);
    }
    this.outcomes.set(reservation, result);
    return result;
  }

  /** Submits `work` to the writer; its value is the one computed by the run that committed. */
  private async run(work: (trx: Transaction<Tables>) => Promise<Settlement>): Promise<Settlement> {
    let value: Settlement | undefined;
    await this.writer.submit(async (trx) => {
      value = await work(trx);
    });
    if (!value) throw new Error('The settlement job committed without a result');
    return value;
  }

  private async settleIn(
    trx: Transaction<Tables>,
    reservation: Reservation,
    finalQuota: number,
    log: ConsumeLog,
    recordLog: boolean,
  ): Promise<Settlement> {
    const reserved = reservation.amount;
    const delta = finalQuota - reserved;
    let extra = 0;
    let shortfall = 0;
    if (delta > 0) {
      extra = Math.min(delta, await this.room(trx, reservation));
      shortfall = delta - extra;
    }
    const charged = delta > 0 ? reserved + extra : finalQuota;
    // Positive: money back to the balance; negative: the extra taken.
    const change = reserved - charged;
    await this.applyChange(trx, reservation, change, charged, true);
    if (charged > 0 && log.channel_id !== undefined && log.channel_id > 0) {
      await trx
        .updateTable('channels')
        .set((eb) => ({ used_quota: eb('used_quota', '+', charged) }))
        .where('id', '=', log.channel_id)
        .execute();
    }
    if (recordLog) {
      await trx
        .insertInto('logs')
        .values({ ...log, quota: charged, metadata: withShortfall(log.metadata, shortfall) })
        .execute();
    }
    return {
      outcome: 'settled',
      reserved,
      finalQuota,
      charged,
      refunded: Math.max(change, 0),
      shortfall,
    };
  }

  /**
   * How much more than the reserve can be taken: what is left on the user and, for a limited token,
   * on the token. The rows are locked until commit (FOR UPDATE) so the amount read is the amount
   * taken; SQLite needs no lock clause, its single connection is held by this transaction.
   */
  private async room(trx: Transaction<Tables>, reservation: Reservation): Promise<number> {
    const lock = this.database.dialect !== 'sqlite';
    let userQuery = trx.selectFrom('users').select('quota').where('id', '=', reservation.userId);
    if (lock) userQuery = userQuery.forUpdate();
    const user = await userQuery.executeTakeFirst();
    let room = Math.max(0, user ? Number(user.quota) : 0);
    if (!reservation.tokenUnlimited) {
      let tokenQuery = trx.selectFrom('tokens').select('remain_quota').where('id', '=', reservation.tokenId);
      if (lock) tokenQuery = tokenQuery.forUpdate();
      const token = await tokenQuery.executeTakeFirst();
      room = Math.min(room, Math.max(0, token ? Number(token.remain_quota) : 0));
    }
    return room;
  }

  /**
   * Applies `change` (positive = give back) to the user and the limited token, and, when settling,
   * adds `charged` to their used_quota and counts the request. A limited token that ends at zero
   * because of an extra charge becomes exhausted.
   */
  private async applyChange(
    trx: Transaction<Tables>,
    reservation: Reservation,
    change: number,
    charged: number,
    settling: boolean,
  ): Promise<void> {
    await trx
      .updateTable('users')
      .set((eb) =>
        settling
          ? {
              quota: eb('quota', '+', change),
              used_quota: eb('used_quota', '+', charged),
              request_count: eb('request_count', '+', 1),
            }
          : { quota: eb('quota', '+', change) },
      )
      .where('id', '=', reservation.userId)
      .execute();
    const limited = !reservation.tokenUnlimited;
    const moveBalance = limited && change !== 0;
    const addUsed = settling && charged > 0;
    if (!moveBalance && !addUsed) return;
    await trx
      .updateTable('tokens')
      .set((eb) => ({
        // `status` is assigned before `remain_quota`: MySQL evaluates SET left to right with the new
        // values, PostgreSQL and SQLite with the old ones; in this order all three read the old balance.
        ...(moveBalance && change < 0
          ? {
              status: eb
                .case()
                .when(
                  eb.and([
                    eb('status', '=', TokenStatus.Enabled),
                    eb(eb('remain_quota', '+', change), '<=', 0),
                  ]),
                )
                .then(TokenStatus.Exhausted)
                .else(eb.ref('status'))
                .end(),
            }
          : {}),
        ...(moveBalance ? { remain_quota: eb('remain_quota', '+', change) } : {}),
        ...(addUsed ? { used_quota: eb('used_quota', '+', charged) } : {}),
      }))
      .where('id', '=', reservation.tokenId)
      .execute();
  }
}
