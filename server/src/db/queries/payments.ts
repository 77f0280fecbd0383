import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { PaymentsTable } from '../tables.js';
import { type ListRequest, likeInsensitive, prefixPattern } from './channels.js';

export type PaymentRow = Selectable<PaymentsTable>;
export type NewPayment = Insertable<PaymentsTable>;
export type PaymentPatch = Updateable<PaymentsTable>;
export type PaymentsQueries = ReturnType<typeof paymentsQueries>;

export const PAYMENT_ORDERABLE = ['id', 'uuid', 'name', 'type', 'sort', 'enable', 'created_at'] as const;
export type PaymentOrderColumn = (typeof PAYMENT_ORDERABLE)[number];

export interface PaymentFilter {
  type?: string;
  /** A prefix (any case) of the name. */
  name?: string;
  uuid?: string;
  currency?: string;
}

/** Payment gateways; deleted ones keep their row (orders name them) with `deleted_at` set. */
export function paymentsQueries({ db, dialect }: Database) {
  const live = () => db.selectFrom('payments').where('deleted_at', 'is', null);
  const filtered = (f: PaymentFilter) => {
    let q = live();
    if (f.type) q = q.where('type', '=', f.type);
    if (f.uuid) q = q.where('uuid', '=', f.uuid);
    if (f.currency) q = q.where('currency', '=', f.currency);
    if (f.name) q = q.where(likeInsensitive(dialect, 'name', prefixPattern(f.name)));
    return q;
  };
  return {
    async list(f: PaymentFilter, page: ListRequest<PaymentOrderColumn>) {
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
    /** The gateways a user may pay through, in their display order. */
    enabled(): Promise<PaymentRow[]> {
      return live().selectAll().where('enable', '=', 1).orderBy('sort', 'asc').orderBy('id', 'asc').execute();
    },
    byId(id: number): Promise<PaymentRow | undefined> {
      return live().selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** Also finds a deleted gateway: its late callbacks still settle orders made before. */
    byUuid(uuid: string): Promise<PaymentRow | undefined> {
      return db.selectFrom('payments').selectAll().where('uuid', '=', uuid).executeTakeFirst();
    },
    /** Names of gateways by id, deleted ones included (the order log shows them). */
    async names(ids: number[]): Promise<Map<number, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom('payments').select(['id', 'name']).where('id', 'in', ids).execute();
      return new Map(rows.map((r) => [r.id, r.name]));
    },
    insert(row: NewPayment): Promise<number> {
      return insertReturningId(dialect, db.insertInto('payments').values(row));
    },
    async update(id: number, patch: PaymentPatch): Promise<boolean> {
      const r = await db
        .updateTable('payments')
        .set(patch)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return toNumber(r.numUpdatedRows) > 0;
    },
    async softDelete(id: number, now: number): Promise<boolean> {
      const r = await db
        .updateTable('payments')
        .set({ deleted_at: now, enable: 0, updated_at: now })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return toNumber(r.numUpdatedRows) > 0;
    },
  };
}
