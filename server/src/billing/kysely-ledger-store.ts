import { TokenStatus } from '@switchyard/domain';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/create-db.js';
import type { Tables } from '../db/tables.js';
import type { ConsumeLog, LedgerStore, ReserveRefusal } from './ledger.js';
import { settlementAmounts, withShortfall } from './settlement.js';
import type { HeldQuota, SettledAmounts } from './sqlite-ledger-core.js';
import type { WriteBatcher } from './write-batcher.js';

class Refusal extends Error {
  constructor(readonly reason: ReserveRefusal) {
    super(reason);
  }
}

/**
 * The ledger's SQL through Kysely, for PostgreSQL and MySQL (and SQLite without a file). Reserves
 * run directly, in as few round trips as the engine allows; settlements and releases go through
 * the group-commit writer. Every balance change is a relative, conditional UPDATE, so no
 * interleaving of requests, nodes or engines takes a user or a token below zero (the fix of
 * reference §16 item 7).
 */
export class KyselyLedgerStore implements LedgerStore {
  constructor(
    private readonly database: Database,
    private readonly writer: WriteBatcher,
  ) {}

  /**
   * The user is locked before the token on every path, in the same order as settlement, so the
   * two never deadlock on PostgreSQL or MySQL. A reserve is on the path of every relay request and
   * its row locks are held until it commits, so round trips count twice: each one is paid by the
   * request and by every request waiting on the same user.
   */
  async reserve(held: HeldQuota): Promise<ReserveRefusal | null> {
    // One row, one statement: it commits by itself on every engine.
    if (held.tokenUnlimited) return (await this.takeFromUser(held)) ? null : 'insufficient_user_quota';
    if (this.database.dialect === 'postgres') return this.reserveByFunction(held);
    if (this.database.dialect === 'mysql' && (await this.takeFromBoth(held))) return null;
    // SQLite, and MySQL after a refusal: its one statement cannot say which balance was short, so
    // the reserve is tried again step by step, whose answer (a refusal or a grant) is the one given.
    return this.reserveInTransaction(held);
  }

  private async takeFromUser(held: HeldQuota): Promise<boolean> {
    const user = await this.database.db
      .updateTable('users')
      .set((eb) => ({ quota: eb('quota', '-', held.amount) }))
      .where('id', '=', held.userId)
      .where('quota', '>=', held.amount)
      .executeTakeFirst();
    return Number(user.numUpdatedRows) === 1;
  }

  /** One round trip: `reserve_quota` (migration 0002) does both updates, or neither. */
  private async reserveByFunction(held: HeldQuota): Promise<ReserveRefusal | null> {
    const result = await sql<{ refusal: string | null }>`
      select reserve_quota(${held.userId}, ${held.tokenId}, ${held.amount}) as refusal`.execute(
      this.database.db,
    );
    const refusal = result.rows[0]?.refusal ?? null;
    if (refusal === null || refusal === 'insufficient_user_quota' || refusal === 'insufficient_token_quota')
      return refusal;
    throw new Error(`reserve_quota answered ${refusal}`);
  }

  /**
   * MySQL/MariaDB in one statement: a multi-table UPDATE changes both rows or neither, and reads
   * them under lock, so the balance checked is the newest. Its rows are locked in the order the
   * tables are named (checked on MariaDB 10.11), hence users first. False when either was short.
   */
  private async takeFromBoth(held: HeldQuota): Promise<boolean> {
    const amount = held.amount;
    const result = await sql`
      update users, tokens
      set users.quota = users.quota - ${amount}, tokens.remain_quota = tokens.remain_quota - ${amount}
      where users.id = ${held.userId} and tokens.id = ${held.tokenId}
        and users.quota >= ${amount} and tokens.remain_quota >= ${amount}`.execute(this.database.db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  private async reserveInTransaction(held: HeldQuota): Promise<ReserveRefusal | null> {
    const amount = held.amount;
    try {
      await this.database.db.transaction().execute(async (trx) => {
        const user = await trx
          .updateTable('users')
          .set((eb) => ({ quota: eb('quota', '-', amount) }))
          .where('id', '=', held.userId)
          .where('quota', '>=', amount)
          .executeTakeFirst();
        if (Number(user.numUpdatedRows) !== 1) throw new Refusal('insufficient_user_quota');
        const token = await trx
          .updateTable('tokens')
          .set((eb) => ({ remain_quota: eb('remain_quota', '-', amount) }))
          .where('id', '=', held.tokenId)
          .where('remain_quota', '>=', amount)
          .executeTakeFirst();
        // Throwing rolls the user's deduction back with it.
        if (Number(token.numUpdatedRows) !== 1) throw new Refusal('insufficient_token_quota');
      });
    } catch (err) {
      if (err instanceof Refusal) return err.reason;
      throw err;
    }
    return null;
  }

  settle(held: HeldQuota, finalQuota: number, log: ConsumeLog, recordLog: boolean): Promise<SettledAmounts> {
    return this.run((trx) => this.settleIn(trx, held, finalQuota, log, recordLog));
  }

  async release(held: HeldQuota): Promise<void> {
    await this.run(async (trx) => {
      await this.move(trx, held, held.amount, 0, false);
      return { charged: 0, refunded: held.amount, shortfall: 0 };
    });
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }

  close(): Promise<void> {
    return this.writer.close();
  }

  /** Submits `work` to the writer; its value is the one computed by the run that committed. */
  private async run(work: (trx: Transaction<Tables>) => Promise<SettledAmounts>): Promise<SettledAmounts> {
    let value: SettledAmounts | undefined;
    await this.writer.submit(async (trx) => {
      value = await work(trx);
    });
    if (!value) throw new Error('The settlement job committed without a result');
    return value;
  }

  private async settleIn(
    trx: Transaction<Tables>,
    held: HeldQuota,
    finalQuota: number,
    log: ConsumeLog,
    recordLog: boolean,
  ): Promise<SettledAmounts> {
    const room = finalQuota > held.amount ? await this.room(trx, held) : 0;
    const amounts = settlementAmounts(held.amount, finalQuota, () => room);
    await this.move(trx, held, amounts.change, amounts.charged, true);
    if (amounts.charged > 0 && log.channel_id !== undefined && log.channel_id > 0) {
      await trx
        .updateTable('channels')
        .set((eb) => ({ used_quota: eb('used_quota', '+', amounts.charged) }))
        .where('id', '=', log.channel_id)
        .execute();
    }
    if (recordLog) {
      await trx
        .insertInto('logs')
        .values({ ...log, quota: amounts.charged, metadata: withShortfall(log.metadata, amounts.shortfall) })
        .execute();
    }
    return { charged: amounts.charged, refunded: amounts.refunded, shortfall: amounts.shortfall };
  }

  /**
   * How much more than the reserve can be taken. The rows are locked until commit (FOR UPDATE) so
   * the amount read is the amount taken; SQLite needs no lock clause, its single connection is held
   * by this transaction.
   */
  private async room(trx: Transaction<Tables>, held: HeldQuota): Promise<number> {
    const lock = this.database.dialect !== 'sqlite';
    let userQuery = trx.selectFrom('users').select('quota').where('id', '=', held.userId);
    if (lock) userQuery = userQuery.forUpdate();
    const user = await userQuery.executeTakeFirst();
    let room = Math.max(0, user ? Number(user.quota) : 0);
    if (!held.tokenUnlimited) {
      let tokenQuery = trx.selectFrom('tokens').select('remain_quota').where('id', '=', held.tokenId);
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
  private async move(
    trx: Transaction<Tables>,
    held: HeldQuota,
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
      .where('id', '=', held.userId)
      .execute();
    const limited = !held.tokenUnlimited;
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
      .where('id', '=', held.tokenId)
      .execute();
  }
}
