import { TokenStatus } from '@switchyard/domain';
import { type Insertable, sql, type Transaction } from 'kysely';
import type { Database } from '../db/create-db.js';
import type { LogsTable, Tables } from '../db/tables.js';
import type { ConsumeLog, LedgerStore, ReserveRefusal } from './ledger.js';
import { settlementAmounts, withShortfall } from './settlement.js';
import { type LockedBalances, needsRoom, type PlannedSettle, planSettlements } from './settlement-plan.js';
import { SettlementQueue } from './settlement-queue.js';
import type { HeldQuota, SettledAmounts } from './sqlite-ledger-core.js';
import type { WriteBatcher } from './write-batcher.js';

/** A settlement (`settle` set) or a release waiting for its group. */
interface QueuedSettle {
  held: HeldQuota;
  settle: { finalQuota: number; log: ConsumeLog; recordLog: boolean } | undefined;
}

// 500 rows x 19 columns stay far below the 65 535 parameters PostgreSQL and MySQL allow a statement
// and SQLite's 32 766.
const LOG_ROWS_PER_INSERT = 500;

/**
 * A settlement's log row. `quota` comes before the spread: V8 adds a key that follows a spread in
 * a literal through a slow runtime call (an override of a key the spread brought is fast).
 */
function logRow(log: ConsumeLog, charged: number, shortfall: number): Insertable<LogsTable> {
  return { quota: charged, ...log, metadata: withShortfall(log.metadata, shortfall) };
}

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
  private readonly queue: SettlementQueue<QueuedSettle, SettledAmounts>;

  constructor(
    private readonly database: Database,
    writer: WriteBatcher,
  ) {
    this.queue = new SettlementQueue(writer, {
      runGroup: (trx, items) => this.settleGroup(trx, items),
      runOne: (trx, item) => this.runOne(trx, item),
    });
  }

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
    return this.queue.add({ held, settle: { finalQuota, log, recordLog } });
  }

  async release(held: HeldQuota): Promise<void> {
    await this.queue.add({ held, settle: undefined });
  }

  flush(): Promise<void> {
    return this.queue.flush();
  }

  close(): Promise<void> {
    return this.queue.close();
  }

  /**
   * A whole group of settlements and releases in a fixed number of statements: the balances are
   * read under lock only when one of them exceeds its reserve, then one UPDATE per user, token and
   * channel touched (users, then tokens, then channels, each by id: the order every node locks in,
   * so two nodes never deadlock on them), and the log rows in multi-row INSERTs.
   */
  private async settleGroup(
    trx: Transaction<Tables>,
    items: readonly QueuedSettle[],
  ): Promise<SettledAmounts[]> {
    const planned = items.map(
      (item): PlannedSettle => ({
        held: item.held,
        finalQuota: item.settle?.finalQuota,
        channelId: item.settle?.log.channel_id ?? 0,
      }),
    );
    const balances = planned.some(needsRoom) ? await this.lockBalances(trx, items) : undefined;
    const plan = planSettlements(planned, balances);
    for (const user of plan.users) {
      await trx
        .updateTable('users')
        .set((eb) => ({
          quota: eb('quota', '+', user.quota),
          used_quota: eb('used_quota', '+', user.used),
          request_count: eb('request_count', '+', user.requests),
        }))
        .where('id', '=', user.id)
        .execute();
    }
    for (const token of plan.tokens) {
      await trx
        .updateTable('tokens')
        .set((eb) => ({
          ...(token.exhausted
            ? {
                status: eb
                  .case()
                  .when('status', '=', TokenStatus.Enabled)
                  .then(TokenStatus.Exhausted)
                  .else(eb.ref('status'))
                  .end(),
              }
            : {}),
          remain_quota: eb('remain_quota', '+', token.remain),
          used_quota: eb('used_quota', '+', token.used),
        }))
        .where('id', '=', token.id)
        .execute();
    }
    for (const channel of plan.channels) {
      await trx
        .updateTable('channels')
        .set((eb) => ({ used_quota: eb('used_quota', '+', channel.used) }))
        .where('id', '=', channel.id)
        .execute();
    }
    const rows: Insertable<LogsTable>[] = [];
    items.forEach((item, i) => {
      const a = plan.amounts[i]!;
      if (item.settle?.recordLog) rows.push(logRow(item.settle.log, a.charged, a.shortfall));
    });
    for (let at = 0; at < rows.length; at += LOG_ROWS_PER_INSERT) {
      await trx
        .insertInto('logs')
        .values(rows.slice(at, at + LOG_ROWS_PER_INSERT))
        .execute();
    }
    return plan.amounts.map((a) => ({ charged: a.charged, refunded: a.refunded, shortfall: a.shortfall }));
  }

  /**
   * The balances of every user and token of the group, locked until commit (FOR UPDATE) in the
   * order of the updates that follow, so the room an overrun is given is the room it takes. SQLite
   * needs no lock clause: its single connection is held by this transaction.
   */
  private async lockBalances(
    trx: Transaction<Tables>,
    items: readonly QueuedSettle[],
  ): Promise<LockedBalances> {
    const lock = this.database.dialect !== 'sqlite';
    const userIds = [...new Set(items.map((i) => i.held.userId))].sort((a, b) => a - b);
    const tokenIds = [...new Set(items.map((i) => i.held.tokenId))].sort((a, b) => a - b);
    let userQuery = trx.selectFrom('users').select(['id', 'quota']).where('id', 'in', userIds).orderBy('id');
    if (lock) userQuery = userQuery.forUpdate();
    const users = new Map((await userQuery.execute()).map((u) => [Number(u.id), Number(u.quota)]));
    let tokenQuery = trx
      .selectFrom('tokens')
      .select(['id', 'remain_quota', 'status'])
      .where('id', 'in', tokenIds)
      .orderBy('id');
    if (lock) tokenQuery = tokenQuery.forUpdate();
    const tokens = new Map(
      (await tokenQuery.execute()).map((t) => [
        Number(t.id),
        { remain: Number(t.remain_quota), enabled: Number(t.status) === TokenStatus.Enabled },
      ]),
    );
    return { users, tokens };
  }

  /** One settlement or release alone: the path a group's items take when the group failed. */
  private runOne(trx: Transaction<Tables>, item: QueuedSettle): Promise<SettledAmounts> {
    if (item.settle)
      return this.settleIn(trx, item.held, item.settle.finalQuota, item.settle.log, item.settle.recordLog);
    return this.move(trx, item.held, item.held.amount, 0, false).then(() => ({
      charged: 0,
      refunded: item.held.amount,
      shortfall: 0,
    }));
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
        .values(logRow(log, amounts.charged, amounts.shortfall))
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
