import { type LogEvent, LogType, OrderStatus } from '@switchyard/domain';
import type { Insertable, Selectable } from 'kysely';
import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { OrdersTable } from '../tables.js';
import type { ListRequest } from './channels.js';
import { balanceLogRow } from './users.js';

export type OrderRow = Selectable<OrdersTable>;
export type NewOrder = Insertable<OrdersTable>;
export type OrdersQueries = ReturnType<typeof ordersQueries>;

export const ORDER_ORDERABLE = ['id', 'gateway_id', 'user_id', 'status', 'created_at'] as const;
export type OrderOrderColumn = (typeof ORDER_ORDERABLE)[number];

export interface OrderFilter {
  userId?: number;
  gatewayId?: number;
  tradeNo?: string;
  gatewayNo?: string;
  status?: string;
  from?: number;
  to?: number;
}

/** What a verified callback says was paid. */
export interface Payment {
  /** The gateway's own number for the payment. */
  gatewayNo: string;
  /** Paid, in cents (fen) of `currency`. */
  cents: number;
  currency: string;
}

/** Who is credited and how the top-up log names it. */
export interface CreditNote {
  gatewayName: string;
  username: string;
  ip: string;
}

export type Settled =
  | { outcome: 'credited'; order: OrderRow }
  | { outcome: 'already'; order: OrderRow }
  | { outcome: 'unknown' }
  | { outcome: 'mismatch'; order: OrderRow; expected: string; got: string }
  | { outcome: 'not_payable'; order: OrderRow };

/**
 * Statuses a paid callback settles. `closed` only means the payer looked gone (a stale order): when
 * the gateway took the money after all, it is credited rather than kept. `failed` orders never
 * reached the gateway.
 */
const PAYABLE = [OrderStatus.Pending, OrderStatus.Closed];

export const toCents = (v: number) => Math.round(v * 100);

export function ordersQueries({ db, dialect }: Database) {
  const filtered = (f: OrderFilter) => {
    let q = db.selectFrom('orders');
    if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
    if (f.gatewayId !== undefined) q = q.where('gateway_id', '=', f.gatewayId);
    if (f.tradeNo) q = q.where('trade_no', '=', f.tradeNo);
    if (f.gatewayNo) q = q.where('gateway_no', '=', f.gatewayNo);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.from !== undefined) q = q.where('created_at', '>=', f.from);
    if (f.to !== undefined) q = q.where('created_at', '<=', f.to);
    return q;
  };
  return {
    async list(f: OrderFilter, page: ListRequest<OrderOrderColumn>) {
      let q = filtered(f).selectAll();
      for (const o of page.order) q = q.orderBy(o.column, o.direction);
      if (!page.order.some((o) => o.column === 'id')) q = q.orderBy('id', 'desc');
      const [rows, count] = await Promise.all([
        q.limit(page.size).offset(page.offset).execute(),
        filtered(f)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: toNumber(count.n) };
    },

    byTradeNo(tradeNo: string): Promise<OrderRow | undefined> {
      return db.selectFrom('orders').selectAll().where('trade_no', '=', tradeNo).executeTakeFirst();
    },

    /** Closes this user's pending orders created before `before`; other users' are left alone. */
    async closeStale(userId: number, before: number, now: number): Promise<number> {
      const r = await db
        .updateTable('orders')
        .set({ status: OrderStatus.Closed, updated_at: now })
        .where('user_id', '=', userId)
        .where('status', '=', OrderStatus.Pending)
        .where('created_at', '<', before)
        .executeTakeFirst();
      return toNumber(r.numUpdatedRows);
    },

    async pendingCount(userId: number): Promise<number> {
      const r = await db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', userId)
        .where('status', '=', OrderStatus.Pending)
        .executeTakeFirstOrThrow();
      return toNumber(r.n);
    },

    insert(row: NewOrder): Promise<number> {
      return insertReturningId(dialect, db.insertInto('orders').values(row));
    },

    async setGatewayNo(id: number, gatewayNo: string, now: number): Promise<void> {
      await db
        .updateTable('orders')
        .set({ gateway_no: gatewayNo, updated_at: now })
        .where('id', '=', id)
        .execute();
    },

    /** The gateway refused to open the payment: the order can never be paid. */
    async markFailed(id: number, now: number): Promise<void> {
      await db
        .updateTable('orders')
        .set({ status: OrderStatus.Failed, updated_at: now })
        .where('id', '=', id)
        .where('status', '=', OrderStatus.Pending)
        .execute();
    },

    /**
     * A verified payment of order `tradeNo` through gateway `gatewayId`. In one transaction: the
     * order's status moves to success only from a payable one (a conditional update, so of two
     * callbacks at once exactly one wins on every engine), the user is credited its quota and a
     * top-up log row is written. A payment whose amount or currency differs from the order's
     * changes nothing.
     */
    async settle(
      tradeNo: string,
      gatewayId: number,
      paid: Payment,
      note: Omit<CreditNote, 'username'>,
      now: number,
    ): Promise<Settled> {
      return db.transaction().execute(async (trx): Promise<Settled> => {
        const order = await trx
          .selectFrom('orders')
          .selectAll()
          .where('trade_no', '=', tradeNo)
          .executeTakeFirst();
        if (!order || toNumber(order.gateway_id) !== gatewayId) return { outcome: 'unknown' };
        if (order.status === OrderStatus.Success) return { outcome: 'already', order };
        if (!PAYABLE.includes(order.status as (typeof PAYABLE)[number]))
          return { outcome: 'not_payable', order };
        const expected = `${toCents(order.order_amount)} ${order.order_currency}`;
        const got = `${paid.cents} ${paid.currency.toUpperCase()}`;
        if (expected !== got) return { outcome: 'mismatch', order, expected, got };
        const won = await trx
          .updateTable('orders')
          .set({ status: OrderStatus.Success, gateway_no: paid.gatewayNo, updated_at: now })
          .where('id', '=', order.id)
          .where('status', 'in', PAYABLE)
          .executeTakeFirst();
        if (toNumber(won.numUpdatedRows) !== 1) return { outcome: 'already', order };
        const quota = toNumber(order.quota);
        const user = await trx
          .selectFrom('users')
          .select(['username'])
          .where('id', '=', order.user_id)
          .executeTakeFirst();
        const credited = await trx
          .updateTable('users')
          .set((eb) => ({ quota: eb('quota', '+', quota) }))
          .where('id', '=', order.user_id)
          .executeTakeFirst();
        // Money taken for an account that no longer exists: throwing leaves the order payable and
        // the gateway retrying until an administrator looks.
        if (!user || toNumber(credited.numUpdatedRows) !== 1)
          throw new Error(`User ${order.user_id} of order ${tradeNo} no longer exists`);
        await trx
          .insertInto('logs')
          .values(
            balanceLogRow({
              user_id: order.user_id,
              username: user.username,
              type: LogType.Topup,
              content: `Online top-up of ${order.amount} USD through ${note.gatewayName}: paid ${(paid.cents / 100).toFixed(2)} ${order.order_currency}, order ${tradeNo}`,
              quota,
              created_at: now,
              source_ip: note.ip,
              metadata: JSON.stringify({
                trade_no: tradeNo,
                gateway_no: paid.gatewayNo,
                gateway_id: gatewayId,
                event: {
                  kind: 'topup',
                  amount: order.amount,
                  paid: (paid.cents / 100).toFixed(2),
                  currency: order.order_currency,
                  gateway: note.gatewayName,
                  trade_no: tradeNo,
                } satisfies LogEvent,
              }),
            }),
          )
          .execute();
        return {
          outcome: 'credited',
          order: { ...order, status: OrderStatus.Success, gateway_no: paid.gatewayNo },
        };
      });
    },
  };
}
