import type { Selectable } from 'kysely';
import type { Database } from '../create-db.js';
import { insertReturningId, toNumber } from '../dialect.js';
import type { TelegramMenusTable } from '../tables.js';
import { type ListRequest, likeInsensitive, prefixPattern } from './channels.js';

export type TelegramMenuRow = Selectable<TelegramMenusTable>;
export type TelegramMenusQueries = ReturnType<typeof telegramMenusQueries>;
export type TelegramMenuFields = Omit<TelegramMenuRow, 'id'>;

export const TELEGRAM_MENU_ORDERABLE = ['id', 'command'] as const;
export type TelegramMenuOrderColumn = (typeof TELEGRAM_MENU_ORDERABLE)[number];

export function telegramMenusQueries({ db, dialect }: Database) {
  /** The keyword is an id, or a prefix of the command. */
  const filtered = (keyword: string | undefined) => {
    let q = db.selectFrom('telegram_menus');
    if (keyword) {
      const id = /^\d+$/.test(keyword) ? Number(keyword) : undefined;
      q = q.where((eb) =>
        eb.or([
          likeInsensitive(dialect, 'command', prefixPattern(keyword)),
          ...(id !== undefined ? [eb('id', '=', id)] : []),
        ]),
      );
    }
    return q;
  };
  return {
    async list(
      keyword: string | undefined,
      page: ListRequest<TelegramMenuOrderColumn>,
    ): Promise<{ rows: TelegramMenuRow[]; total: number }> {
      let q = filtered(keyword).selectAll();
      for (const o of page.order) q = q.orderBy(o.column, o.direction);
      if (!page.order.some((o) => o.column === 'id')) q = q.orderBy('id', 'desc');
      const [rows, n] = await Promise.all([
        q.limit(page.size).offset(page.offset).execute(),
        filtered(keyword)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: toNumber(n.n) };
    },
    async byId(id: number): Promise<TelegramMenuRow | undefined> {
      return db.selectFrom('telegram_menus').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async byCommand(command: string): Promise<TelegramMenuRow | undefined> {
      return db.selectFrom('telegram_menus').selectAll().where('command', '=', command).executeTakeFirst();
    },
    async insert(row: TelegramMenuFields): Promise<number> {
      return insertReturningId(dialect, db.insertInto('telegram_menus').values(row));
    },
    async update(id: number, row: TelegramMenuFields): Promise<void> {
      await db.updateTable('telegram_menus').set(row).where('id', '=', id).execute();
    },
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('telegram_menus').where('id', '=', id).executeTakeFirst();
      return toNumber(result.numDeletedRows) > 0;
    },
  };
}
